package dev.tally.report.merge;

import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Splits one group into partitions that respect the limits, stably.
 *
 * <p>Every result has a 128-bit path: the digest of its register (uid, source, policy), then the
 * digest of the result itself. The partitions are the leaves of the binary trie over those paths in
 * which a node is a leaf exactly when everything under it fits the limits. That is a function of
 * the group's content alone (any history gives the same partitions), and results of one register
 * stay together unless the register alone is too big. Adding or removing one result changes only
 * nodes on its path: the leaf it lands in changes, or is replaced by the leaves below it, or the
 * leaves under its highest ancestor that now fits are replaced by that one. When only the result
 * limit splits, that is one leaf into two or two into one, so a flush writes at most three objects
 * (a split whose halves both get new names is a Delete and two Creates); when the byte limit
 * splits, a leaf can split several levels down. docs/DESIGN.md ("Output rules") states it exactly
 * and SplitBoundProperties checks it.
 *
 * <p>Totals are kept at every node, so add and remove cost O(depth + leaf change), not a rebuild.
 */
final class PartitionTrie {
  /** Below this depth a path bit comes from the register digest, from here on from the result's. */
  static final int REGISTER_BITS = 64;

  static final int MAX_DEPTH = 128;

  private static final Register[] NO_REGISTERS = new Register[0];
  private static final int[] NO_LENGTHS = new int[0];
  private static final Result[] NO_RESULTS = new Result[0];

  private final int maxResults;
  private final long maxBytes;
  private Node root = new Leaf(0, 0L, 0L);

  /**
   * Whether some leaf has outgrown the limits since the trie was last read: it is split only when
   * the partitions are read ({@link #settle}), straight into leaves that fit, so that a bulk load
   * places each result once instead of once per level it is split down.
   */
  private boolean unsettled;

  PartitionTrie(int maxResults, long maxBytes) {
    this.maxResults = maxResults;
    this.maxBytes = maxBytes;
  }

  /** The most bytes of results (each result's JSON and a comma) one partition holds. */
  long maxBytes() {
    return maxBytes;
  }

  /** A trie of the same registers whose partitions hold at most {@code bytes} of results. */
  PartitionTrie withMaxBytes(long bytes) {
    PartitionTrie out = new PartitionTrie(maxResults, bytes);
    // a register split over several leaves is added once, with all of its results
    Set<Register> added = Collections.newSetFromMap(new IdentityHashMap<>());
    walk(
        root,
        leaf ->
            leaf.forEachPiece(
                (r, piece) -> {
                  if (added.add(r)) {
                    out.add(r);
                  }
                }));
    return out;
  }

  /** Adds a register's effective results; it must not be in the trie. */
  void add(Register r) {
    if (r.effective().length > 0) {
      root = insert(root, r, r.effective());
    }
  }

  /**
   * Replaces {@code old} by {@code r}, a later register of the same subject, source and policy:
   * what {@link #remove} of {@code old} and {@link #add} of {@code r} give. Both have the same path
   * and the same place in canonical order, so where {@code old} is whole in one leaf (the common
   * case: no register alone fills a partition) {@code r} takes its place there, with no search and
   * no sort.
   */
  void replace(Register old, Register r) {
    if (old.effective().length == 0 || r.effective().length == 0 || !samePlace(old, r)) {
      remove(old);
      add(r);
      return;
    }
    Node n = root;
    while (n instanceof Inner in) {
      if (in.depth >= REGISTER_BITS) {
        remove(old); // below here results go by their own digests: old may be split
        add(r);
        return;
      }
      n = bit(old.pathHash, in.depth) == 0 ? in.zero : in.one;
    }
    int index = ((Leaf) n).wholeIndexOf(old);
    if (index < 0) {
      remove(old);
      add(r);
      return;
    }
    root =
        replace(
            root,
            old,
            r,
            index,
            r.effective().length - old.effective().length,
            (long) r.effectiveBytes() - old.effectiveBytes());
  }

  private static boolean samePlace(Register old, Register r) {
    return old.pathHash == r.pathHash && Register.ORDER.compare(old, r) == 0;
  }

  private Node replace(Node n, Register old, Register r, int index, int count, long bytes) {
    if (n instanceof Inner in) {
      in.count += count;
      in.bytes += bytes;
      if (bit(r.pathHash, in.depth) == 0) {
        in.zero = replace(in.zero, old, r, index, count, bytes);
      } else {
        in.one = replace(in.one, old, r, index, count, bytes);
      }
      return fits(in.count, in.bytes) ? collapse(in) : in;
    }
    Leaf leaf = (Leaf) n;
    leaf.replace(index, old, r);
    if (leaf.counted && !fits(leaf.count, leaf.bytes) && leaf.depth < MAX_DEPTH) {
      leaf.counted = false;
      unsettled = true;
    }
    return leaf;
  }

  /** Removes a register's effective results, as they were added. */
  void remove(Register r) {
    if (r.effective().length > 0) {
      root = delete(root, r, r.effective());
    }
  }

  boolean isEmpty() {
    return root.count == 0;
  }

  int resultCount() {
    return root.count;
  }

  /** The non-empty leaves, in path order. */
  void forEachLeaf(Consumer<Leaf> action) {
    settle();
    walk(root, action);
  }

  /** Splits every leaf that outgrew the limits into leaves that fit. */
  private void settle() {
    if (unsettled) {
      root = settle(root);
      unsettled = false;
    }
  }

  private Node settle(Node n) {
    if (n instanceof Inner in) {
      in.zero = settle(in.zero);
      in.one = settle(in.one);
      return in;
    }
    Leaf leaf = (Leaf) n;
    if (leaf.counted) {
      return leaf;
    }
    return fits(leaf.count, leaf.bytes) || leaf.depth >= MAX_DEPTH ? leaf.recount() : split(leaf);
  }

  List<Leaf> leaves() {
    List<Leaf> out = new ArrayList<>();
    forEachLeaf(out::add);
    return out;
  }

  private static void walk(Node n, Consumer<Leaf> action) {
    if (n instanceof Inner in) {
      walk(in.zero, action);
      walk(in.one, action);
    } else if (n.count > 0) {
      action.accept((Leaf) n);
    }
  }

  private boolean fits(int count, long bytes) {
    return count <= maxResults && bytes <= maxBytes;
  }

  private Node insert(Node n, Register r, Result[] piece) {
    int count = piece.length;
    long bytes = bytesOf(r, piece);
    if (n instanceof Inner in) {
      in.count += count;
      in.bytes += bytes;
      Result[] zero = half(r, piece, in.depth, 0);
      if (zero.length > 0) {
        in.zero = insert(in.zero, r, zero);
      }
      Result[] one = half(r, piece, in.depth, 1);
      if (one.length > 0) {
        in.one = insert(in.one, r, one);
      }
      return in;
    }
    Leaf leaf = (Leaf) n;
    leaf.put(r, piece, count, bytes);
    if (leaf.counted && !fits(leaf.count, leaf.bytes) && leaf.depth < MAX_DEPTH) {
      // split when read: until then what it holds is only appended, its statuses not counted
      leaf.counted = false;
      unsettled = true;
    }
    return leaf;
  }

  private Node delete(Node n, Register r, Result[] piece) {
    int count = piece.length;
    long bytes = bytesOf(r, piece);
    if (n instanceof Inner in) {
      in.count -= count;
      in.bytes -= bytes;
      Result[] zero = half(r, piece, in.depth, 0);
      if (zero.length > 0) {
        in.zero = delete(in.zero, r, zero);
      }
      Result[] one = half(r, piece, in.depth, 1);
      if (one.length > 0) {
        in.one = delete(in.one, r, one);
      }
      return fits(in.count, in.bytes) ? collapse(in) : in;
    }
    Leaf leaf = (Leaf) n;
    leaf.take(r, count, bytes, piece);
    return leaf;
  }

  /**
   * Replaces an overfull leaf by an inner node whose children are split until they fit. Only the
   * leaves that fit count their results' statuses, so each result is read once however deep it
   * goes.
   */
  private Node split(Leaf leaf) {
    int depth = leaf.depth;
    Inner in = new Inner(depth);
    in.count = leaf.count;
    in.bytes = leaf.bytes;
    Leaf zero = new Leaf(depth + 1, leaf.hi, leaf.lo, false);
    Leaf one = new Leaf(depth + 1, withBit(leaf.hi, depth), withBit(leaf.lo, depth - 64), false);
    // in the leaf's order, so that what was in canonical order stays in order in both halves
    for (int i = 0; i < leaf.size; i++) {
      Register r = leaf.registers[i];
      Result[] piece = leaf.pieceOf(r);
      boolean inOrder = i < leaf.ordered;
      Result[] toZero = half(r, piece, depth, 0);
      if (toZero.length > 0) {
        zero.put(r, toZero, inOrder);
      }
      Result[] toOne = half(r, piece, depth, 1);
      if (toOne.length > 0) {
        one.put(r, toOne, inOrder);
      }
    }
    in.zero = settle(zero);
    in.one = settle(one);
    return in;
  }

  /** Replaces a node whose content now fits by one leaf holding all of it. */
  private Leaf collapse(Inner in) {
    Leaf leaf = new Leaf(in.depth, 0L, 0L);
    Leaf first = firstLeaf(in);
    leaf.hi = first.hi & prefixMask(in.depth);
    leaf.lo = in.depth > 64 ? first.lo & prefixMask(in.depth - 64) : 0L;
    // by identity, in the order met; the leaf orders its registers when it is read
    Map<Register, List<Result[]>> pieces = new LinkedHashMap<>();
    walk(
        in,
        l -> l.forEachPiece((r, p) -> pieces.computeIfAbsent(r, k -> new ArrayList<>()).add(p)));
    for (var e : pieces.entrySet()) {
      Register r = e.getKey();
      Result[] piece = join(r, e.getValue());
      leaf.put(r, piece, piece.length, bytesOf(r, piece));
    }
    return leaf;
  }

  private static Leaf firstLeaf(Node n) {
    while (n instanceof Inner in) {
      n = in.zero.count > 0 ? in.zero : in.one;
    }
    return (Leaf) n;
  }

  private static Result[] join(Register r, List<Result[]> pieces) {
    if (pieces.size() == 1) {
      return pieces.get(0);
    }
    int total = 0;
    for (Result[] p : pieces) {
      total += p.length;
    }
    if (total == r.effective().length) {
      return r.effective();
    }
    Result[] out = new Result[total];
    int i = 0;
    for (Result[] p : pieces) {
      System.arraycopy(p, 0, out, i, p.length);
      i += p.length;
    }
    Arrays.sort(out, CanonicalOrder.RESULT);
    return out;
  }

  private static long bytesOf(Register r, Result[] piece) {
    if (piece == r.effective()) {
      return r.effectiveBytes();
    }
    long b = 0;
    for (Result x : piece) {
      b += x.encodedSize() + 1;
    }
    return b;
  }

  /**
   * The part of {@code piece} (results of {@code r}) that goes to child {@code side} (0 or 1) of a
   * node at {@code depth}: the one place that routes a result. Above {@link #REGISTER_BITS} the
   * register's path bit sends the whole piece to one side, with no allocation; from there on each
   * result goes by its own digest's bit, in the piece's order. Returns {@code piece} itself when
   * all of it goes to {@code side}, and an empty array when none does.
   */
  private static Result[] half(Register r, Result[] piece, int depth, int side) {
    if (depth < REGISTER_BITS) {
      return bit(r.pathHash, depth) == side ? piece : NO_RESULTS;
    }
    int index = depth - REGISTER_BITS;
    int n = 0;
    for (Result x : piece) {
      if (bit(x.digest(), index) == side) {
        n++;
      }
    }
    if (n == piece.length) {
      return piece;
    }
    if (n == 0) {
      return NO_RESULTS;
    }
    Result[] out = new Result[n];
    int i = 0;
    for (Result x : piece) {
      if (bit(x.digest(), index) == side) {
        out[i++] = x;
      }
    }
    return out;
  }

  static int bit(long path, int index) {
    return (int) ((path >>> (63 - index)) & 1L);
  }

  private static long withBit(long bits, int index) {
    return index < 0 || index > 63 ? bits : bits | (1L << (63 - index));
  }

  private static long prefixMask(int depth) {
    return depth <= 0 ? 0L : depth >= 64 ? -1L : -1L << (64 - depth);
  }

  /** A node with the totals of everything below it. */
  abstract static class Node {
    final int depth;
    int count;
    long bytes;

    Node(int depth) {
      this.depth = depth;
    }
  }

  static final class Inner extends Node {
    Node zero;
    Node one;

    Inner(int depth) {
      super(depth);
    }
  }

  /**
   * One partition: registers (or pieces of an oversized one). Their canonical order is established
   * only when it is read ({@link #results}, {@link #first}): registers are appended as they come,
   * and the order is made once per flush by sorting what was appended since and merging it into the
   * part already in order with a binary search each. So a full load sorts each partition once (n
   * log n comparisons in all, no shifting per register), a split keeps what was in order in order,
   * and an upsert merges its few registers into the ordered rest.
   *
   * <p>The results of the ordered registers are kept in one array in the same order, so that a
   * flush reads one array rather than one per register (each a cache miss on a large state), and an
   * upsert moves runs of it.
   */
  static final class Leaf extends Node {
    /** The path prefix: the first 64 bits, then the next 64. */
    long hi;

    long lo;

    /**
     * The registers: {@code [0, ordered)} in {@link Register#ORDER}, then those appended since, in
     * no order.
     */
    private Register[] registers = NO_REGISTERS;

    private int size;
    private int ordered;

    /** The number of results each ordered register has here. */
    private int[] lengths = NO_LENGTHS;

    /** The results of the ordered registers, in canonical order: {@code [0, flatCount)}. */
    private Result[] flat = NO_RESULTS;

    private int flatCount;

    /**
     * The pieces of registers that have only part of their results here (a register alone larger
     * than a partition, split by its results' digests); null while there is none, the common case:
     * every other register has its whole view here.
     */
    private @Nullable IdentityHashMap<Register, Result[]> pieces;

    long resultSum;
    final int[] statusCounts = new int[ResultStatus.values().length];

    /** Set when the content changed since the last flush. */
    boolean dirty = true;

    /**
     * Whether {@link #statusCounts} counts what the leaf holds: false while it is overfull and
     * waits to be split, when appending to it reads no result.
     */
    boolean counted;

    Leaf(int depth, long hi, long lo) {
      this(depth, hi, lo, true);
    }

    private Leaf(int depth, long hi, long lo, boolean counted) {
      super(depth);
      this.hi = hi;
      this.lo = lo;
      this.counted = counted;
    }

    /** Counts the statuses of what the leaf holds, which it did not while overfull. */
    private Leaf recount() {
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
    Register first() {
      order();
      return registers[0];
    }

    /** The results of {@code r} here. */
    private Result[] pieceOf(Register r) {
      if (pieces != null) {
        Result[] p = pieces.get(r);
        if (p != null) {
          return p;
        }
      }
      return r.effective();
    }

    /** Each register with its results here, in no particular order. */
    void forEachPiece(BiConsumer<Register, Result[]> action) {
      for (int i = 0; i < size; i++) {
        Register r = registers[i];
        action.accept(r, pieceOf(r));
      }
    }

    /** Puts the registers in canonical order: sorts those appended since, merges them in. */
    private void order() {
      if (ordered == size) {
        return;
      }
      Register[] tail = Arrays.copyOfRange(registers, ordered, size);
      Arrays.sort(tail, Register.ORDER);
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
        Register t = tail[j];
        int low = 0;
        int high = end;
        while (low < high) {
          int mid = (low + high) >>> 1;
          if (Register.ORDER.compare(registers[mid], t) < 0) {
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

    void put(Register r, Result[] piece, int n, long b) {
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
     * {@link #put}; {@code inOrder} when {@code r} comes in canonical order after every register
     * put so far, so that a leaf filled in order needs no sort.
     */
    private void put(Register r, Result[] piece, boolean inOrder) {
      boolean allOrdered = ordered == size;
      put(r, piece, piece.length, bytesOf(r, piece));
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
    int wholeIndexOf(Register r) {
      int index = indexOf(r);
      return index >= 0 && (pieces == null || !pieces.containsKey(r)) ? index : -1;
    }

    private int indexOf(Register r) {
      for (int i = size - 1; i >= 0; i--) {
        if (registers[i] == r) {
          return i;
        }
      }
      return -1;
    }

    /**
     * Puts {@code r} where {@code old} is: they have the same place in canonical order, and both
     * are whole here, {@code old} at {@code index} ({@link #wholeIndexOf}).
     */
    void replace(int index, Register old, Register r) {
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
            flat =
                Arrays.copyOf(flat, Math.max(flatCount + grow, flat.length + (flat.length >> 1)));
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

    void take(Register r, int n, long b, Result[] piece) {
      int index = indexOf(r);
      if (index < 0 || pieceOf(r).length != n) {
        throw new IllegalStateException(
            "register " + r.key + " of " + r.uid() + " is not in this leaf");
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

    private static long sum(Register r, Result[] piece) {
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
     * all-zero path, so the first partition keeps the group's plain name. Unique among the leaves
     * of one trie because leaves are prefix-free.
     */
    String suffix() {
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
     * The results of this partition in canonical order, as an immutable list that {@code
     * List.copyOf} returns as it is.
     */
    List<Result> results() {
      order();
      return List.of(flat.length == count ? flat : Arrays.copyOf(flat, count));
    }
  }
}
