package dev.tally.aggregator.hostile;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One kind of attack of the hostile tenant: a bounded burst of requests (or connections) that
 * returns. A kind is one method of {@link Attacks} registered in {@link Attacks#ALL}; a step of it
 * gets the tenant and its own seeded randomness, so that a run's sequence of steps is the seed's.
 */
@FunctionalInterface
interface Attack {
  void step(Tenant tenant, SplittableRandom random) throws Exception;

  /**
   * A registered kind: its name, what it does, the inputs it applies to, and for which of them it
   * is disabled in {@code verify}, with the one-line reason (the bulkhead it waits for). A disabled
   * kind stays runnable: {@code -Dtally.hostile.include-disabled=true} or naming it in {@code
   * -Dtally.hostile.kinds} runs it.
   */
  record Kind(
      String name, String what, Set<Dialect> inputs, Map<Dialect, String> disabled, Attack attack) {

    Optional<String> disabledIn(Dialect input) {
      return Optional.ofNullable(disabled.get(input));
    }

    boolean appliesTo(Dialect input) {
      return inputs.contains(input);
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
