package dev.tally.report.api;

/**
 * How namespaces share a process-wide cap (of {@link InputCaps}, or an input's own), so that a few
 * namespaces cannot use up what every other one may hold (docs/DESIGN.md §9.2, "Fair shares").
 *
 * <p>A namespace's <em>fair share</em> of a cap is the cap divided by the number of namespaces
 * holding something under it, the asking one included. A change is admitted while the process would
 * stay within the cap. Past the cap, a namespace that would go over its fair share is refused (it
 * is refused first: it is the one holding more than the others), and one that stays within its fair
 * share is still admitted, so that a namespace under its share is never refused because of what
 * others hold. Nothing held is ever evicted, so admitting those takes the process past the cap: by
 * at most the cap again, the <em>ceiling</em> ({@code 2 × cap}), which everyone's heap is sized
 * for. Reaching the ceiling needs namespaces arriving one after another after the cap was reached,
 * each filling its whole (shrinking) share: at the ceiling every namespace is refused, naming it.
 *
 * <p>Pure: a function of the counts it is given.
 */
public final class FairShare {
  private FairShare() {}

  /** A namespace's fair share of {@code cap} among {@code namespaces} (at least one). */
  public static long share(long cap, int namespaces) {
    return cap / Math.max(1, namespaces);
  }

  /** What the process may hold under {@code cap} at most: twice the cap. */
  public static long ceiling(long cap) {
    return cap > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * cap;
  }

  /**
   * Whether a namespace may hold {@code inNamespaceAfter} when every namespace together would hold
   * {@code inAllAfter} under {@code cap}, {@code namespaces} (the asking one included) holding
   * something.
   */
  public static boolean admits(long inAllAfter, long cap, long inNamespaceAfter, int namespaces) {
    if (inAllAfter <= cap) {
      return true;
    }
    return inAllAfter <= ceiling(cap) && inNamespaceAfter <= share(cap, namespaces);
  }

  /**
   * Refuses what {@link #admits} does not, naming the cap, the namespace and its share.
   *
   * @param field the field the refusal names
   * @param what what is counted, plural ("results", "bytes of results")
   * @param capName the cap's name, a component of {@link InputCaps} or an input's setting
   * @throws CapacityExceededException when not admitted
   */
  public static void check(
      String field,
      String what,
      String capName,
      long cap,
      long inAllAfter,
      String namespace,
      long inNamespaceAfter,
      int namespaces) {
    if (admits(inAllAfter, cap, inNamespaceAfter, namespaces)) {
      return;
    }
    String reason =
        inAllAfter > ceiling(cap)
            ? "the aggregator would hold "
                + inAllAfter
                + " "
                + what
                + " in all, past the ceiling "
                + ceiling(cap)
                + " (twice cap "
                + capName
                + " = "
                + cap
                + "); refused for namespace '"
                + namespace
                + "'"
            : "namespace '"
                + namespace
                + "' would hold "
                + inNamespaceAfter
                + " "
                + what
                + ", over its fair share "
                + share(cap, namespaces)
                + " (cap "
                + capName
                + " = "
                + cap
                + " shared by "
                + namespaces
                + " namespaces), while the aggregator would hold "
                + inAllAfter
                + " in all";
    throw new CapacityExceededException(field, reason, cap, capName);
  }
}
