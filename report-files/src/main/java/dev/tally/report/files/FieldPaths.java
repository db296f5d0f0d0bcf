package dev.tally.report.files;

/**
 * The paths that name a field in an error ({@code results[2].timestamp.nanos}): how they are joined
 * and cut, one rule for the reader, the composer's errors and the tree walk.
 */
final class FieldPaths {
  private FieldPaths() {}

  /** {@code path} under {@code prefix}; either may be empty. */
  static String join(String prefix, String path) {
    return prefix.isEmpty() ? path : path.isEmpty() ? prefix : prefix + "." + path;
  }

  /** The path one level up: {@code results[2].timestamp} for {@code results[2].timestamp.nanos}. */
  static String parent(String path) {
    int cut = path.endsWith("]") ? path.lastIndexOf('[') : path.lastIndexOf('.');
    return cut < 0 ? "" : path.substring(0, cut);
  }
}
