package dev.tally.report.api;

import java.util.Optional;
import java.util.Set;

/**
 * Which policies and rules are live. Results of others are left out of every aggregate and come
 * back when their policy does: a filter on output, not a deletion, so it commutes with every other
 * event.
 *
 * <p>A liveness may govern only some sources ({@link #onlyAmong}): a policy of a source it does not
 * govern is always live, so that watching one policy engine's policies never hides the results of
 * another scanner.
 *
 * @param livePolicies the live (source, policy) pairs; empty means every policy is live
 * @param retiredRules rules retired while their policy stays live
 * @param governedSources the sources {@code livePolicies} decides for; empty means every source.
 *     Every key of {@code livePolicies} is of one of them.
 */
public record Liveness(
    Optional<Set<CoverageKey>> livePolicies,
    Set<RuleRef> retiredRules,
    Optional<Set<String>> governedSources) {
  public Liveness {
    livePolicies =
        Checks.nonNull("livePolicies", livePolicies).map(s -> Checks.setOf("livePolicies", s));
    retiredRules = Checks.setOf("retiredRules", retiredRules);
    governedSources = Checks.nonNull("governedSources", governedSources).map(Liveness::sources);
    if (governedSources.isPresent() && livePolicies.isPresent()) {
      for (CoverageKey key : livePolicies.get()) {
        if (!governedSources.get().contains(key.source())) {
          throw new InvalidReportException(
              "livePolicies",
              "holds "
                  + key
                  + " whose source '"
                  + key.source()
                  + "' is not among governedSources "
                  + new java.util.TreeSet<>(governedSources.get()));
        }
      }
    }
  }

  /** A liveness that governs every source: the record as it was before scoped liveness. */
  public Liveness(Optional<Set<CoverageKey>> livePolicies, Set<RuleRef> retiredRules) {
    this(livePolicies, retiredRules, Optional.empty());
  }

  /** Everything is live. */
  public static Liveness all() {
    return new Liveness(Optional.empty(), Set.of());
  }

  /** Only these policies are live, of every source. */
  public static Liveness only(Set<CoverageKey> live) {
    return new Liveness(Optional.of(Checks.nonNull("livePolicies", live)), Set.of());
  }

  /**
   * Of the policies of {@code sources}, only those in {@code live} are live; a policy of any other
   * source is always live.
   *
   * @throws InvalidReportException if an argument or element is null, a source is not a valid
   *     source, or a key of {@code live} is of a source not in {@code sources}
   */
  public static Liveness onlyAmong(Set<String> sources, Set<CoverageKey> live) {
    return new Liveness(
        Optional.of(Checks.nonNull("livePolicies", live)),
        Set.of(),
        Optional.of(Checks.nonNull("governedSources", sources)));
  }

  /** The same liveness with one more rule retired. */
  public Liveness withRetiredRule(CoverageKey policy, String rule) {
    var rules = new java.util.HashSet<>(retiredRules);
    rules.add(new RuleRef(policy, rule));
    return new Liveness(livePolicies, rules, governedSources);
  }

  /** Whether this liveness decides for the policies of {@code source}. */
  public boolean governs(String source) {
    Checks.nonNull("source", source);
    return governedSources.map(s -> s.contains(source)).orElse(true);
  }

  public boolean isLive(CoverageKey policy) {
    Checks.nonNull("policy", policy);
    return livePolicies.isEmpty()
        || !governs(policy.source())
        || livePolicies.get().contains(policy);
  }

  public boolean isLive(CoverageKey policy, String rule) {
    Checks.nonNull("rule", rule);
    return isLive(policy)
        && (retiredRules.isEmpty() || !retiredRules.contains(new RuleRef(policy, rule)));
  }

  private static Set<String> sources(Set<String> sources) {
    Set<String> checked = Checks.setOf("governedSources", sources);
    for (String s : checked) {
      Checks.optional("governedSources", s, Checks.MAX_IDENTIFIER);
    }
    return checked;
  }

  /** One rule of one policy. */
  public record RuleRef(CoverageKey policy, String rule) {
    public RuleRef {
      Checks.nonNull("policy", policy);
      Checks.text("rule", rule);
    }
  }
}
