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
import org.jspecify.annotations.Nullable;

/**
 * The intermediate reports of a namespace, from an informer: the background-scan ones Kyverno's
 * reports controller creates, counted per resource (its label {@code
 * audit.kyverno.io/resource.uid}), which is how a test knows that a scan evaluated a resource after
 * a change without waiting a fixed time; how many were created and how many wait now; and the first
 * background-scan report about each of a few resources, kept as written (the templates of {@link
 * ReportProducer}).
 */
public final class ScanWatch implements AutoCloseable {
  static final String SOURCE = "audit.kyverno.io/source";
  static final String RESOURCE_UID = "audit.kyverno.io/resource.uid";

  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicLong> scans = new ConcurrentHashMap<>();
  private final Set<String> wanted = ConcurrentHashMap.newKeySet();
  private final Map<String, GenericKubernetesResource> captured = new ConcurrentHashMap<>();
  private final AtomicLong added = new AtomicLong();

  public ScanWatch(KubernetesClient client, String namespace) {
    this.informer =
        client
            .genericKubernetesResources(Reports.EPHEMERAL_REPORTS)
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource r) {
                    added.incrementAndGet();
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
    String uid = labels.get(RESOURCE_UID);
    // an informer's relist and an update of the same object are one scan: the object's
    // uid and resourceVersion
    if (seen.add(r.getMetadata().getUid() + "@" + r.getMetadata().getResourceVersion())) {
      scans.computeIfAbsent(uid, k -> new AtomicLong()).incrementAndGet();
    }
    if (uid != null && wanted.contains(uid)) {
      captured.putIfAbsent(uid, r);
    }
  }

  /** Keeps the first background-scan report about the resource with {@code uid} from now on. */
  void want(String uid) {
    wanted.add(uid);
    // one that arrived before the call
    for (GenericKubernetesResource r : informer.getStore().list()) {
      count(r);
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
