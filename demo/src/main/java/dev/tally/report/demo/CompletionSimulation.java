package dev.tally.report.demo;

import dev.tally.report.audit.StableHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A seeded Monte Carlo comparison of how often an audit run completes under static sharding
 * (Gatekeeper-style: the run is valid only if every shard survives) and under Tally's reassignment.
 *
 * <p>The model, in units of the nominal run time: the work is split evenly, each member needs 1.0
 * to do its share. Each member independently fails during the run with probability {@code p}, at a
 * time uniform in [0, 1). Static sharding completes only if no member fails. With reassignment, the
 * work a member had left becomes visible {@code leaseDuration} after it failed (its Lease expires)
 * and is divided evenly among the members alive then, which may fail in turn; the run completes if
 * all work is done by {@code deadline} (the audit interval) and fails if no member is left.
 *
 * <p>Pure and deterministic: the same seed gives the same table ({@link AuditCompletionTable}
 * prints the one in the documentation). Each trial draws the failures once and judges both
 * strategies on them, so the comparison is paired.
 */
final class CompletionSimulation {
  private static final double EPSILON = 1e-9;

  private final long seed;
  private final int trials;
  private final double leaseDuration;
  private final double deadline;

  /**
   * @param seed the random seed
   * @param trials simulated runs per cell, at least 1
   * @param leaseDuration how long a dead member's work stays invisible, as a fraction of the run
   * @param deadline the interval by which a run must complete, in nominal run times (at least 1)
   */
  CompletionSimulation(long seed, int trials, double leaseDuration, double deadline) {
    if (trials < 1) {
      throw new IllegalArgumentException("trials must be at least 1");
    }
    if (!(leaseDuration >= 0) || !(deadline >= 1)) {
      throw new IllegalArgumentException("need leaseDuration >= 0 and deadline >= 1");
    }
    this.seed = seed;
    this.trials = trials;
    this.leaseDuration = leaseDuration;
    this.deadline = deadline;
  }

  /** The table used in the documentation: 20,000 runs per cell, lease 0.1, deadline 2.0. */
  static CompletionSimulation defaults(long seed) {
    return new CompletionSimulation(seed, 20_000, 0.1, 2.0);
  }

  /** One row per (members, failure rate), members varying slowest. */
  List<CompletionRow> table(List<Integer> memberCounts, List<Double> failureRates) {
    List<CompletionRow> rows = new ArrayList<>();
    for (int n : memberCounts) {
      for (double p : failureRates) {
        rows.add(cell(n, p));
      }
    }
    return List.copyOf(rows);
  }

  /** One cell, with its own random stream derived from the seed and the cell. */
  CompletionRow cell(int members, double failureRate) {
    if (members < 1 || !(failureRate >= 0 && failureRate <= 1)) {
      throw new IllegalArgumentException("need members >= 1 and failureRate in [0, 1]");
    }
    var random =
        new SplittableRandom(
            StableHash.of(
                Long.toString(seed), Integer.toString(members), Double.toString(failureRate)));
    int staticDone = 0;
    int tallyDone = 0;
    double[] failAt = new double[members];
    for (int t = 0; t < trials; t++) {
      boolean anyFailed = false;
      for (int i = 0; i < members; i++) {
        if (random.nextDouble() < failureRate) {
          failAt[i] = random.nextDouble();
          anyFailed = true;
        } else {
          failAt[i] = Double.POSITIVE_INFINITY;
        }
      }
      if (!anyFailed) {
        staticDone++;
      }
      if (reassignmentCompletes(failAt)) {
        tallyDone++;
      }
    }
    return new CompletionRow(
        members,
        failureRate,
        Math.pow(1 - failureRate, members),
        (double) staticDone / trials,
        (double) tallyDone / trials,
        trials);
  }

  /** Event-driven run of one trial with reassignment. */
  boolean reassignmentCompletes(double[] failAtIn) {
    int n = failAtIn.length;
    double[] failAt = failAtIn.clone();
    double[] remaining = new double[n];
    boolean[] alive = new boolean[n];
    Arrays.fill(remaining, 1.0);
    Arrays.fill(alive, true);
    List<double[]> orphans = new ArrayList<>(); // {releaseAt, amount}
    double now = 0;
    while (true) {
      boolean workLeft = !orphans.isEmpty();
      for (int i = 0; i < n && !workLeft; i++) {
        workLeft = alive[i] && remaining[i] > 0;
      }
      if (!workLeft) {
        return now <= deadline;
      }
      if (now > deadline) {
        return false;
      }
      double next = Double.POSITIVE_INFINITY;
      for (int i = 0; i < n; i++) {
        if (alive[i]) {
          next = Math.min(next, failAt[i]);
          if (remaining[i] > 0) {
            next = Math.min(next, now + remaining[i]);
          }
        }
      }
      for (double[] o : orphans) {
        next = Math.min(next, o[0]);
      }
      double dt = next - now;
      for (int i = 0; i < n; i++) {
        if (alive[i]) {
          // snap to zero below the rounding error of "now", or "now + remaining" would not move
          double left = remaining[i] - dt;
          remaining[i] = left <= EPSILON ? 0 : left;
        }
      }
      now = next;
      for (int i = 0; i < n; i++) {
        if (alive[i] && failAt[i] <= now) {
          alive[i] = false;
          if (remaining[i] > 0) {
            orphans.add(new double[] {now + leaseDuration, remaining[i]});
          }
          remaining[i] = 0;
        }
      }
      final double at = now;
      var released = orphans.stream().filter(o -> o[0] <= at).toList();
      if (!released.isEmpty()) {
        orphans.removeAll(released);
        int living = 0;
        for (boolean a : alive) {
          living += a ? 1 : 0;
        }
        if (living == 0) {
          return false;
        }
        double amount = released.stream().mapToDouble(o -> o[1]).sum();
        for (int i = 0; i < n; i++) {
          if (alive[i]) {
            remaining[i] += amount / living;
          }
        }
      }
    }
  }

  /** The table as Markdown, percentages with two decimals. */
  static String markdown(List<CompletionRow> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append("| members | member failure rate | static, exact | static, simulated |")
        .append(" Tally reassignment, simulated |\n");
    sb.append("|---:|---:|---:|---:|---:|\n");
    for (CompletionRow r : rows) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %.1f%% | %.2f%% | %.2f%% | %.2f%% |%n",
              r.members(),
              r.failureRate() * 100,
              r.staticExact() * 100,
              r.staticSimulated() * 100,
              r.tallySimulated() * 100));
    }
    return sb.toString();
  }
}
