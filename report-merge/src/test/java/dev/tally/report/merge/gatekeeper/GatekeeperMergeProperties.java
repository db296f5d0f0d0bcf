package dev.tally.report.merge.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.generators.SourceDSL;

/**
 * Gatekeeper's runs through the mapping and a real aggregator, against a model of what the reports
 * should hold. Over random sequences of runs (some cut short three ways, some started in the same
 * second as the last and appended to its file, each confirming a random part of the constraints)
 * about resources that are deleted, recreated under their name and exported in two versions, under
 * two groupings: after each finished run, for every resource that exists, a confirmed constraint
 * holds exactly the run's violations and one not confirmed holds the run's if it named the resource
 * and what it held before otherwise; nothing is held under a uid that is no longer a resource's. A
 * run cut short changes nothing.
 */
class GatekeeperMergeProperties {
  private static final long SEED = Long.getLong("tally.seed", 0x6a7e_5eedL);
  private static final int EXAMPLES = Integer.getInteger("tally.examples", 1000);
  private static final long T0 = 1_796_379_330L;
  private static final List<String> CONSTRAINTS = List.of("owner", "team", "no-latest");

  /** A resource: [group, kind, namespace, name]. */
  private static final List<String[]> RESOURCES =
      List.of(
          new String[] {"", "Pod", "team-a", "pod-0"},
          new String[] {"", "Pod", "team-a", "pod-1"},
          new String[] {"", "Pod", "team-b", "pod-0"},
          new String[] {"", "Namespace", "", "team-a"},
          new String[] {"autoscaling", "HorizontalPodAutoscaler", "team-b", "web"});

  @Test
  void theReportsHoldWhatTheFinishedRunsFoundAndARunCutShortChangesNothing() {
    AtomicLong cutShort = new AtomicLong();
    AtomicLong sameSecond = new AtomicLong();
    AtomicLong oldUids = new AtomicLong();
    AtomicLong kept = new AtomicLong();
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
              // the world: each resource's uid, absent when it does not exist
              Map<Integer, String> uids = new HashMap<>();
              for (int i = 0; i < RESOURCES.size(); i++) {
                uids.put(i, "uid-" + i + "-0");
              }
              int recreations = 0;
              // the model: (uid, policy) -> the messages held
              Map<String, Set<String>> model = new TreeMap<>();
              long second = T0;
              List<ExportLine> file = new ArrayList<>();
              boolean fileUsable = false; // whether a next run of the same second may append
              int runs = 1 + random.nextInt(7);
              for (int run = 0; run < runs; run++) {
                // the world changes between runs
                for (int i = 0; i < RESOURCES.size(); i++) {
                  switch (random.nextInt(8)) {
                    case 0 -> uids.remove(i);
                    case 1 -> uids.put(i, "uid-" + i + "-" + ++recreations);
                    default -> {}
                  }
                }
                boolean same = fileUsable && random.nextInt(4) == 0;
                if (same) {
                  sameSecond.incrementAndGet();
                } else {
                  second += 1 + random.nextInt(600);
                  file = new ArrayList<>();
                }
                String id = Instant.ofEpochSecond(second).toString();
                // the run
                Map<String, Set<String>> found = new TreeMap<>(); // (resource, policy) -> messages
                List<ExportLine> frame = new ArrayList<>();
                frame.add(ExportLine.start(id));
                int n = random.nextInt(9);
                String hpaVersion = random.nextBoolean() ? "v2" : "v2beta2";
                for (int v = 0; v < n; v++) {
                  int r = random.nextInt(RESOURCES.size());
                  if (!uids.containsKey(r)) {
                    continue; // the audit lists only what exists
                  }
                  String[] res = RESOURCES.get(r);
                  String constraint = CONSTRAINTS.get(random.nextInt(CONSTRAINTS.size()));
                  String message = "violation " + random.nextInt(3);
                  frame.add(
                      new ExportLine(
                          id,
                          ExportLine.VIOLATION,
                          message,
                          "constraints.gatekeeper.sh",
                          "v1beta1",
                          "K8sRequiredLabels",
                          constraint,
                          constraint.equals("owner") ? "warn" : "deny",
                          List.of(),
                          res[0],
                          res[0].isEmpty() ? "v1" : hpaVersion,
                          res[1],
                          res[2],
                          res[3]));
                  found
                      .computeIfAbsent(r + " K8sRequiredLabels/" + constraint, k -> new TreeSet<>())
                      .add(message);
                }
                frame.add(ExportLine.finish(id));
                Set<String> confirmed = new HashSet<>();
                for (String c : CONSTRAINTS) {
                  if (random.nextInt(4) != 0) {
                    confirmed.add("K8sRequiredLabels/" + c);
                  }
                }
                boolean finished = random.nextInt(4) != 0;
                boolean endsWithNewline = true;
                if (!finished) {
                  switch (random.nextInt(3)) {
                    case 0 -> frame.remove(frame.size() - 1); // crashed before its finish
                    case 1 -> { // its finish line half written
                      frame.remove(frame.size() - 1);
                      endsWithNewline = false;
                    }
                    default ->
                        frame.add(1 + random.nextInt(frame.size() - 1), ExportLine.start("x"));
                  }
                }
                file.addAll(frame);
                fileUsable = finished; // a file cut short is not appended to in this model

                List<AggregateReport> before = aggregator.aggregates();
                AuditRun read = AuditRun.of(file, endsWithNewline);
                if (!(read instanceof AuditRun.Finished f)) {
                  assertThat(finished).as("a run cut short never reads as finished").isFalse();
                  cutShort.incrementAndGet();
                  continue;
                }
                assertThat(finished).as("a finished run reads as finished").isTrue();
                GatekeeperMapping.Statements s =
                    GatekeeperMapping.statements(
                        f,
                        before,
                        confirmed,
                        subject -> {
                          for (int i = 0; i < RESOURCES.size(); i++) {
                            String[] res = RESOURCES.get(i);
                            if (subject.kind().equals(res[1])
                                && subject.namespace().equals(res[2])
                                && subject.name().equals(res[3])) {
                              return Optional.ofNullable(uids.get(i));
                            }
                          }
                          throw new AssertionError("not a resource: " + subject);
                        });
                assertThat(s.refused()).isEmpty();
                s.reports().forEach(aggregator::apply);
                aggregator.flush();

                // the model: what the run found, what it confirmed, which uids are current
                Set<String> current = new HashSet<>(uids.values());
                Map<String, Set<String>> next = new TreeMap<>();
                model.forEach(
                    (key, messages) -> {
                      String uid = key.substring(0, key.indexOf(' '));
                      String policy = key.substring(key.indexOf(' ') + 1);
                      if (!current.contains(uid)) {
                        oldUids.incrementAndGet();
                        return;
                      }
                      if (!confirmed.contains(policy)) {
                        kept.incrementAndGet();
                        next.put(key, messages);
                      }
                    });
                found.forEach(
                    (key, messages) -> {
                      int r = Integer.parseInt(key.substring(0, key.indexOf(' ')));
                      next.put(uids.get(r) + key.substring(key.indexOf(' ')), messages);
                    });
                model = next;
                assertThat(held(aggregator.aggregates())).isEqualTo(model);
              }
            });
    assertThat(cutShort.get()).as("the examples cut runs short").isPositive();
    assertThat(sameSecond.get()).as("the examples start runs in the same second").isPositive();
    assertThat(oldUids.get()).as("the examples drop old uids").isPositive();
    assertThat(kept.get()).as("the examples keep unconfirmed results").isPositive();
  }

  /** What the aggregates hold: (uid, policy) to messages. */
  private static Map<String, Set<String>> held(List<AggregateReport> aggregates) {
    Map<String, Set<String>> held = new TreeMap<>();
    for (AggregateReport a : aggregates) {
      for (Result r : a.results()) {
        assertThat(r.status().toString())
            .isEqualTo(r.policy().endsWith("/owner") ? "warn" : "fail");
        held.computeIfAbsent(r.resources().get(0).uid() + " " + r.policy(), k -> new TreeSet<>())
            .add(r.message());
      }
    }
    return held;
  }
}
