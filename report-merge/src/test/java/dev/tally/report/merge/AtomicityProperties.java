package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A rejected call changes nothing, including when user code fails (docs/DESIGN.md, "Atomicity"):
 * what a call needs, the grouping's answers included, is computed before anything is changed; a
 * grouping id that cannot be written is refused when the aggregator is built; a flush that throws
 * has published nothing.
 */
class AtomicityProperties {
  private static final Subject POD = Subject.of("v1", "Pod", "alpha", "web-0", "uid-web-0");

  /** A user grouping that fails for policy p2 and answers null for policy p3. */
  private static String faulty(Subject subject, CoverageKey key) {
    if (key.policy().equals("p2")) {
      throw new IllegalStateException("no team for " + key);
    }
    return key.policy().equals("p3") ? null : healthy(subject, key);
  }

  private static String healthy(Subject subject, CoverageKey key) {
    return key.source() + "-" + key.policy();
  }

  /**
   * For any stream of events, an aggregator whose grouping throws or answers null part-way through
   * a partial report ends every step exactly like one that never saw the refused reports: the same
   * aggregates, the same result count, the same writes at every flush.
   */
  @Test
  void aGroupingThatFailsPartWayThroughApplyChangesNothing() {
    Fixtures.forEachStream(
        30,
        (events, random, drawn) -> {
          AggregatorConfig faultyConfig =
              new AggregatorConfig(
                  Grouping.custom("team", AtomicityProperties::faulty),
                  drawn.format(),
                  drawn.limits(),
                  drawn.caps(),
                  3600);
          AggregatorConfig healthyConfig =
              new AggregatorConfig(
                  Grouping.custom("team", AtomicityProperties::healthy),
                  drawn.format(),
                  drawn.limits(),
                  drawn.caps(),
                  3600);
          var withFaults = Fixtures.aggregator(faultyConfig);
          var reference = Fixtures.aggregator(healthyConfig);
          for (AggregatorEvent e : events) {
            boolean refused = false;
            try {
              e.applyTo(withFaults);
            } catch (InvalidReportException ex) {
              assertThat(ex.field()).isEqualTo("grouping");
              refused = true;
            }
            if (!refused) {
              e.applyTo(reference);
            }
            assertThat(withFaults.resultCount())
                .as("after %s", e)
                .isEqualTo(reference.resultCount());
            if (random.nextBoolean()) {
              assertThat(withFaults.flush()).as("after %s", e).isEqualTo(reference.flush());
            }
            assertThat(withFaults.aggregates()).as("after %s", e).isEqualTo(reference.aggregates());
          }
          assertThat(withFaults.flush()).isEqualTo(reference.flush());
          assertThat(withFaults.snapshot()).isEqualTo(reference.snapshot());
        });
  }

  /**
   * For any stream of events, an aggregator with small caps ends every step exactly like one
   * without caps that never saw the reports the caps refused: the same aggregates, result count and
   * writes at every flush. So a refused report changes nothing, whichever cap refused it (results
   * per partial report, per namespace, subjects per producer) and whatever it would have replaced.
   */
  @Test
  void aReportRefusedByACapChangesNeitherTheAggregatesNorTheNextFlush() {
    Fixtures.forEachStream(
        30,
        (events, random, drawn) -> {
          InputCaps small =
              InputCaps.defaults()
                  .withMaxResultsPerPartial(1 + random.nextInt(8))
                  .withMaxResultsPerNamespace(1 + random.nextInt(12))
                  .withMaxSubjectsPerProducer(1 + random.nextInt(3));
          Grouping grouping =
              random.nextInt(4) == 0 ? Grouping.kyvernoPerResource() : drawn.grouping();
          var capped =
              Fixtures.aggregator(
                  new AggregatorConfig(grouping, drawn.format(), drawn.limits(), small, 3600));
          var reference =
              Fixtures.aggregator(
                  new AggregatorConfig(
                      grouping, drawn.format(), drawn.limits(), drawn.caps(), 3600));
          RandomModel model = new RandomModel(random, 6);
          List<AggregatorEvent> stream = new ArrayList<>();
          for (AggregatorEvent e : events) {
            stream.add(e);
            if (random.nextInt(3) == 0) {
              // a uid of the model stated in another namespace: one moving, or claimed there
              Subject s = RandomModel.subject(random.nextInt(6));
              String namespace = model.pick(List.of("alpha", "beta"));
              stream.add(
                  new AggregatorEvent.Apply(
                      model.partial(
                          Subject.of(s.apiVersion(), s.kind(), namespace, s.name(), s.uid()))));
            }
          }
          for (AggregatorEvent e : stream) {
            boolean refused = false;
            try {
              e.applyTo(capped);
            } catch (CapacityExceededException ex) {
              refused = true;
            }
            if (!refused) {
              e.applyTo(reference);
            }
            assertThat(capped.resultCount()).as("after %s", e).isEqualTo(reference.resultCount());
            if (random.nextBoolean()) {
              assertThat(capped.flush()).as("after %s", e).isEqualTo(reference.flush());
            }
            assertThat(capped.aggregates()).as("after %s", e).isEqualTo(reference.aggregates());
          }
          assertThat(capped.flush()).isEqualTo(reference.flush());
          assertThat(capped.snapshot()).isEqualTo(reference.snapshot());
        });
  }

  @Test
  void aGroupingFailureNamesTheGroupingAndTheSubject() {
    ReportAggregator a =
        ReportAggregator.builder()
            .grouping(Grouping.custom("team", AtomicityProperties::faulty))
            .build();
    PartialReport partial =
        PartialReport.builder()
            .producer("background")
            .subject(POD)
            .results(List.of(result("p0"), result("p2")))
            .observedAt(Timestamp.ofSeconds(5))
            .build();

    var e = catchThrowableOfType(() -> a.apply(partial), InvalidReportException.class);

    assertThat(e.field()).isEqualTo("grouping");
    assertThat(e.reason()).contains("Pod alpha/web-0").contains("no team for");
    assertThat(a.resultCount()).isZero();
    assertThat(a.flush().isEmpty()).isTrue();
    assertThat(a.aggregates()).isEmpty();
  }

  @Test
  void aGroupingIdThatCannotBeWrittenIsRefusedWhenTheAggregatorIsBuilt() {
    for (String id : List.of("Team A", "team_a", "-team", "team-", "é", "t".repeat(64))) {
      var custom =
          catchThrowableOfType(
              () -> Grouping.custom(id, (s, k) -> "g"), InvalidReportException.class);
      assertThat(custom.field()).as(id).isEqualTo("grouping.id");

      Grouping ownImplementation =
          new Grouping() {
            @Override
            public String groupOf(Subject subject, CoverageKey key) {
              return "g";
            }

            @Override
            public String id() {
              return id;
            }
          };
      var built =
          catchThrowableOfType(
              () -> ReportAggregator.builder().grouping(ownImplementation).build(),
              InvalidReportException.class);
      assertThat(built.field()).as(id).isEqualTo("grouping.id");
      assertThat(built.reason()).contains(id.length() > 63 ? "at most 63" : id);
    }
    assertThat(Grouping.custom("t".repeat(63), (s, k) -> "g").id()).hasSize(63);
  }

  /**
   * A flush that throws part-way (here a user grouping's {@code scopedToSubject}, called while the
   * second group's reports are built) counts as nothing published: the next flush produces every
   * write again, the first group's included.
   */
  @Test
  void aFlushThatThrowsIsRetriedByTheNextFlush() {
    AtomicInteger calls = new AtomicInteger();
    AtomicBoolean failing = new AtomicBoolean();
    Grouping flaky =
        new Grouping() {
          @Override
          public String groupOf(Subject subject, CoverageKey key) {
            return key.policy();
          }

          @Override
          public String id() {
            return "flaky";
          }

          @Override
          public boolean scopedToSubject() {
            if (failing.get() && calls.incrementAndGet() == 2) {
              throw new IllegalStateException("configuration not loaded yet");
            }
            return false;
          }
        };
    ReportAggregator a = ReportAggregator.builder().grouping(flaky).build();
    for (String policy : List.of("p0", "p1", "p2")) {
      a.apply(
          PartialReport.builder()
              .producer("background")
              .subject(POD)
              .results(List.of(result(policy)))
              .observedAt(Timestamp.ofSeconds(5))
              .build());
    }

    failing.set(true);
    var e = catchThrowableOfType(a::flush, InvalidReportException.class);
    assertThat(e.field()).isEqualTo("grouping");
    assertThat(calls.get()).as("failed at the second group").isEqualTo(2);
    failing.set(false);
    ChangeSet retried = a.flush();

    assertThat(retried.creates()).hasSize(3);
    assertThat(a.flush().isEmpty()).isTrue();
  }

  private static Result result(String policy) {
    return Result.builder()
        .source("kyverno")
        .policy(policy)
        .rule("r0")
        .status(ResultStatus.FAIL)
        .build();
  }

  @Test
  void nullArgumentsOfTheAggregatorAreRefusedNamingTheArgument() {
    ReportAggregator a = ReportAggregator.builder().build();
    assertThat(field(() -> a.apply(null))).isEqualTo("partial");
    assertThat(field(() -> a.deleteSubject(null, "uid-1", Timestamp.EPOCH))).isEqualTo("namespace");
    assertThat(field(() -> a.deleteSubject("ns", null, Timestamp.EPOCH))).isEqualTo("uid");
    assertThat(field(() -> a.deleteSubject("ns", "uid-1", null))).isEqualTo("deletedAt");
    assertThat(field(() -> a.setLiveness(null))).isEqualTo("liveness");
    assertThat(field(() -> a.expireTombstones(null))).isEqualTo("now");
    assertThat(field(() -> a.resync(null))).isEqualTo("observed");
    assertThat(field(() -> a.resync(java.util.Arrays.asList(null, null)))).isEqualTo("observed[0]");
    assertThat(field(() -> ReportState.empty().apply(null))).isEqualTo("partial");
    assertThat(a.flush().isEmpty()).isTrue();
  }

  private static String field(Runnable call) {
    return catchThrowableOfType(call::run, InvalidReportException.class).field();
  }
}
