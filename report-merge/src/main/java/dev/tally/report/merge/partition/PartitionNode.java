package dev.tally.report.merge.partition;

/**
 * A node of a {@link PartitionTrie}, with the totals of everything below it: an {@link Inner} node
 * with two children, or a {@link PartitionLeaf}.
 */
abstract class PartitionNode {
  final int depth;
  int count;
  long bytes;

  PartitionNode(int depth) {
    this.depth = depth;
  }

  /** A node whose results are split between two children by the path bit at its depth. */
  static final class Inner extends PartitionNode {
    PartitionNode zero;
    PartitionNode one;

    Inner(int depth) {
      super(depth);
    }
  }
}
