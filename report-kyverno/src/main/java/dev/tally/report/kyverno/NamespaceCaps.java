package dev.tally.report.kyverno;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.FairShare;

/**
 * The caps on Kyverno's reports the aggregator holds (awaiting adoption, merged and awaiting their
 * delete), per namespace and in all: one refusal rule, naming the cap, which {@link
 * IntermediateReports} applies to both. The caps in all are shared fairly between namespaces.
 */
final class NamespaceCaps {
  private NamespaceCaps() {}

  /**
   * Refuses one more of {@code what} in {@code namespace} when the namespace holds {@code
   * perNamespace} already, or when {@code namespaces} namespaces holding {@code inAll} in all would
   * pass {@code total} and {@code namespace} its fair share of it ({@link FairShare}), naming the
   * cap.
   *
   * @throws CapacityExceededException at either cap
   */
  static void check(
      String namespace,
      int inNamespace,
      int perNamespace,
      String perNamespaceCap,
      int inAll,
      int namespaces,
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
    try {
      FairShare.check(
          "metadata.namespace",
          what,
          totalCap,
          total,
          inAll + 1L,
          namespace,
          inNamespace + 1L,
          namespaces + (inNamespace == 0 ? 1 : 0));
    } catch (CapacityExceededException e) {
      throw new CapacityExceededException(e.field(), e.reason() + consequence, total, totalCap);
    }
  }
}
