package dev.tally.aggregator.hostile;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A run's sequence of attack steps, the seed's: step {@code i} is a kind drawn from the kinds of
 * the run and a seed of its own. Removing kinds removes their steps and leaves every other step as
 * it was (same index, same seed), which is what shrinking needs.
 */
record Plan(long seed, List<Step> steps) {

  /** One step: its index in the seed's full sequence, its kind and its own seed. */
  record Step(int index, Attack.Kind kind, long seed) {
    @Override
    public String toString() {
      return "#" + index + " " + kind.name();
    }
  }

  static Plan of(long seed, List<Attack.Kind> kinds, int maxSteps) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Step> steps = new ArrayList<>();
    if (!kinds.isEmpty()) {
      for (int i = 0; i < maxSteps; i++) {
        steps.add(new Step(i, kinds.get(random.nextInt(kinds.size())), random.nextLong()));
      }
    }
    return new Plan(seed, List.copyOf(steps));
  }

  /** The same plan without the steps of {@code removed}, and none past step {@code last}. */
  Plan without(Set<String> removed, int last) {
    return new Plan(
        seed,
        steps.stream()
            .filter(s -> !removed.contains(s.kind().name()) && s.index() <= last)
            .toList());
  }
}
