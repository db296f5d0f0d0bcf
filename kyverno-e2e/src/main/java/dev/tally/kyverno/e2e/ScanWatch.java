package dev.tally.kyverno.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the background-scan intermediate reports Kyverno's reports controller creates in a
 * namespace, per resource (its label {@code audit.kyverno.io/resource.uid}), from an informer: how
 * a test knows that a scan evaluated a resource after a change, without waiting a fixed time.
 */
public final class ScanWatch implements AutoCloseable {
  private static final String SOURCE = "audit.kyverno.io/source";
  private static final String RESOURCE_UID = "audit.kyverno.io/resource.uid";

  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicLong> scans = new ConcurrentHashMap<>();

  public ScanWatch(KubernetesClient client, String namespace) {
    this.informer =
        client
            .genericKubernetesResources(Reports.EPHEMERAL_REPORTS)
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource r) {
                    count(r);
                  }

                  @Override
                  public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource r) {
                    count(r);
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource r, boolean unknownFinalState) {}
                });
  }

  private void count(GenericKubernetesResource r) {
    Map<String, String> labels = r.getMetadata().getLabels();
    if (labels == null || !"background-scan".equals(labels.get(SOURCE))) {
      return;
    }
    // an informer's relist and an update of the same object are one scan: the object's
    // uid and resourceVersion
    if (seen.add(r.getMetadata().getUid() + "@" + r.getMetadata().getResourceVersion())) {
      scans.computeIfAbsent(labels.get(RESOURCE_UID), k -> new AtomicLong()).incrementAndGet();
    }
  }

  /** Background-scan reports seen so far about the resource with {@code uid}. */
  public long scans(String uid) {
    AtomicLong n = scans.get(uid);
    return n == null ? 0 : n.get();
  }

  /** A mark: per resource, the scans seen so far. */
  public Map<String, Long> mark() {
    Map<String, Long> m = new ConcurrentHashMap<>();
    scans.forEach((uid, n) -> m.put(uid, n.get()));
    return m;
  }

  /** Whether each of {@code uids} was scanned at least {@code times} more since {@code mark}. */
  public boolean scannedSince(Map<String, Long> mark, Collection<String> uids, int times) {
    for (String uid : uids) {
      if (scans(uid) - mark.getOrDefault(uid, 0L) < times) {
        return false;
      }
    }
    return true;
  }

  /** Whether any of {@code uids} was scanned since {@code mark}: a scan has begun. */
  public boolean anyScannedSince(Map<String, Long> mark, Collection<String> uids) {
    for (String uid : uids) {
      if (scans(uid) > mark.getOrDefault(uid, 0L)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    informer.close();
  }
}
