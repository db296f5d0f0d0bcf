package dev.tally.report.fabric8.kyverno;

import dev.tally.report.api.CapacityExceededException;

/**
 * The caps on Kyverno's reports the aggregator holds (awaiting adoption, merged and awaiting their
 * delete), per namespace and in all: one refusal rule, naming the cap. Split out of {@link
 * IntermediateReports}.
 */
final class NamespaceCaps {
  private NamespaceCaps() {}

  /**
   * Refuses one more of {@code what} in {@code namespace} when the namespace holds {@code
   * perNamespace} already or all namespaces {@code total}, naming the cap.
   *
   * @throws CapacityExceededException at either cap
   */
  static void check(
      String namespace,
      int inNamespace,
      int perNamespace,
      String perNamespaceCap,
      int inAll,
      int total,
      String totalCap,
      String what,
      String consequence) {
    if (inNamespace >= perNamespace) {
      throw new CapacityExceededException(
          "metadata.namespace",
          "namespace '"
              + namespace
              + "' already holds "
              + inNamespace
              + " "
              + what
              + ", at most "
              + perNamespace
              + " allowed (cap "
              + perNamespaceCap
              + ")"
              + consequence,
          perNamespace,
          perNamespaceCap);
    }
    if (inAll >= total) {
      throw new CapacityExceededException(
          "metadata.namespace",
          inAll
              + " "
              + what
              + " in all, at most "
              + total
              + " allowed (cap "
              + totalCap
              + "; refused for namespace '"
              + namespace
              + "')"
              + consequence,
          total,
          totalCap);
    }
  }
}
