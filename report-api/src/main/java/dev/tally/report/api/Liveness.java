package dev.tally.report.api;

import java.util.Optional;
import java.util.Set;

/**
 * Which policies and rules are live. Results of others are left out of every aggregate and come
 * back when their policy does: a filter on output, not a deletion, so it commutes with every other
 * event.
 *
 * @param livePolicies the live (source, policy) pairs; empty means every policy is live
 * @param retiredRules rules retired while their policy stays live
 */
public record Liveness(Optional<Set<CoverageKey>> livePolicies, Set<RuleRef> retiredRules) {
  public Liveness {
    livePolicies =
        Checks.nonNull("livePolicies", livePolicies).map(s -> Checks.setOf("livePolicies", s));
    retiredRules = Checks.setOf("retiredRules", retiredRules);
  }

  /** Everything is live. */
  public static Liveness all() {
    return new Liveness(Optional.empty(), Set.of());
  }

  /** Only these policies are live. */
  public static Liveness only(Set<CoverageKey> live) {
    return new Liveness(Optional.of(Checks.nonNull("livePolicies", live)), Set.of());
  }

  /** The same liveness with one more rule retired. */
  public Liveness withRetiredRule(CoverageKey policy, String rule) {
    var rules = new java.util.HashSet<>(retiredRules);
    rules.add(new RuleRef(policy, rule));
    return new Liveness(livePolicies, rules);
  }

  public boolean isLive(CoverageKey policy) {
    Checks.nonNull("policy", policy);
    return livePolicies.map(s -> s.contains(policy)).orElse(true);
  }

  public boolean isLive(CoverageKey policy, String rule) {
    Checks.nonNull("rule", rule);
    return isLive(policy)
        && (retiredRules.isEmpty() || !retiredRules.contains(new RuleRef(policy, rule)));
  }

  /** One rule of one policy. */
  public record RuleRef(CoverageKey policy, String rule) {
    public RuleRef {
      Checks.nonNull("policy", policy);
      Checks.text("rule", rule);
    }
  }
}
