package dev.tally.report.fabric8;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.FairShare;
import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What the feed's informers hold of the input objects (docs/DESIGN.md, section 9, "Caps", and
 * section 7.3). An informer keeps every object whole in its store: an intermediate report waiting
 * for its delete, or a tenant's refused object of a megabyte, would stay in the heap for as long as
 * it stays in the cluster. The informers' stores ({@link #store}) hold an object, once the ledger
 * handled its version, as a <em>stripped copy</em>: its identity alone (apiVersion, kind,
 * namespace, name, uid and resourceVersion, each bounded by the API server's validation), which is
 * all that is read of an object after its version was handled: an update arrives with the new
 * object and a watch's deletion as the object's identity; only a deletion found by an informer's
 * re-list hands over the store's copy, and then only its key and version are read. So a backlog of
 * merged reports waiting for their delete costs about a kilobyte each, not their content.
 *
 * <p>An object the ledger applied ({@link #handled}) is held as its copy outside any cap: the
 * cluster holds it, and the aggregator bounds what it holds for it. An object the ledger refused
 * ({@link #refused}) is held as its copy within caps: the copies are counted per namespace and in
 * all against {@code maxPerNamespace} and {@code max}, which namespaces share fairly ({@link
 * FairShare}). Past a cap nothing at all is held for a refused object: its entry leaves the store.
 * Its deletion is then seen by the next periodic re-list instead of an event, which changes
 * nothing, since the aggregator holds nothing of it; should the informer deliver the same version
 * again (after its own re-list), it is refused again and leaves again. (Should that periodic
 * re-list apply the version after all, once there is room, the store still holds nothing for it:
 * its deletion reaches the ledger through the periodic re-list after it, a {@code resyncPeriod}
 * later, and not at once.) An object whose removal the ledger needs (the aggregator still holds an
 * earlier version of it) keeps its stripped copy past the caps: what the aggregator holds for it is
 * bounded by the aggregator's own caps.
 *
 * <p>The stores are modified by the informers' threads (one at a time per informer) and by the
 * aggregator thread ({@link #refused}, {@link #handled}); everything is guarded by one lock.
 */
final class InformerStores {
  /** Copies of refused objects one namespace may hold, by default. */
  static final int DEFAULT_MAX_PER_NAMESPACE = 1_000;

  /** Copies of refused objects all namespaces together may hold, by default. */
  static final int DEFAULT_MAX = 20_000;

  /** The cap on one namespace's copies, as named in Events and metrics. */
  static final String CAP_PER_NAMESPACE = "maxRefusedCopiesPerNamespace";

  /** The cap on all copies, as named in Events and metrics. */
  static final String CAP = "maxRefusedCopies";

  private final int maxPerNamespace;
  private final int max;
  private final Object lock = new Object();
  private final List<Store<?>> stores = new ArrayList<>();
  private final Map<String, Integer> byNamespace = new HashMap<>();
  private int total;
  private long bytes;

  InformerStores(int maxPerNamespace, int max) {
    if (maxPerNamespace < 1 || max < 1) {
      throw new IllegalArgumentException(
          "maxRefusedCopies must be at least 1, was " + maxPerNamespace + " and " + max);
    }
    this.maxPerNamespace = maxPerNamespace;
    this.max = max;
  }

  /**
   * Makes {@code informer}, not started yet, keep its objects in a store of this set; its namespace
   * index, which nothing reads and which would hold a key per object, is removed.
   */
  <T extends HasMetadata> SharedIndexInformer<T> bound(SharedIndexInformer<T> informer) {
    return informer.removeNamespaceIndex().itemStore(store());
  }

  /** A new store for one informer. */
  <T extends HasMetadata> ItemStore<T> store() {
    Store<T> store = new Store<>();
    synchronized (lock) {
      stores.add(store);
    }
    return store;
  }

  /** The stores of a term are dropped with its informers; the counts restart. */
  void clear() {
    synchronized (lock) {
      stores.clear();
      byNamespace.clear();
      total = 0;
      bytes = 0;
    }
  }

  /**
   * The ledger refused {@code resource} at its version: the store holding that version keeps its
   * stripped copy, or, past a cap and unless {@code keep}, nothing. Nothing changes when no store
   * holds that version (it changed or went since, or is held as a stripped copy or not at all
   * already).
   *
   * @param keep whether the ledger needs the object's removal (it holds an earlier version of it):
   *     its stripped copy is kept past the caps
   * @return the cap that kept the store from holding anything for it, if one did
   */
  Optional<CapacityExceededException> refused(HasMetadata resource, boolean keep) {
    String key = keyOf(resource);
    String version = resource.getMetadata().getResourceVersion();
    String namespace = namespaceOf(resource);
    synchronized (lock) {
      for (Store<?> store : stores) {
        HasMetadata held = store.items.get(key);
        if (held == null
            || isCopy(held)
            || !Objects.equals(held.getMetadata().getResourceVersion(), version)
            || !Objects.equals(held.getKind(), resource.getKind())) {
          continue;
        }
        int inNamespace = byNamespace.getOrDefault(namespace, 0);
        CapacityExceededException over = null;
        if (inNamespace >= maxPerNamespace) {
          over =
              new CapacityExceededException(
                  "metadata.namespace",
                  "namespace '"
                      + namespace
                      + "' already holds "
                      + inNamespace
                      + " copies of refused objects, at most "
                      + maxPerNamespace
                      + " allowed (cap "
                      + CAP_PER_NAMESPACE
                      + "); nothing is held for this one",
                  maxPerNamespace,
                  CAP_PER_NAMESPACE);
        } else if (!FairShare.admits(
            total + 1L, max, inNamespace + 1L, byNamespace.size() + (inNamespace == 0 ? 1 : 0))) {
          // past the cap in all, a namespace over its fair share of it (or all, at twice the cap)
          over =
              new CapacityExceededException(
                  "metadata.namespace",
                  total
                      + " copies of refused objects are held in all, over the cap of "
                      + max
                      + " (cap "
                      + CAP
                      + ", shared fairly by namespaces); nothing is held for this one, of"
                      + " namespace '"
                      + namespace
                      + "', which holds "
                      + inNamespace,
                  max,
                  CAP);
        }
        if (over != null && !keep) {
          store.items.remove(key);
          return Optional.of(over);
        }
        store.putCopy(key, stripped(held), true);
        return Optional.empty();
      }
      return Optional.empty();
    }
  }

  /**
   * The ledger applied {@code resource} at its version (or it waits, held by the input's services):
   * the store holding that version keeps its stripped copy, not counted against the caps; a copy
   * counted as refused at that version (refused at a cap, applied by a later re-list) stops
   * counting. Nothing changes when no store holds that version.
   */
  void handled(HasMetadata resource) {
    String key = keyOf(resource);
    String version = resource.getMetadata().getResourceVersion();
    synchronized (lock) {
      for (Store<?> store : stores) {
        HasMetadata held = store.items.get(key);
        if (held == null
            || !Objects.equals(held.getMetadata().getResourceVersion(), version)
            || !Objects.equals(held.getKind(), resource.getKind())) {
          continue;
        }
        if (isCopy(held)) {
          store.uncount(key, held);
        } else {
          store.putCopy(key, stripped(held), false);
        }
        return;
      }
    }
  }

  /**
   * Whether {@code resource} is a stripped copy (of an object handled or refused), which says
   * nothing but its identity: marked as a watch's deletion of an input object is ({@link
   * InputResource#isIdentityOnly}), the one other object that holds its identity alone.
   */
  static boolean isCopy(HasMetadata resource) {
    return InputResource.isIdentityOnly(resource);
  }

  /** How many stripped copies of refused objects are held, in all. */
  int held() {
    synchronized (lock) {
      return total;
    }
  }

  /** How many stripped copies of refused objects {@code namespace} holds. */
  int heldIn(String namespace) {
    synchronized (lock) {
      return byNamespace.getOrDefault(namespace, 0);
    }
  }

  /** About how many bytes of heap the stripped copies of refused objects take, in all. */
  long heldBytes() {
    synchronized (lock) {
      return bytes;
    }
  }

  /**
   * About the heap a stripped copy takes: its strings (two bytes a character at most) and the
   * objects around them. Each string is bounded by the API server's validation (a name 253
   * characters, a namespace 63, a uid 36, ...), so a copy takes at most about 2 KiB.
   */
  static long bytesOf(HasMetadata copy) {
    var meta = copy.getMetadata();
    long chars = 0;
    for (String s :
        new String[] {
          copy.getApiVersion(),
          copy.getKind(),
          meta.getNamespace(),
          meta.getName(),
          meta.getUid(),
          meta.getResourceVersion()
        }) {
      chars += s == null ? 0 : s.length();
    }
    return 2 * chars + 400;
  }

  /**
   * A copy of {@code object} that keeps its identity and nothing else, of the same class (whatever
   * input it belongs to: a typed resource through its no-argument constructor, which gives its kind
   * and apiVersion; anything else as a generic object of its kind).
   */
  static HasMetadata stripped(HasMetadata object) {
    HasMetadata copy = emptyOfSameClass(object);
    copy.setApiVersion(object.getApiVersion());
    var meta = object.getMetadata();
    var m = new ObjectMeta();
    m.setNamespace(meta.getNamespace());
    m.setName(meta.getName());
    m.setUid(meta.getUid());
    m.setResourceVersion(meta.getResourceVersion());
    copy.setMetadata(InputResource.identityOnly(m));
    return copy;
  }

  private static HasMetadata emptyOfSameClass(HasMetadata object) {
    if (!(object instanceof GenericKubernetesResource)) {
      try {
        return object.getClass().getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException | RuntimeException e) {
        // no accessible no-argument constructor: a generic copy of its kind below
      }
    }
    var generic = new GenericKubernetesResource();
    generic.setKind(object.getKind());
    return generic;
  }

  /** The key of an object in a store: its namespace and name, as fabric8's own stores key them. */
  private static String keyOf(HasMetadata object) {
    String ns = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return ns == null || ns.isEmpty() ? name : ns + "/" + name;
  }

  private static String namespaceOf(HasMetadata object) {
    return Objects.requireNonNullElse(object.getMetadata().getNamespace(), "");
  }

  /**
   * Counts a stripped copy of {@code store} in or out; not when the store belongs to a term that
   * ended ({@link #clear}), whose informer may still be stopping. Under the lock.
   */
  private void count(Store<?> store, HasMetadata copy, int sign) {
    if (!stores.contains(store)) {
      return;
    }
    String namespace = namespaceOf(copy);
    byNamespace.merge(namespace, sign, (a, b) -> a + b == 0 ? null : a + b);
    total += sign;
    bytes += sign * bytesOf(copy);
  }

  /**
   * One informer's store: a map from key to object, where an object handled or refused at its
   * version is its stripped copy, and the keys of the copies of refused objects, which are counted.
   * The informer's own re-list delivers the same version again: the copy stays, and since the
   * versions are equal the informer sends no event for it.
   */
  private final class Store<T extends HasMetadata> implements ItemStore<T> {
    private final Map<String, T> items = new java.util.concurrent.ConcurrentHashMap<>();

    /** The keys whose copy is of a refused object, counted against the caps. Under the lock. */
    private final Set<String> counted = new HashSet<>();

    @Override
    public String getKey(T obj) {
      return keyOf(obj);
    }

    @Override
    public @Nullable T put(String key, T obj) {
      synchronized (lock) {
        T had = items.get(key);
        if (had != null
            && isCopy(had)
            && Objects.equals(
                had.getMetadata().getResourceVersion(), obj.getMetadata().getResourceVersion())) {
          return had; // the same version handled or refused: still its copy alone
        }
        items.put(key, obj);
        uncount(key, had);
        return had;
      }
    }

    /** Holds {@code copy} for {@code key}; {@code refused}: counted against the caps. */
    @SuppressWarnings("unchecked")
    void putCopy(String key, HasMetadata copy, boolean refused) {
      items.put(key, (T) copy); // the same class as the object it stands for
      if (refused && counted.add(key)) {
        count(this, copy, +1);
      }
    }

    /** {@code had}, held for {@code key} until now, no longer counts, if it did. */
    void uncount(String key, @Nullable HasMetadata had) {
      if (had != null && counted.remove(key)) {
        count(this, had, -1);
      }
    }

    @Override
    public @Nullable T remove(String key) {
      synchronized (lock) {
        T had = items.remove(key);
        uncount(key, had);
        return had;
      }
    }

    @Override
    public Stream<String> keySet() {
      return List.copyOf(items.keySet()).stream();
    }

    @Override
    public Stream<T> values() {
      return List.copyOf(items.values()).stream();
    }

    @Override
    public int size() {
      return items.size();
    }

    @Override
    public @Nullable T get(String key) {
      return items.get(key);
    }
  }
}
