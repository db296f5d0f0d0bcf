package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import java.util.Arrays;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The registers held for one uid: an array of exactly the registers, at most one per (namespace,
 * coverage key). A subject has a handful (one per policy that evaluated it), so an array searched
 * in order takes a fraction of the memory of a map, or of an object per subject, and is as fast at
 * this size. The array is replaced, never grown in place, so it has no slack.
 *
 * <p>A uid claimed in several namespaces (only a hostile or confused producer does that) has the
 * registers of every namespace in its array; every look-up here names the namespace, so that what
 * is said about a uid in one namespace never reads or replaces what is held in another.
 */
final class HeldRegisters {
  static final Register[] NONE = new Register[0];

  private HeldRegisters() {}

  private static boolean in(Register r, String namespace) {
    String ns = r.subject.namespace();
    return ns == namespace || ns.equals(namespace);
  }

  private static int indexOf(Register[] held, String namespace, CoverageKey key) {
    for (int i = 0; i < held.length; i++) {
      CoverageKey k = held[i].key;
      // held keys are shared: usually the same instance
      if ((k == key || k.equals(key)) && in(held[i], namespace)) {
        return i;
      }
    }
    return -1;
  }

  /** The register of {@code key} in {@code namespace}, or null. */
  static @Nullable Register get(Register[] held, String namespace, CoverageKey key) {
    int i = indexOf(held, namespace, key);
    return i < 0 ? null : held[i];
  }

  /** Whether a register of {@code producer} is held in {@code namespace}. */
  static boolean producerHolds(Register[] held, String namespace, String producer) {
    for (Register r : held) {
      if (r.order.producer().equals(producer) && in(r, namespace)) {
        return true;
      }
    }
    return false;
  }

  /** {@code held} with {@code r}, replacing the register of its namespace and key. */
  static Register[] with(Register[] held, Register r) {
    int i = indexOf(held, r.subject.namespace(), r.key);
    Register[] out = Arrays.copyOf(held, i < 0 ? held.length + 1 : held.length);
    out[i < 0 ? held.length : i] = r;
    return out;
  }

  /** {@code held} without the register of {@code r}'s namespace and key. */
  static Register[] without(Register[] held, Register r) {
    int i = indexOf(held, r.subject.namespace(), r.key);
    if (i < 0) {
      return held;
    }
    Register[] out = new Register[held.length - 1];
    System.arraycopy(held, 0, out, 0, i);
    System.arraycopy(held, i + 1, out, i, held.length - i - 1);
    return out;
  }

  /**
   * The registers of each uid: open addressing with linear probing in one array, at most three
   * quarters full, each slot the array of a uid's registers (never empty), keyed by their uid. A
   * {@code HashMap} takes a 32-byte node per subject besides its table; this takes only the table.
   */
  static final class ByUid {
    private @Nullable Register[][] slots = new Register[16][];
    private int size;

    private static int slot(String uid, int mask) {
      int h = uid.hashCode() * 0x9E3779B9;
      return (h ^ (h >>> 16)) & mask;
    }

    private static String uidOf(Register[] held) {
      return held[0].uid();
    }

    /** The registers held for {@code uid}, {@link #NONE} when there are none. */
    Register[] get(String uid) {
      @Nullable Register[][] s = slots;
      int mask = s.length - 1;
      for (int i = slot(uid, mask); ; i = (i + 1) & mask) {
        Register[] h = s[i];
        if (h == null) {
          return NONE;
        }
        if (uidOf(h).equals(uid)) {
          return h;
        }
      }
    }

    /** Holds {@code held} as the registers of {@code uid}; forgets the uid when it is empty. */
    void set(String uid, Register[] held) {
      if (held.length == 0) {
        remove(uid);
        return;
      }
      @Nullable Register[][] s = slots;
      int mask = s.length - 1;
      int i = slot(uid, mask);
      for (; s[i] != null; i = (i + 1) & mask) {
        if (uidOf(s[i]).equals(uid)) {
          s[i] = held;
          return;
        }
      }
      s[i] = held;
      if (++size * 4 > s.length * 3) {
        grow();
      }
    }

    private void remove(String uid) {
      @Nullable Register[][] s = slots;
      int mask = s.length - 1;
      int i = slot(uid, mask);
      while (true) {
        Register[] h = s[i];
        if (h == null) {
          return;
        }
        if (uidOf(h).equals(uid)) {
          break;
        }
        i = (i + 1) & mask;
      }
      // backward shift: move up every later entry of the run that may not stay behind the hole
      int hole = i;
      for (int j = (hole + 1) & mask; s[j] != null; j = (j + 1) & mask) {
        int home = slot(uidOf(s[j]), mask);
        // the entry at j stays unless its home lies cyclically outside (hole, j]
        boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
          s[hole] = s[j];
          hole = j;
        }
      }
      s[hole] = null;
      size--;
    }

    /** Each uid's registers, in no particular order. */
    void forEach(Consumer<Register[]> action) {
      for (Register[] h : slots) {
        if (h != null) {
          action.accept(h);
        }
      }
    }

    private void grow() {
      @Nullable Register[][] old = slots;
      @Nullable Register[][] s = new Register[old.length * 2][];
      int mask = s.length - 1;
      for (Register[] h : old) {
        if (h != null) {
          int i = slot(uidOf(h), mask);
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
