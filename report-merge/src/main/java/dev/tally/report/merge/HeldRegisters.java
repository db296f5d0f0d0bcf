package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
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
  static final HeldRegisters NONE = new HeldRegisters("", 0);

  /** The namespace of every register held here ("" for cluster-scoped subjects). */
  final String namespace;

  /** The registers of the same uid in another namespace, if any. */
  @Nullable HeldRegisters next;

  private Register[] registers;
  private int size;

  HeldRegisters(String namespace, int capacity) {
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
      registers = Arrays.copyOf(registers, Math.max(2, size * 2));
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
}
