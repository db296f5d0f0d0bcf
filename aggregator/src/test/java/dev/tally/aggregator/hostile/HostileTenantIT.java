package dev.tally.aggregator.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.RealKubernetes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The hostile tenant that keeps attacking (docs/DESIGN.md §9.10, "The hostile tenant"): on the real
 * control plane, a tenant (a ServiceAccount with a namespace admin's rights under Kyverno's and
 * trivy-operator's default roles) runs a seeded, randomized mix of every kind of {@link Attacks}
 * while a victim namespace's Pods are created, changed, deleted and evaluated through each input;
 * the victim's reports must equal the model within the staleness bound after each change, {@code
 * /healthz} must answer, the process must stay under its memory limit and never exit.
 *
 * <p>In {@code verify}: 2 minutes in all, shared by the inputs, seed {@value #DEFAULT_SEED}. {@code
 * aggregator/run-hostile-tenant.sh} runs it for 30 minutes. Settings (system properties): {@code
 * tally.hostile.seed}, {@code .duration} (in all), {@code .inputs} ({@code tally,kyverno,trivy}),
 * {@code .kinds} (only these, disabled ones included), {@code .include-disabled}, {@code .pace}
 * (between two attack steps), {@code .staleness-bound}, {@code .heap}, {@code .rss-limit-mib},
 * {@code .max-requests}, {@code .max-steps}, {@code .shrink-runs}, {@code .figures} (a Markdown
 * file the figures are appended to).
 */
@ExtendWith(RealKubernetes.class)
class HostileTenantIT {
  static final long DEFAULT_SEED = 32;

  @Test
  void hostileTenant(RealKubernetes.Cluster cluster) throws Exception {
    long seed = Long.getLong("tally.hostile.seed", DEFAULT_SEED);
    List<Dialect> inputs =
        Arrays.stream(System.getProperty("tally.hostile.inputs", "tally,kyverno,trivy").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .map(Dialect::named)
            .toList();
    Duration total = duration("tally.hostile.duration", "2m");
    Duration each = total.dividedBy(inputs.size());
    Set<String> only = new LinkedHashSet<>();
    for (String k : System.getProperty("tally.hostile.kinds", "").split(",")) {
      if (!k.isBlank()) {
        only.add(k.trim());
      }
    }
    Set<String> known = new TreeSet<>();
    Attacks.ALL.forEach(k -> known.add(k.name()));
    assertThat(known).as("tally.hostile.kinds names registered kinds").containsAll(only);
    boolean includeDisabled = Boolean.getBoolean("tally.hostile.include-disabled");
    int maxSteps = Integer.getInteger("tally.hostile.max-steps", 100_000);
    Path figuresFile =
        Path.of(System.getProperty("tally.hostile.figures", "target/hostile-tenant/figures.md"));

    List<String> failures = new ArrayList<>();
    for (Dialect input : inputs) {
      List<Attack.Kind> kinds = new ArrayList<>();
      StringBuilder banner = new StringBuilder();
      String line = "=".repeat(78);
      banner
          .append(line)
          .append("\nHOSTILE TENANT: input ")
          .append(input.flag)
          .append(", seed ")
          .append(seed)
          .append(" (-Dtally.hostile.seed=")
          .append(seed)
          .append("), ")
          .append(each.toSeconds())
          .append(" s\n");
      for (Attack.Kind kind : Attacks.ALL) {
        if (!kind.appliesTo(input)) {
          continue;
        }
        boolean chosen = only.isEmpty() || only.contains(kind.name());
        var disabled = kind.disabledIn(input);
        if (!chosen) {
          banner.append("  not chosen:  ").append(kind.name()).append('\n');
        } else if (disabled.isPresent() && only.isEmpty() && !includeDisabled) {
          banner
              .append("  DISABLED:    ")
              .append(kind.name())
              .append(" -- ")
              .append(disabled.get())
              .append('\n');
        } else {
          kinds.add(kind);
          banner
              .append("  enabled:     ")
              .append(kind.name())
              .append(disabled.isPresent() ? " (disabled in verify, run on request)" : "")
              .append('\n');
        }
      }
      banner.append(line);
      System.out.println(banner);

      HostileRun.Settings settings = settings(seed, input, each);
      Plan plan = Plan.of(seed, kinds, maxSteps);
      HostileRun.Outcome outcome = HostileRun.run(cluster, settings, plan);
      report(outcome, figuresFile);
      if (outcome.failed()) {
        failures.add(shrink(cluster, outcome));
      }
    }
    assertThat(failures).as(String.join("\n\n", failures)).isEmpty();
  }

  private static HostileRun.Settings settings(long seed, Dialect input, Duration duration) {
    return new HostileRun.Settings(
        seed,
        input,
        duration,
        duration("tally.hostile.pace", "100ms"),
        duration("tally.hostile.staleness-bound", "60s"),
        Long.getLong("tally.hostile.rss-limit-mib", 1024) * 1024,
        System.getProperty("tally.hostile.heap", "768m"),
        Long.getLong("tally.hostile.max-requests", 200_000));
  }

  private static void report(HostileRun.Outcome outcome, Path figuresFile) throws IOException {
    String text = outcome.figures().text();
    System.out.println("HOSTILE TENANT FIGURES\n" + text);
    Files.createDirectories(figuresFile.toAbsolutePath().getParent());
    if (!Files.exists(figuresFile)) {
      Files.writeString(figuresFile, Figures.markdownHeader() + "\n");
    }
    Files.writeString(
        figuresFile,
        outcome.figures().markdownRow()
            + (outcome.failed() ? " FAILED: " + firstLine(outcome.failure()) : "")
            + "\n",
        StandardOpenOption.APPEND);
  }

  /**
   * Shrinks a failure: re-runs the failing plan without some of the kinds it had tried, halves
   * first, then quarters, down to one kind at a time, and keeps a removal when the run still fails;
   * then cuts the sequence of what is left to its first half while the run still fails (at most
   * {@code tally.hostile.shrink-runs} runs in all, each no longer than the failing one plus a
   * minute and up to the step it failed at): the smallest failing set of kinds found, and the
   * shortest sequence of their steps.
   */
  private static String shrink(RealKubernetes.Cluster cluster, HostileRun.Outcome failed)
      throws Exception {
    HostileRun.Settings s = failed.settings();
    int maxRuns = Integer.getInteger("tally.hostile.shrink-runs", 4);
    int last = failed.failedAtStep();
    List<String> needed = new ArrayList<>();
    for (Plan.Step step : failed.executed()) {
      if (step.index() <= last && !needed.contains(step.kind().name())) {
        needed.add(step.kind().name());
      }
    }
    Set<String> removed = new TreeSet<>();
    Duration bound =
        Duration.ofMillis(
            Math.min(s.duration().toMillis(), failed.figures().elapsedMillis() + 60_000));
    HostileRun.Settings shorter =
        new HostileRun.Settings(
            s.seed(),
            s.input(),
            bound,
            s.pace(),
            s.stalenessBound(),
            s.rssLimitKiB(),
            s.heap(),
            s.maxRequests());
    String lastFailure = failed.failure();
    int runs = 0;
    int chunk = Math.max(1, needed.size() / 2);
    while (runs < maxRuns && !needed.isEmpty()) {
      boolean shrunkThisRound = false;
      for (int from = 0; from < needed.size() && runs < maxRuns; from += chunk) {
        List<String> drop = needed.subList(from, Math.min(needed.size(), from + chunk));
        Set<String> without = new TreeSet<>(removed);
        without.addAll(drop);
        System.out.println("hostile-tenant: shrinking, a run without " + without);
        HostileRun.Outcome again =
            HostileRun.run(cluster, shorter, failed.plan().without(without, last));
        runs++;
        if (again.failed()) {
          removed = without;
          lastFailure = again.failure();
          if (again.failedAtStep() >= 0) {
            last = Math.min(last, again.failedAtStep());
          }
          needed = new ArrayList<>(needed);
          needed.removeAll(drop);
          shrunkThisRound = true;
          break;
        }
      }
      if (!shrunkThisRound) {
        if (chunk == 1) {
          break;
        }
        chunk = Math.max(1, chunk / 2);
      } else {
        chunk = Math.max(1, Math.min(chunk, needed.size() / 2));
      }
    }
    // then the sequence: the first half of the steps up to the failure, while it still fails
    while (runs < maxRuns && last > 0) {
      int half = last / 2;
      System.out.println("hostile-tenant: shrinking, a run up to step #" + half);
      HostileRun.Outcome again =
          HostileRun.run(cluster, shorter, failed.plan().without(removed, half));
      runs++;
      if (!again.failed()) {
        break;
      }
      lastFailure = again.failure();
      last = again.failedAtStep() >= 0 ? Math.min(half, again.failedAtStep()) : half;
    }
    List<String> kinds = needed;
    Plan shrunk = failed.plan().without(removed, last);
    StringBuilder b = new StringBuilder();
    b.append("HOSTILE TENANT FAILED: input ")
        .append(s.input().flag)
        .append(", seed ")
        .append(s.seed())
        .append("\n  failure: ")
        .append(failed.failure())
        .append("\n  at attack step #")
        .append(failed.failedAtStep())
        .append("; shrunk in ")
        .append(runs)
        .append(" runs to the kinds ")
        .append(kinds)
        .append(" (removed: ")
        .append(removed)
        .append(", still failing: ")
        .append(firstLine(lastFailure))
        .append(")\n  shortest sequence found (")
        .append(shrunk.steps().size())
        .append(" steps): ");
    List<Plan.Step> steps = shrunk.steps();
    b.append(steps.subList(0, Math.min(60, steps.size())));
    if (steps.size() > 60) {
      b.append(" … ").append(steps.size() - 60).append(" more");
    }
    b.append("\n  reproduce: -Dtally.hostile.seed=")
        .append(s.seed())
        .append(" -Dtally.hostile.inputs=")
        .append(s.input().flag)
        .append(" -Dtally.hostile.kinds=")
        .append(String.join(",", kinds))
        .append(" -Dtally.hostile.max-steps=")
        .append(last + 1);
    System.out.println(b);
    return b.toString();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** A duration such as {@code 2m}, {@code 30s}, {@code 100ms} or ISO-8601 {@code PT2M}. */
  static Duration duration(String property, String fallback) {
    String v = System.getProperty(property, fallback).trim().toLowerCase(Locale.ROOT);
    if (v.startsWith("pt")) {
      return Duration.parse(v.toUpperCase(Locale.ROOT));
    }
    if (v.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
    }
    long n = Long.parseLong(v.substring(0, v.length() - 1));
    return switch (v.charAt(v.length() - 1)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      default -> throw new IllegalArgumentException(property + ": not a duration: " + v);
    };
  }
}
