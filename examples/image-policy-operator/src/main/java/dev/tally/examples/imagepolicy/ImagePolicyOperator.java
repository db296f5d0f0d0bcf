package dev.tally.examples.imagepolicy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs the example against the cluster of the current kubeconfig (or the in-cluster service
 * account) until the process is stopped. The arguments name the namespaces whose Deployments it
 * checks; without any, all.
 */
public final class ImagePolicyOperator {
  private ImagePolicyOperator() {}

  /**
   * An operator on {@code client} with the image-policy reconciler registered, watching {@code
   * namespaces} (all when empty); not started. Stopping it leaves the client open.
   */
  public static Operator create(KubernetesClient client, Set<String> namespaces) {
    Operator operator =
        new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
    ImagePolicyReconciler reconciler =
        new ImagePolicyReconciler(ImagePolicyReconciler.defaultReports());
    if (namespaces.isEmpty()) {
      operator.register(reconciler);
    } else {
      operator.register(reconciler, c -> c.settingNamespaces(namespaces));
    }
    return operator;
  }

  public static void main(String[] args) throws InterruptedException {
    KubernetesClient client = new KubernetesClientBuilder().build();
    Set<String> namespaces =
        Arrays.stream(args).filter(a -> !a.isBlank()).collect(Collectors.toUnmodifiableSet());
    Operator operator = create(client, namespaces);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.stop();
                  client.close();
                }));
    operator.start();
    System.out.println(
        "image-policy-operator running (Ctrl-C stops it); Deployments in "
            + (namespaces.isEmpty() ? "all namespaces" : namespaces));
    Thread.currentThread().join(); // until SIGTERM or Ctrl-C runs the shutdown hook
  }
}
