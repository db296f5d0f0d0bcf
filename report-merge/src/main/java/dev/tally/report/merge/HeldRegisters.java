package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The registers held for one subject, identified by (namespace, uid), at most one per coverage key.
 * A subject has a handful (one per policy that evaluated it), so an array searched in order takes a
 * tenth of the memory of a {@code HashMap} and is as fast at this size.
 *
 * <p>The aggregator finds these by uid; a uid claimed in several namespaces (only a hostile or
 * confused producer does that) has one instance per namespace, chained through {@link #next}, so
 * that what is said about a uid in one namespace never reads or replaces what is held in another.
 */
final class HeldRegisters implements Iterable<Register> {
  /** Held for subjects without registers; never changed. */
  static final HeldRegisters NONE = new HeldRegisters("", "", 0);

  /** The subject's uid. */
  final String uid;

  /** The namespace of every register held here ("" for cluster-scoped subjects). */
  final String namespace;

  /** The registers of the same uid in another namespace, if any. */
  @Nullable HeldRegisters next;

  private Register[] registers;
  private int size;

  HeldRegisters(String uid, String namespace, int capacity) {
    this.uid = uid;
    this.namespace = namespace;
    this.registers = new Register[capacity];
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

  private int indexOf(CoverageKey key) {
    for (int i = 0; i < size; i++) {
      CoverageKey k = registers[i].key;
      if (k == key || k.equals(key)) { // held keys are shared: usually the same instance
        return i;
      }
    }
    return -1;
  }

  @Nullable Register get(CoverageKey key) {
    int i = indexOf(key);
    return i < 0 ? null : registers[i];
  }

  /** Holds {@code r}, replacing the register of its key. */
  void put(Register r) {
    int i = indexOf(r.key);
    if (i >= 0) {
      registers[i] = r;
      return;
    }
    if (size == registers.length) {
      // a subject's registers grow one policy at a time: a third more, not double
      registers = Arrays.copyOf(registers, Math.max(2, size + (size + 2) / 3));
    }
    registers[size++] = r;
  }

  void remove(CoverageKey key) {
    int i = indexOf(key);
    if (i >= 0) {
      System.arraycopy(registers, i + 1, registers, i, size - i - 1);
      registers[--size] = null;
    }
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** A copy, for callers that change what is held while they walk it. */
  List<Register> toList() {
    return List.of(Arrays.copyOf(registers, size));
  }

  @Override
  public Iterator<Register> iterator() {
    return Arrays.asList(registers).subList(0, size).iterator();
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
