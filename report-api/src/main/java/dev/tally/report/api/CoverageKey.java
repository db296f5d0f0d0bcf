package dev.tally.report.api;

/**
 * "This policy of this source was evaluated": the unit of coverage, and of last-writer-wins in the
 * merge. Ordered by (source, policy).
 *
 * @param source the policy engine or scanner, empty when the results name none
 * @param policy the policy name
 */
public record CoverageKey(String source, String policy) implements Comparable<CoverageKey> {
  public CoverageKey {
    Checks.optional("source", Checks.nonNull("source", source), Checks.MAX_IDENTIFIER);
    Checks.required("policy", Checks.nonNull("policy", policy), Checks.MAX_IDENTIFIER);
  }

  public static CoverageKey of(String source, String policy) {
    return new CoverageKey(source, policy);
  }

  @Override
  public int compareTo(CoverageKey o) {
    int c = source.compareTo(o.source);
    return c != 0 ? c : policy.compareTo(o.policy);
  }

  @Override
  public String toString() {
    return source.isEmpty() ? policy : source + "/" + policy;
  }
}
