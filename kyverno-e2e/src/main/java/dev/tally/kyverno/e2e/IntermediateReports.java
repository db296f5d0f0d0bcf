package dev.tally.kyverno.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The intermediate reports (EphemeralReports) of a namespace, held by an informer: how many wait
 * now, without listing them again, and the first background-scan report Kyverno's reports
 * controller writes about each of a few resources (label {@code audit.kyverno.io/resource.uid}),
 * kept as written: the templates of {@link ReportProducer}.
 */
final class IntermediateReports implements AutoCloseable {
  static final String SOURCE = "audit.kyverno.io/source";
  static final String RESOURCE_UID = "audit.kyverno.io/resource.uid";

  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private final Set<String> wanted = ConcurrentHashMap.newKeySet();
  private final Map<String, GenericKubernetesResource> captured = new ConcurrentHashMap<>();
  private final AtomicLong added = new AtomicLong();

  IntermediateReports(KubernetesClient client, String namespace) {
    this.informer =
        client
            .genericKubernetesResources(Reports.EPHEMERAL_REPORTS)
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource r) {
                    added.incrementAndGet();
                    capture(r);
                  }

                  @Override
                  public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource r) {
                    capture(r);
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource r, boolean unknownFinalState) {}
                });
  }

  /** Keeps the first background-scan report about the resource with {@code uid} from now on. */
  void want(String uid) {
    wanted.add(uid);
    // one that arrived before the call
    for (GenericKubernetesResource r : informer.getStore().list()) {
      capture(r);
    }
  }

  private void capture(GenericKubernetesResource r) {
    Map<String, String> labels = r.getMetadata().getLabels();
    if (labels == null || !"background-scan".equals(labels.get(SOURCE))) {
      return;
    }
    String uid = labels.get(RESOURCE_UID);
    if (uid != null && wanted.contains(uid)) {
      captured.putIfAbsent(uid, r);
    }
  }

  /** The background-scan report captured about {@code uid}, or null. */
  @Nullable GenericKubernetesResource captured(String uid) {
    return captured.get(uid);
  }

  /** How many intermediate reports the informer saw created so far. */
  long added() {
    return added.get();
  }

  /** How many intermediate reports the namespace holds now (as the informer last heard). */
  int waiting() {
    return informer.getStore().list().size();
  }

  @Override
  public void close() {
    informer.close();
  }
}
