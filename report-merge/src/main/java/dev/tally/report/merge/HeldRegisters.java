package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The registers held for one subject, identified by (namespace, uid), at most one per coverage key,
 * in the order their keys were first held: a register replaced by a later one of its key keeps its
 * place, and a removal keeps the order of the rest.
 *
 * <p>A subject has a handful (one per policy that evaluated it), so up to {@link #ARRAY_MAX} they
 * are kept in an array searched in order, which takes a tenth of the memory of a {@code HashMap}
 * and is as fast at this size. A producer may cover thousands of keys of one subject, though, and a
 * search in order per key made applying such reports quadratic in the subject's registers (seconds
 * per report at tens of thousands, {@code ManyKeysBenchmark} in benchmarks): past {@link
 * #ARRAY_MAX} the registers are indexed by key ({@link Indexed}), and go back to an array once they
 * fall to {@link #ARRAY_MIN}; the gap between the two keeps a subject that goes up and down around
 * one size from converting on every change. Either way {@link #get}, {@link #put}, {@link #remove}
 * and {@link #holds} take constant time at any size.
 *
 * <p>The aggregator finds these by uid; a uid claimed in several namespaces (only a hostile or
 * confused producer does that) has one instance per namespace, chained through {@link #next}, so
 * that what is said about a uid in one namespace never reads or replaces what is held in another.
 */
final class HeldRegisters implements Iterable<Register> {
  /** Held for subjects without registers; never changed. */
  static final HeldRegisters NONE = new HeldRegisters("", "", 0);

  /** The most registers kept in an array: one more, and they are indexed. */
  static final int ARRAY_MAX = 16;

  /** Indexed registers that fall to this many go back to an array. */
  static final int ARRAY_MIN = ARRAY_MAX / 2;

  /** The subject's uid. */
  final String uid;

  /** The namespace of every register held here ("" for cluster-scoped subjects). */
  final String namespace;

  /** The registers of the same uid in another namespace, if any. */
  @Nullable HeldRegisters next;

  /**
   * The registers: a {@code Register[]} whose first {@link #size} slots are used, in order, while
   * there are at most {@link #ARRAY_MAX}; an {@link Indexed} above. One field for both, so that the
   * small form, which nearly every subject has, takes no more memory than an array alone did.
   */
  private Object store;

  private int size;

  HeldRegisters(String uid, String namespace, int capacity) {
    this.uid = uid;
    this.namespace = namespace;
    this.store = new Register[capacity];
  }

  /** The registers of {@code namespace} in the chain starting at {@code first}, or null. */
  static @Nullable HeldRegisters in(@Nullable HeldRegisters first, String namespace) {
    for (HeldRegisters h = first; h != null; h = h.next) {
      if (h.namespace.equals(namespace)) {
        return h;
      }
    }
    return null;
  }

  /**
   * Registers past {@link #ARRAY_MAX}: by key in the order their keys were first held (a {@code
   * LinkedHashMap} keeps a replaced key in its place and the others' order on a removal), and how
   * many each producer holds, so that whether a producer holds any is not a search either. A map
   * entry costs about ten times an array slot (some 45 bytes a register), which only subjects with
   * that many registers pay.
   */
  private static final class Indexed {
    final LinkedHashMap<CoverageKey, Register> byKey;
    final Map<String, int[]> byProducer = new HashMap<>();

    Indexed(int capacity) {
      byKey = new LinkedHashMap<>(capacity * 2);
    }

    void count(Register r) {
      byProducer.computeIfAbsent(r.order.producer(), p -> new int[1])[0]++;
    }

    void uncount(Register r) {
      String producer = r.order.producer();
      int[] n = byProducer.get(producer);
      if (--n[0] == 0) {
        byProducer.remove(producer);
      }
    }
  }

  /** The index of {@code key} in {@code registers}, of which the first {@link #size} are held. */
  private int indexOf(Register[] registers, CoverageKey key) {
    for (int i = 0; i < size; i++) {
      CoverageKey k = registers[i].key;
      if (k == key || k.equals(key)) { // held keys are shared: usually the same instance
        return i;
      }
    }
    return -1;
  }

  @Nullable Register get(CoverageKey key) {
    if (store instanceof Register[] registers) {
      int i = indexOf(registers, key);
      return i < 0 ? null : registers[i];
    }
    return ((Indexed) store).byKey.get(key);
  }

  /** Holds {@code r}, replacing the register of its key in its place. */
  void put(Register r) {
    if (store instanceof Register[] registers) {
      int i = indexOf(registers, r.key);
      if (i >= 0) {
        registers[i] = r;
        return;
      }
      if (size < ARRAY_MAX) {
        if (size == registers.length) {
          // a subject's registers grow one policy at a time: a third more, not double
          registers = Arrays.copyOf(registers, Math.max(2, size + (size + 2) / 3));
          store = registers;
        }
        registers[size++] = r;
        return;
      }
      store = toIndexed(registers);
    }
    Indexed indexed = (Indexed) store;
    Register old = indexed.byKey.put(r.key, r);
    if (old == null) {
      size++;
    } else {
      indexed.uncount(old);
    }
    indexed.count(r);
  }

  void remove(CoverageKey key) {
    if (store instanceof Register[] registers) {
      int i = indexOf(registers, key);
      if (i >= 0) {
        System.arraycopy(registers, i + 1, registers, i, size - i - 1);
        registers[--size] = null;
      }
      return;
    }
    Indexed indexed = (Indexed) store;
    Register old = indexed.byKey.remove(key);
    if (old == null) {
      return;
    }
    indexed.uncount(old);
    if (--size <= ARRAY_MIN) {
      Register[] registers = new Register[size + (size + 2) / 3];
      int i = 0;
      for (Register r : indexed.byKey.values()) {
        registers[i++] = r;
      }
      store = registers;
    }
  }

  /** The first {@link #size} of {@code registers}, indexed, in their order. */
  private Indexed toIndexed(Register[] registers) {
    Indexed indexed = new Indexed(size + 1);
    for (int i = 0; i < size; i++) {
      indexed.byKey.put(registers[i].key, registers[i]);
      indexed.count(registers[i]);
    }
    return indexed;
  }

  /** Whether a register of {@code producer} is held. */
  boolean holds(String producer) {
    if (store instanceof Register[] registers) {
      for (int i = 0; i < size; i++) {
        if (registers[i].order.producer().equals(producer)) {
          return true;
        }
      }
      return false;
    }
    return ((Indexed) store).byProducer.containsKey(producer);
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /** Whether the registers are indexed by key rather than kept in an array. */
  boolean isIndexed() {
    return store instanceof Indexed;
  }

  /** The registers in the order their keys were first held; read only. */
  @Override
  public Iterator<Register> iterator() {
    if (store instanceof Register[] registers) {
      return Arrays.asList(registers).subList(0, size).iterator();
    }
    return Collections.unmodifiableCollection(((Indexed) store).byKey.values()).iterator();
  }

  /**
   * The first {@link HeldRegisters} of each uid: open addressing with linear probing in one array,
   * at most three quarters full, keyed by {@link #uid}. A {@code HashMap} takes a 32-byte node per
   * subject besides its table; this takes only the table.
   */
  static final class ByUid {
    private @Nullable HeldRegisters[] slots = new HeldRegisters[16];
    private int size;

    private static int slot(String uid, int mask) {
      int h = uid.hashCode() * 0x9E3779B9;
      return (h ^ (h >>> 16)) & mask;
    }

    /** The first registers held for {@code uid}, or null. */
    @Nullable HeldRegisters get(String uid) {
      @Nullable HeldRegisters[] s = slots;
      int mask = s.length - 1;
      for (int i = slot(uid, mask); ; i = (i + 1) & mask) {
        HeldRegisters h = s[i];
        if (h == null || h.uid.equals(uid)) {
          return h;
        }
      }
    }

    /** Makes {@code first} the first registers held for its uid. */
    void put(HeldRegisters first) {
      @Nullable HeldRegisters[] s = slots;
      int mask = s.length - 1;
      int i = slot(first.uid, mask);
      for (; s[i] != null; i = (i + 1) & mask) {
        if (s[i].uid.equals(first.uid)) {
          s[i] = first;
          return;
        }
      }
      s[i] = first;
      if (++size * 4 > s.length * 3) {
        grow();
      }
    }

    /** Forgets what is held for {@code uid}. */
    void remove(String uid) {
      @Nullable HeldRegisters[] s = slots;
      int mask = s.length - 1;
      int i = slot(uid, mask);
      while (true) {
        HeldRegisters h = s[i];
        if (h == null) {
          return;
        }
        if (h.uid.equals(uid)) {
          break;
        }
        i = (i + 1) & mask;
      }
      // backward shift: move up every later entry of the run that may not stay behind the hole
      int hole = i;
      for (int j = (hole + 1) & mask; s[j] != null; j = (j + 1) & mask) {
        int home = slot(s[j].uid, mask);
        // the entry at j may fill the hole unless its home lies cyclically in (hole, j]
        boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
          s[hole] = s[j];
          hole = j;
        }
      }
      s[hole] = null;
      size--;
    }

    /** Each uid's first registers, in no particular order. */
    void forEach(Consumer<HeldRegisters> action) {
      for (HeldRegisters h : slots) {
        if (h != null) {
          action.accept(h);
        }
      }
    }

    private void grow() {
      @Nullable HeldRegisters[] old = slots;
      @Nullable HeldRegisters[] s = new HeldRegisters[old.length * 2];
      int mask = s.length - 1;
      for (HeldRegisters h : old) {
        if (h != null) {
          int i = slot(h.uid, mask);
          while (s[i] != null) {
            i = (i + 1) & mask;
          }
          s[i] = h;
        }
      }
      slots = s;
    }
  }
}
