package dev.tally.report.demo;

import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The demo's chapters on the producers' side: pods are created and admission evaluates them (some
 * before they exist, adopted afterwards), a background scan evaluates every pod, then churn
 * deletes, creates and re-evaluates pods. Each chapter announces its phase and waits for its
 * writes.
 *
 * <p>These are the chapters in which the cluster and the partial reports change; {@link Demo} keeps
 * the aggregator's chapters and the order of all.
 */
final class PodChapters {
  private final DemoCluster cluster;
  private final KubernetesClient admin;
  private final Evaluations evaluations;
  private final Consumer<String> phase;
  private final int namespaces;
  private final int podsPerNamespace;

  /**
   * @param admin the client that creates and deletes pods and namespaces
   * @param phase announces the phase now running
   */
  PodChapters(
      DemoCluster cluster,
      KubernetesClient admin,
      Evaluations evaluations,
      Consumer<String> phase,
      int namespaces,
      int podsPerNamespace) {
    this.cluster = cluster;
    this.admin = admin;
    this.evaluations = evaluations;
    this.phase = phase;
    this.namespaces = namespaces;
    this.podsPerNamespace = podsPerNamespace;
  }

  /**
   * Creates: pods appear; admission evaluates a quarter of them before they exist (CREATE), then
   * adopts those reports. Returns the pods.
   */
  List<Subject> createPods(PartialReportPublisher admission) throws Exception {
    phase.accept("creating pods, admission evaluates them");
    List<Subject> pods = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int n = 0; n < namespaces; n++) {
      String ns = "team-" + n;
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      if (cluster.runsControllers()) {
        awaitDefaultServiceAccount(admin, ns);
      }
      int count = podsPerNamespace * (n + 1) / 3 + 5;
      for (int p = 0; p < count; p++) {
        Subject unborn = Subject.of("v1", "Pod", ns, "app-" + p, "");
        if (p % 4 == 0) {
          writes.add(admission.publish(evaluations.evaluate("admission", unborn)));
        }
        Pod pod = createPod(admin, ns, "app-" + p);
        Subject subject = unborn.withUid(pod.getMetadata().getUid());
        pods.add(subject);
        if (p % 4 != 0) {
          writes.add(admission.publish(evaluations.evaluate("admission", subject)));
        }
      }
    }
    await(writes);
    phase.accept("adopting reports written before their pod existed");
    admission.adoptPending();
    return pods;
  }

  /** A background scan evaluates every pod; returns its publisher. */
  PartialReportPublisher scanInBackground(
      KubernetesClient producerClient, ApiBudget budget, List<Subject> pods) throws Exception {
    phase.accept("background scan of " + pods.size() + " pods");
    PartialReportPublisher background =
        PartialReportPublisher.builder(producerClient).budget(budget).build();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (Subject pod : pods) {
      writes.add(background.publish(evaluations.evaluate("background", pod)));
    }
    await(writes);
    return background;
  }

  /**
   * Churn: every ninth pod is deleted (and its reports with it), new pods appear in every other
   * namespace, a fifth of the pods are scanned again. Updates {@code pods}; returns the deleted.
   */
  List<Subject> churn(
      PartialReportPublisher admission, PartialReportPublisher background, List<Subject> pods)
      throws Exception {
    phase.accept("churn: pods deleted, created, changed");
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    List<Subject> deleted = new ArrayList<>();
    for (int i = 0; i < pods.size(); i += 9) {
      deleted.add(pods.get(i));
    }
    for (Subject gone : deleted) {
      admin.pods().inNamespace(gone.namespace()).withName(gone.name()).delete();
      if (!cluster.runsControllers()) {
        // what the garbage collector would do: remove the partial reports the pod owned
        admin
            .resources(PartialReportResource.class)
            .inNamespace(gone.namespace())
            .withLabel(WireNames.SUBJECT_UID_LABEL, gone.uid())
            .delete();
      }
    }
    if (cluster.runsControllers()) {
      phase.accept("the garbage collector removes the deleted pods' reports");
      for (Subject gone : deleted) {
        awaitCollected(admin, gone);
      }
    }
    pods.removeAll(deleted);
    for (int n = 0; n < namespaces; n += 2) {
      for (int p = 0; p < 5; p++) {
        Pod pod = createPod(admin, "team-" + n, "new-" + p);
        Subject subject =
            Subject.of("v1", "Pod", "team-" + n, "new-" + p, pod.getMetadata().getUid());
        pods.add(subject);
        writes.add(admission.publish(evaluations.evaluate("admission", subject)));
      }
    }
    for (int i = 1; i < pods.size(); i += 5) {
      writes.add(background.publish(evaluations.evaluate("background", pods.get(i))));
    }
    await(writes);
    return deleted;
  }

  private static Pod createPod(KubernetesClient client, String namespace, String name) {
    return client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** Waits until the namespace's {@code default} ServiceAccount exists: pods need it. */
  private static void awaitDefaultServiceAccount(KubernetesClient client, String ns)
      throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      if (client.serviceAccounts().inNamespace(ns).withName("default").get() != null) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("no default ServiceAccount in " + ns + " after 30 s");
  }

  /** Waits until the garbage collector has removed the partial reports {@code gone} owned. */
  private static void awaitCollected(KubernetesClient client, Subject gone)
      throws InterruptedException {
    for (int i = 0; i < 1200; i++) {
      if (client
          .resources(PartialReportResource.class)
          .inNamespace(gone.namespace())
          .withLabel(WireNames.SUBJECT_UID_LABEL, gone.uid())
          .list()
          .getItems()
          .isEmpty()) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("the garbage collector left " + gone.display() + "'s reports");
  }

  /** Waits for every one of {@code writes}, a minute at most. */
  static void await(List<CompletableFuture<Void>> writes) throws Exception {
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
  }
}
