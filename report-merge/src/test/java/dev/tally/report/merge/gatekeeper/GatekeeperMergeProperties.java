package dev.tally.report.merge.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.generators.SourceDSL;

/**
 * Gatekeeper's runs through the mapping and a real aggregator: for any sequence of runs over a few
 * resources and constraints, some cut short (no finish line, a last line half written, a line of
 * another run inside), the aggregates hold after each run exactly the violations of the last run
 * that finished, and a run cut short changes nothing.
 */
class GatekeeperMergeProperties {
  private static final long SEED = Long.getLong("tally.seed", 0x6a7e_5eedL);
  private static final int EXAMPLES = Integer.getInteger("tally.examples", 1000);
  private static final long T0 = 1_796_379_330L;
  private static final List<String> CONSTRAINTS = List.of("owner", "team", "no-latest");
  private static final List<String> NAMESPACES = List.of("team-a", "team-b", "");

  /** A generated run: its lines and whether Gatekeeper finished it. */
  record Run(List<ExportLine> lines, boolean endsWithNewline, boolean finished) {}

  @Test
  void theAggregatesHoldExactlyTheLastFinishedRunAndARunCutShortChangesNothing() {
    AtomicLong cutShort = new AtomicLong();
    AtomicLong retracted = new AtomicLong();
    QuickTheory.qt()
        .withFixedSeed(SEED)
        .withExamples(EXAMPLES)
        .forAll(SourceDSL.longs().all())
        .checkAssert(
            seed -> {
              Random random = new Random(seed);
              ReportAggregator aggregator =
                  ReportAggregator.builder()
                      .grouping(
                          random.nextBoolean() ? Grouping.perNamespace() : Grouping.perSubject())
                      .build();
              List<String> expected = List.of();
              int runs = 1 + random.nextInt(6);
              for (int i = 0; i < runs; i++) {
                Run run = run(random, i);
                List<AggregateReport> before = aggregator.aggregates();
                AuditRun read = AuditRun.of(run.lines(), run.endsWithNewline());
                if (read instanceof AuditRun.Finished finished) {
                  assertThat(run.finished()).as("only a finished run reads as finished").isTrue();
                  for (PartialReport p : GatekeeperMapping.statements(finished, before).reports()) {
                    // the adapter adopts: a resource's uid is its identity here
                    aggregator.apply(p.adopted() ? p : p.withSubjectUid(uidOf(p)));
                    if (p.results().isEmpty()) {
                      retracted.incrementAndGet();
                    }
                  }
                  aggregator.flush();
                  expected = violations(finished.violations());
                } else {
                  assertThat(run.finished())
                      .as("a run cut short never reads as finished")
                      .isFalse();
                  cutShort.incrementAndGet();
                }
                assertThat(held(aggregator.aggregates())).isEqualTo(expected);
                if (!(read instanceof AuditRun.Finished)) {
                  assertThat(aggregator.aggregates()).isEqualTo(before);
                }
              }
            });
    assertThat(cutShort.get()).as("the examples cut runs short").isPositive();
    assertThat(retracted.get()).as("the examples retract resources").isPositive();
  }

  /** Up to 8 violations over 4 Pods and a Namespace; one run in four cut short, three ways. */
  private static Run run(Random r, int index) {
    String id = Instant.ofEpochSecond(T0 + 300L * index).toString();
    List<ExportLine> lines = new ArrayList<>();
    lines.add(ExportLine.start(id));
    int n = r.nextInt(9);
    for (int i = 0; i < n; i++) {
      String namespace = NAMESPACES.get(r.nextInt(NAMESPACES.size()));
      String constraint = CONSTRAINTS.get(r.nextInt(CONSTRAINTS.size()));
      lines.add(
          new ExportLine(
              id,
              ExportLine.VIOLATION,
              "violation " + r.nextInt(3),
              "constraints.gatekeeper.sh",
              "v1beta1",
              "K8sRequiredLabels",
              constraint,
              constraint.equals("owner") ? "warn" : "deny",
              List.of(),
              "",
              "v1",
              namespace.isEmpty() ? "Namespace" : "Pod",
              namespace,
              namespace.isEmpty() ? "team-" + r.nextInt(2) : "pod-" + r.nextInt(2)));
    }
    lines.add(ExportLine.finish(id));
    if (r.nextInt(4) != 0) {
      return new Run(lines, true, true);
    }
    switch (r.nextInt(3)) {
      case 0 -> lines.remove(lines.size() - 1); // crashed before its finish
      case 1 -> {
        return new Run(lines.subList(0, lines.size() - 1), false, false); // finish half written
      }
      default -> lines.add(1 + r.nextInt(lines.size() - 1), ExportLine.start("other"));
    }
    return new Run(lines, true, false);
  }

  private static String uidOf(PartialReport p) {
    return "uid-" + p.subject().namespace() + "-" + p.subject().kind() + "-" + p.subject().name();
  }

  /** What a run found, one line per violation (duplicates kept once, as a report holds them). */
  private static List<String> violations(List<ExportLine> violations) {
    TreeSet<String> lines = new TreeSet<>();
    for (ExportLine v : violations) {
      lines.add(
          "uid-"
              + v.resourceNamespace()
              + "-"
              + v.resourceKind()
              + "-"
              + v.resourceName()
              + " K8sRequiredLabels/"
              + v.constraintName()
              + " "
              + v.message()
              + " "
              + (v.enforcementAction().equals("warn") ? "warn" : "fail"));
    }
    return List.copyOf(lines);
  }

  private static List<String> held(List<AggregateReport> aggregates) {
    TreeSet<String> lines = new TreeSet<>();
    for (AggregateReport a : aggregates) {
      for (Result r : a.results()) {
        Timestamp at = r.timestamp().orElseThrow();
        assertThat(at.seconds()).isGreaterThanOrEqualTo(T0);
        lines.add(
            r.resources().get(0).uid() + " " + r.policy() + " " + r.message() + " " + r.status());
      }
    }
    return List.copyOf(lines);
  }
}
