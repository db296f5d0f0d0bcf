package dev.tally.report.merge.partition;

import dev.tally.report.api.Result;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

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
 *
 * <p>This class routes results down their paths and splits and collapses nodes under the limits;
 * what one partition holds, and how it keeps its registers in canonical order, is {@link
 * PartitionLeaf}'s. What the trie holds is the aggregator's registers, seen as {@link Member}s.
 */
public final class PartitionTrie {
  /**
   * What a trie holds: the results of one register, which go together to the leaf of the register's
   * path unless the register alone is too big.
   */
  public interface Member {
    /** The register's path: a digest of (uid, source, policy). */
    long pathHash();

    /** The results that go into partitions, in canonical order. */
    Result[] effective();

    /** The encoded bytes of {@link #effective}, each with a comma. */
    int effectiveBytes();

    /** The sum of the digests of {@link #effective}. */
    long effectiveHash();
  }

  /** Below this depth a path bit comes from the register digest, from here on from the result's. */
  static final int REGISTER_BITS = 64;

  /** The longest path: a register's 64 bits, then a result's. */
  public static final int MAX_DEPTH = 128;

  static final Result[] NO_RESULTS = new Result[0];

  private final int maxResults;
  private final long maxBytes;

  /** The canonical order of members in a partition: registers by subject, source and policy. */
  private final Comparator<Member> order;

  private PartitionNode root;

  /**
   * Whether some leaf has outgrown the limits since the trie was last read: it is split only when
   * the partitions are read ({@link #settle}), straight into leaves that fit, so that a bulk load
   * places each result once instead of once per level it is split down.
   */
  private boolean unsettled;

  /**
   * An empty trie whose partitions hold at most {@code maxResults} results and {@code maxBytes} of
   * them (each result's JSON and a comma), and keep their members in {@code order}; two members
   * whose results share a place in that order have the same path and replace each other.
   */
  public PartitionTrie(int maxResults, long maxBytes, Comparator<Member> order) {
    this.maxResults = maxResults;
    this.maxBytes = maxBytes;
    this.order = order;
    this.root = new PartitionLeaf(0, 0L, 0L, order);
  }

  /** The most bytes of results (each result's JSON and a comma) one partition holds. */
  public long maxBytes() {
    return maxBytes;
  }

  /** A trie of the same registers whose partitions hold at most {@code bytes} of results. */
  public PartitionTrie withMaxBytes(long bytes) {
    PartitionTrie out = new PartitionTrie(maxResults, bytes, order);
    // a register split over several leaves is added once, with all of its results
    Set<Member> added = Collections.newSetFromMap(new IdentityHashMap<>());
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
  public void add(Member r) {
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
  public void replace(Member old, Member r) {
    if (old.effective().length == 0 || r.effective().length == 0 || !samePlace(old, r)) {
      remove(old);
      add(r);
      return;
    }
    PartitionNode n = root;
    while (n instanceof PartitionNode.Inner in) {
      if (in.depth >= REGISTER_BITS) {
        remove(old); // below here results go by their own digests: old may be split
        add(r);
        return;
      }
      n = bit(old.pathHash(), in.depth) == 0 ? in.zero : in.one;
    }
    PartitionLeaf leaf = (PartitionLeaf) n;
    // an overfull leaf waits to be split until it is read, and may hold everything added since:
    // rather than search it, remove and add, which splits it first (see delete)
    int index = leaf.counted ? leaf.wholeIndexOf(old) : -1;
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

  private boolean samePlace(Member old, Member r) {
    return old.pathHash() == r.pathHash() && order.compare(old, r) == 0;
  }

  private PartitionNode replace(
      PartitionNode n, Member old, Member r, int index, int count, long bytes) {
    if (n instanceof PartitionNode.Inner in) {
      in.count += count;
      in.bytes += bytes;
      if (bit(r.pathHash(), in.depth) == 0) {
        in.zero = replace(in.zero, old, r, index, count, bytes);
      } else {
        in.one = replace(in.one, old, r, index, count, bytes);
      }
      return fits(in.count, in.bytes) ? collapse(in) : in;
    }
    PartitionLeaf leaf = (PartitionLeaf) n;
    leaf.replace(index, old, r);
    if (leaf.counted && !fits(leaf.count, leaf.bytes) && leaf.depth < MAX_DEPTH) {
      leaf.counted = false;
      unsettled = true;
    }
    return leaf;
  }

  /** Removes a register's effective results, as they were added. */
  public void remove(Member r) {
    if (r.effective().length > 0) {
      root = delete(root, r, r.effective());
    }
  }

  public boolean isEmpty() {
    return root.count == 0;
  }

  public int resultCount() {
    return root.count;
  }

  /** The non-empty leaves, in path order. */
  public void forEachLeaf(Consumer<PartitionLeaf> action) {
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

  private PartitionNode settle(PartitionNode n) {
    if (n instanceof PartitionNode.Inner in) {
      in.zero = settle(in.zero);
      in.one = settle(in.one);
      return in;
    }
    PartitionLeaf leaf = (PartitionLeaf) n;
    if (leaf.counted) {
      return leaf;
    }
    return fits(leaf.count, leaf.bytes) || leaf.depth >= MAX_DEPTH ? leaf.recount() : split(leaf);
  }

  public List<PartitionLeaf> leaves() {
    List<PartitionLeaf> out = new ArrayList<>();
    forEachLeaf(out::add);
    return out;
  }

  private static void walk(PartitionNode n, Consumer<PartitionLeaf> action) {
    if (n instanceof PartitionNode.Inner in) {
      walk(in.zero, action);
      walk(in.one, action);
    } else if (n.count > 0) {
      action.accept((PartitionLeaf) n);
    }
  }

  private boolean fits(int count, long bytes) {
    return count <= maxResults && bytes <= maxBytes;
  }

  private PartitionNode insert(PartitionNode n, Member r, Result[] piece) {
    int count = piece.length;
    long bytes = bytesOf(r, piece);
    if (n instanceof PartitionNode.Inner in) {
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
    PartitionLeaf leaf = (PartitionLeaf) n;
    leaf.put(r, piece, count, bytes);
    if (leaf.counted && !fits(leaf.count, leaf.bytes) && leaf.depth < MAX_DEPTH) {
      // split when read: until then what it holds is only appended, its statuses not counted
      leaf.counted = false;
      unsettled = true;
    }
    return leaf;
  }

  private PartitionNode delete(PartitionNode n, Member r, Result[] piece) {
    int count = piece.length;
    long bytes = bytesOf(r, piece);
    if (n instanceof PartitionNode.Inner in) {
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
    PartitionLeaf leaf = (PartitionLeaf) n;
    if (!leaf.counted) {
      // overfull, waiting to be split when read: it may hold everything added since the last read
      // (a whole load), and finding r in it is a search of all of it. Split it now, into leaves
      // that fit, so that no search walks more than one partition holds.
      PartitionNode settled = settle(leaf);
      if (settled != leaf) {
        return delete(settled, r, piece);
      }
    }
    leaf.take(r, count, bytes, piece);
    return leaf;
  }

  /**
   * Replaces an overfull leaf by an inner node whose children are split until they fit. Only the
   * leaves that fit count their results' statuses, so each result is read once however deep it
   * goes.
   */
  private PartitionNode split(PartitionLeaf leaf) {
    int depth = leaf.depth;
    PartitionNode.Inner in = new PartitionNode.Inner(depth);
    in.count = leaf.count;
    in.bytes = leaf.bytes;
    PartitionLeaf zero = new PartitionLeaf(depth + 1, leaf.hi, leaf.lo, order, false);
    PartitionLeaf one =
        new PartitionLeaf(
            depth + 1, withBit(leaf.hi, depth), withBit(leaf.lo, depth - 64), order, false);
    // in the leaf's order, so that what was in canonical order stays in order in both halves
    for (int i = 0; i < leaf.size; i++) {
      Member r = leaf.registers[i];
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
  private PartitionLeaf collapse(PartitionNode.Inner in) {
    PartitionLeaf leaf = new PartitionLeaf(in.depth, 0L, 0L, order);
    PartitionLeaf first = firstLeaf(in);
    leaf.hi = first.hi & prefixMask(in.depth);
    leaf.lo = in.depth > 64 ? first.lo & prefixMask(in.depth - 64) : 0L;
    // by identity, in the order met; the leaf orders its registers when it is read
    Map<Member, List<Result[]>> pieces = new LinkedHashMap<>();
    walk(
        in,
        l -> l.forEachPiece((r, p) -> pieces.computeIfAbsent(r, k -> new ArrayList<>()).add(p)));
    for (var e : pieces.entrySet()) {
      Member r = e.getKey();
      Result[] piece = join(r, e.getValue());
      leaf.put(r, piece, piece.length, bytesOf(r, piece));
    }
    return leaf;
  }

  private static PartitionLeaf firstLeaf(PartitionNode n) {
    while (n instanceof PartitionNode.Inner in) {
      n = in.zero.count > 0 ? in.zero : in.one;
    }
    return (PartitionLeaf) n;
  }

  /**
   * The pieces of {@code r} in one array, in canonical order: each piece is a part of {@link
   * Member#effective}, which is in that order, so their union is the subsequence of it they hold.
   */
  private static Result[] join(Member r, List<Result[]> pieces) {
    if (pieces.size() == 1) {
      return pieces.get(0);
    }
    Set<Result> held = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Result[] p : pieces) {
      Collections.addAll(held, p);
    }
    Result[] all = r.effective();
    if (held.size() == all.length) {
      return all;
    }
    Result[] out = new Result[held.size()];
    int i = 0;
    for (Result x : all) {
      if (held.contains(x)) {
        out[i++] = x;
      }
    }
    return out;
  }

  static long bytesOf(Member r, Result[] piece) {
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
  static Result[] half(Member r, Result[] piece, int depth, int side) {
    if (depth < REGISTER_BITS) {
      return bit(r.pathHash(), depth) == side ? piece : NO_RESULTS;
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
}
