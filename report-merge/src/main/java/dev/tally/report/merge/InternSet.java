package dev.tally.report.merge;

import org.jspecify.annotations.Nullable;

/**
 * A set of held instances, one per equal value, with no removal: open addressing with linear
 * probing in one array, at most three quarters full. A {@code HashMap} from each value to itself
 * takes a 32-byte node per value besides its table; this takes only the table.
 */
final class InternSet<T> {
  private static final int MIN_CAPACITY = 16;

  private @Nullable Object[] slots = new Object[MIN_CAPACITY];
  private int size;

  int size() {
    return size;
  }

  /** The held instance equal to {@code value}, or null. */
  @SuppressWarnings("unchecked")
  @Nullable T get(T value) {
    @Nullable Object[] s = slots;
    int mask = s.length - 1;
    for (int i = slot(value, mask); ; i = (i + 1) & mask) {
      Object held = s[i];
      if (held == null) {
        return null;
      }
      if (held == value || held.equals(value)) {
        return (T) held;
      }
    }
  }

  /** The held instance equal to {@code value}, which is held from now on if none was. */
  @SuppressWarnings("unchecked")
  T intern(T value) {
    @Nullable Object[] s = slots;
    int mask = s.length - 1;
    int i = slot(value, mask);
    for (; ; i = (i + 1) & mask) {
      Object held = s[i];
      if (held == null) {
        break;
      }
      if (held == value || held.equals(value)) {
        return (T) held;
      }
    }
    s[i] = value;
    if (++size * 4 > s.length * 3) {
      grow();
    }
    return value;
  }

  private static int slot(Object value, int mask) {
    int h = value.hashCode() * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }

  private void grow() {
    @Nullable Object[] old = slots;
    @Nullable Object[] s = new Object[old.length * 2];
    int mask = s.length - 1;
    for (Object v : old) {
      if (v != null) {
        int i = slot(v, mask);
        while (s[i] != null) {
          i = (i + 1) & mask;
        }
        s[i] = v;
      }
    }
    slots = s;
  }
}
