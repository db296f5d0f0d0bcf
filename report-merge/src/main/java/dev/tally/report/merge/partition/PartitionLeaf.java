package dev.tally.report.merge.partition;

import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Summary;
import dev.tally.report.merge.partition.PartitionTrie.Member;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One partition of a {@link PartitionTrie}, a leaf of it: registers (or pieces of an oversized
 * one). Their canonical order is established only when it is read ({@link #results}, {@link
 * #first}): registers are appended as they come, and the order is made once per flush by sorting
 * what was appended since and merging it into the part already in order with a binary search each.
 * So a full load sorts each partition once (n log n comparisons in all, no shifting per register),
 * a split keeps what was in order in order, and an upsert merges its few registers into the ordered
 * rest.
 *
 * <p>The results of the ordered registers are kept in one array in the same order, so that a flush
 * reads one array rather than one per register (each a cache miss on a large state), and an upsert
 * moves runs of it.
 *
 * <p>{@link PartitionTrie} decides which leaf a register's results go to and when a leaf splits or
 * collapses; a leaf only holds them, in order, with their totals.
 */
public final class PartitionLeaf extends PartitionNode {
  private static final Member[] NO_MEMBERS = new Member[0];
  private static final int[] NO_LENGTHS = new int[0];

  /** The path prefix: the first 64 bits, then the next 64. */
  long hi;

  long lo;

  /**
   * The registers: {@code [0, ordered)} in the trie's order, then those appended since, in no
   * order.
   */
  Member[] registers = NO_MEMBERS;

  int size;
  int ordered;

  /** The number of results each ordered register has here. */
  private int[] lengths = NO_LENGTHS;

  /** The results of the ordered registers, in canonical order: {@code [0, flatCount)}. */
  private Result[] flat = PartitionTrie.NO_RESULTS;

  private int flatCount;

  /**
   * The pieces of registers that have only part of their results here (a register alone larger than
   * a partition, split by its results' digests); null while there is none, the common case: every
   * other register has its whole view here.
   */
  private @Nullable IdentityHashMap<Member, Result[]> pieces;

  private long resultSum;
  private final int[] statusCounts = new int[ResultStatus.values().length];

  /** Set when the content changed since it was last published. */
  private boolean dirty = true;

  /**
   * Whether {@link #statusCounts} counts what the leaf holds: false while it is overfull and waits
   * to be split, when appending to it reads no result.
   */
  boolean counted;

  /** The canonical order of the members: the trie's. */
  private final Comparator<Member> order;

  PartitionLeaf(int depth, long hi, long lo, Comparator<Member> order) {
    this(depth, hi, lo, order, true);
  }

  PartitionLeaf(int depth, long hi, long lo, Comparator<Member> order, boolean counted) {
    super(depth);
    this.hi = hi;
    this.lo = lo;
    this.order = order;
    this.counted = counted;
  }

  /** Counts the statuses of what the leaf holds, which it did not while overfull. */
  PartitionLeaf recount() {
    Arrays.fill(statusCounts, 0);
    for (int i = 0; i < size; i++) {
      for (Result x : pieceOf(registers[i])) {
        statusCounts[x.status().ordinal()]++;
      }
    }
    counted = true;
    return this;
  }

  /** The first register in canonical order; the leaf must not be empty. */
  public Member first() {
    order();
    return registers[0];
  }

  /** The results of {@code r} here. */
  Result[] pieceOf(Member r) {
    if (pieces != null) {
      Result[] p = pieces.get(r);
      if (p != null) {
        return p;
      }
    }
    return r.effective();
  }

  /** Each register with its results here, in no particular order. */
  void forEachPiece(BiConsumer<Member, Result[]> action) {
    for (int i = 0; i < size; i++) {
      Member r = registers[i];
      action.accept(r, pieceOf(r));
    }
  }

  /** Puts the registers in canonical order: sorts those appended since, merges them in. */
  private void order() {
    if (ordered == size) {
      return;
    }
    Member[] tail = Arrays.copyOfRange(registers, ordered, size);
    Arrays.sort(tail, order);
    if (lengths.length < size) {
      lengths = Arrays.copyOf(lengths, registers.length);
    }
    if (flat.length < count) {
      flat = Arrays.copyOf(flat, Math.max(count, flat.length + (flat.length >> 1)));
    }
    // from the end: each tail register finds its place in the ordered part by a binary search,
    // the run of ordered registers (and their results) after it moves right in one copy
    int end = ordered; // the ordered registers still to place are [0, end)
    int flatEnd = flatCount; // and their results [0, flatEnd)
    int write = size;
    int flatWrite = count;
    for (int j = tail.length - 1; j >= 0; j--) {
      Member t = tail[j];
      int low = 0;
      int high = end;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (order.compare(registers[mid], t) < 0) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      int run = end - low;
      int runResults = 0;
      for (int i = low; i < end; i++) {
        runResults += lengths[i];
      }
      write -= run;
      System.arraycopy(registers, low, registers, write, run);
      System.arraycopy(lengths, low, lengths, write, run);
      flatWrite -= runResults;
      flatEnd -= runResults;
      System.arraycopy(flat, flatEnd, flat, flatWrite, runResults);
      end = low;
      Result[] piece = pieceOf(t);
      write--;
      registers[write] = t;
      lengths[write] = piece.length;
      flatWrite -= piece.length;
      System.arraycopy(piece, 0, flat, flatWrite, piece.length);
    }
    ordered = size;
    flatCount = count;
  }

  void put(Member r, Result[] piece, int n, long b) {
    if (size == registers.length) {
      registers = Arrays.copyOf(registers, Math.max(4, size * 2));
    }
    registers[size++] = r;
    if (n != r.effective().length) {
      if (pieces == null) {
        pieces = new IdentityHashMap<>();
      }
      pieces.put(r, piece);
    }
    count += n;
    bytes += b;
    resultSum += sum(r, piece);
    if (counted) {
      for (Result x : piece) {
        statusCounts[x.status().ordinal()]++;
      }
    }
    dirty = true;
  }

  /**
   * {@link #put}; {@code inOrder} when {@code r} comes in canonical order after every register put
   * so far, so that a leaf filled in order needs no sort.
   */
  void put(Member r, Result[] piece, boolean inOrder) {
    boolean allOrdered = ordered == size;
    put(r, piece, piece.length, PartitionTrie.bytesOf(r, piece));
    if (inOrder && allOrdered) {
      if (lengths.length < size) {
        lengths = Arrays.copyOf(lengths, registers.length);
      }
      lengths[ordered++] = piece.length;
      if (flat.length < flatCount + piece.length) {
        flat = Arrays.copyOf(flat, Math.max(flatCount + piece.length, flat.length * 2));
      }
      System.arraycopy(piece, 0, flat, flatCount, piece.length);
      flatCount += piece.length;
    }
  }

  /** The index of {@code r} when it is here with all of its effective results, else -1. */
  int wholeIndexOf(Member r) {
    int index = indexOf(r);
    return index >= 0 && (pieces == null || !pieces.containsKey(r)) ? index : -1;
  }

  private int indexOf(Member r) {
    for (int i = size - 1; i >= 0; i--) {
      if (registers[i] == r) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Puts {@code r} where {@code old} is: they have the same place in canonical order, and both are
   * whole here, {@code old} at {@code index} ({@link #wholeIndexOf}).
   */
  void replace(int index, Member old, Member r) {
    Result[] before = old.effective();
    Result[] after = r.effective();
    registers[index] = r;
    if (index < ordered) {
      int offset = 0;
      for (int i = 0; i < index; i++) {
        offset += lengths[i];
      }
      int grow = after.length - before.length;
      if (grow != 0) {
        if (flat.length < flatCount + grow) {
          flat = Arrays.copyOf(flat, Math.max(flatCount + grow, flat.length + (flat.length >> 1)));
        }
        int tail = offset + before.length;
        System.arraycopy(flat, tail, flat, tail + grow, flatCount - tail);
        if (grow < 0) {
          Arrays.fill(flat, flatCount + grow, flatCount, null);
        }
        flatCount += grow;
      }
      System.arraycopy(after, 0, flat, offset, after.length);
      lengths[index] = after.length;
    }
    count += after.length - before.length;
    bytes += (long) r.effectiveBytes() - old.effectiveBytes();
    resultSum += r.effectiveHash() - old.effectiveHash();
    if (counted) {
      for (Result x : before) {
        statusCounts[x.status().ordinal()]--;
      }
      for (Result x : after) {
        statusCounts[x.status().ordinal()]++;
      }
    }
    dirty = true;
  }

  void take(Member r, int n, long b, Result[] piece) {
    int index = indexOf(r);
    if (index < 0 || pieceOf(r).length != n) {
      throw new IllegalStateException(r + " is not in this leaf");
    }
    if (index < ordered) {
      int offset = 0;
      for (int i = 0; i < index; i++) {
        offset += lengths[i];
      }
      System.arraycopy(flat, offset + n, flat, offset, flatCount - offset - n);
      Arrays.fill(flat, flatCount - n, flatCount, null);
      flatCount -= n;
      System.arraycopy(lengths, index + 1, lengths, index, ordered - index - 1);
      ordered--;
    }
    System.arraycopy(registers, index + 1, registers, index, size - index - 1);
    size--;
    registers[size] = null;
    if (pieces != null && pieces.remove(r) != null && pieces.isEmpty()) {
      pieces = null;
    }
    count -= n;
    bytes -= b;
    resultSum -= sum(r, piece);
    if (counted) {
      for (Result x : piece) {
        statusCounts[x.status().ordinal()]--;
      }
    }
    dirty = true;
  }

  private static long sum(Member r, Result[] piece) {
    if (piece == r.effective()) {
      return r.effectiveHash();
    }
    long s = 0;
    for (Result x : piece) {
      s += x.digest();
    }
    return s;
  }

  /**
   * The partition's name suffix: its path with trailing zeros dropped, in hex; empty for the
   * all-zero path, so the first partition keeps the group's plain name. Unique among the leaves of
   * one trie because leaves are prefix-free.
   */
  public String suffix() {
    int len = depth;
    long h = hi;
    long l = lo;
    int last = -1;
    for (int i = 0; i < len; i++) {
      long word = i < 64 ? h : l;
      if (((word >>> (63 - (i % 64))) & 1L) == 1L) {
        last = i;
      }
    }
    if (last < 0) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    for (int nibble = 0; nibble * 4 <= last; nibble++) {
      int v = 0;
      for (int k = 0; k < 4; k++) {
        int i = nibble * 4 + k;
        long word = i < 64 ? h : l;
        int b = i <= last ? (int) ((word >>> (63 - (i % 64))) & 1L) : 0;
        v = (v << 1) | b;
      }
      sb.append(Character.forDigit(v, 16));
    }
    return sb.toString();
  }

  /**
   * The results of this partition in canonical order, as an immutable list that {@code List.copyOf}
   * returns as it is.
   */
  public List<Result> results() {
    order();
    return List.of(flat.length == count ? flat : Arrays.copyOf(flat, count));
  }

  /** The number of results here. */
  public int count() {
    return count;
  }

  /** The sum of the digests of the results here. */
  public long resultSum() {
    return resultSum;
  }

  /** The results here counted by status; the leaf must have been read through its trie. */
  public Summary summary() {
    int[] c = statusCounts;
    return new Summary(c[0], c[1], c[2], c[3], c[4]);
  }

  /** Whether the content changed since it was last {@link #published}. */
  public boolean dirty() {
    return dirty;
  }

  /** Takes the content as published: {@link #dirty} until it changes again. */
  public void published() {
    dirty = false;
  }
}
