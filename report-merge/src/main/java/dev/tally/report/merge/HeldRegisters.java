package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The registers held for one subject, at most one per coverage key. A subject has a handful (one
 * per policy that evaluated it), so an array searched in order takes a tenth of the memory of a
 * {@code HashMap} and is as fast at this size.
 */
final class HeldRegisters implements Iterable<Register> {
  /** Held for subjects without registers; never changed. */
  static final HeldRegisters NONE = new HeldRegisters(0);

  private Register[] registers;
  private int size;

  HeldRegisters(int capacity) {
    this.registers = new Register[capacity];
  }

  private int indexOf(CoverageKey key) {
    for (int i = 0; i < size; i++) {
      if (registers[i].key.equals(key)) {
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
