package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.FairShare;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.HeldCounts;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.ModelGen;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The caps bound everything the aggregator holds (docs/DESIGN.md, section 9, "Caps"): whatever a
 * stream of partial reports and deletions, including floods of coverage retractions (registers
 * without results), of producers, of distinct subjects and of deletions, the registers (empty ones
 * included), results, producers and tombstones held never exceed their caps, per namespace and in
 * all; {@link DefaultReportAggregator#held()} counts exactly what the state holds; and a partial
 * report refused at a cap changes nothing.
 */
class CapsProperties {
  private static final List<String> NAMESPACES = List.of("alpha", "beta", "gamma", "");

  private static final InputCaps SMALL =
      InputCaps.defaults()
          .withMaxResultsPerPartial(6)
          .withMaxCoveragePerPartial(8)
          .withMaxSubjectsPerProducer(5)
          .withMaxResultsPerNamespace(40)
          .withMaxRegistersPerNamespace(30)
          .withMaxProducersPerNamespace(4)
          .withMaxResults(70)
          .withMaxRegisters(60)
          .withMaxTombstones(10)
          .withMaxResultBytesPerNamespace(2_000)
          .withMaxResultBytes(3_500);

  @Test
  void noInputStreamGrowsTheHeldStatePastTheCaps() {
    Fixtures.theory()
        .withExamples(300)
        .forAll(ModelGen.seeds())
        .checkAssert(
            seed -> {
              Random random = new Random(seed);
              var config =
                  new AggregatorConfig(
                      Fixtures.GROUPINGS.get(random.nextInt(Fixtures.GROUPINGS.size())),
                      ReportFormat.WGPOLICY,
                      ReportLimits.defaults(),
                      SMALL,
                      3600);
              var a = Fixtures.aggregator(config);
              int events = 50 + random.nextInt(250);
              for (int i = 0; i < events; i++) {
                if (random.nextInt(6) == 0) {
                  a.deleteSubject(
                      NAMESPACES.get(random.nextInt(NAMESPACES.size())),
                      uid(random),
                      new Timestamp(random.nextInt(1000), 0));
                } else {
                  PartialReport p = flood(random);
                  ReportState before = a.snapshot();
                  HeldCounts heldBefore = a.held();
                  try {
                    a.apply(p);
                  } catch (CapacityExceededException refused) {
                    assertThat(a.snapshot()).as("refused: %s", refused).isEqualTo(before);
                    assertThat(a.held()).isEqualTo(heldBefore);
                    assertThat(refused.getMessage()).contains(refused.cap());
                  }
                }
                if (random.nextInt(10) == 0) {
                  a.flush();
                }
                checkWithinCaps(a, SMALL);
              }
            });
  }

  /**
   * Fair shares (docs/DESIGN.md §9.2): whatever three flooding tenants do, a namespace that asks
   * for no more than its share of each process-wide cap (here a quarter: four namespaces) is never
   * refused by one. Before, the tenants filled maxResults and every later result of the victim's
   * was refused.
   */
  @Test
  void aNamespaceWithinItsShareIsNeverRefusedByAProcessWideCap() {
    // the victim holds at most 6 registers, 6 results, ~1,000 bytes: under a quarter of each
    InputCaps caps =
        SMALL
            .withMaxResultsPerNamespace(60)
            .withMaxRegistersPerNamespace(60)
            .withMaxResultBytesPerNamespace(3_000)
            .withMaxResultBytes(6_000);
    Fixtures.theory()
        .withExamples(300)
        .forAll(ModelGen.seeds())
        .checkAssert(
            seed -> {
              Random random = new Random(seed);
              var a =
                  Fixtures.aggregator(
                      new AggregatorConfig(
                          Grouping.perNamespace(),
                          ReportFormat.WGPOLICY,
                          ReportLimits.defaults(),
                          caps,
                          3600));
              int events = 100 + random.nextInt(200);
              for (int i = 0; i < events; i++) {
                if (random.nextInt(5) == 0) {
                  // the victim: two Pods, at most three policies each, one result per policy
                  String uid = "victim-" + random.nextInt(2);
                  Subject s = Subject.of("v1", "Pod", "victim", uid, uid);
                  Set<CoverageKey> coverage = new LinkedHashSet<>();
                  List<Result> results = new ArrayList<>();
                  for (int k = 0; k < 3; k++) {
                    CoverageKey key = CoverageKey.of("kyverno", "v" + k);
                    coverage.add(key);
                    if (random.nextBoolean()) {
                      results.add(fail(key, "r"));
                    }
                  }
                  PartialReport p =
                      PartialReport.builder()
                          .producer("kyverno")
                          .subject(s)
                          .coverage(coverage)
                          .results(results)
                          .observedAt(new Timestamp(1_000 + i, 0))
                          .build();
                  a.apply(p); // never refused: the victim asks for less than a quarter of each
                } else if (random.nextInt(6) == 0) {
                  a.deleteSubject(
                      NAMESPACES.get(random.nextInt(3)), uid(random), new Timestamp(i, 0));
                } else {
                  PartialReport p = flood(random);
                  if (p.subject().namespace().isEmpty()) {
                    continue; // three tenants and the victim: four namespaces
                  }
                  try {
                    a.apply(p);
                  } catch (CapacityExceededException refused) {
                    // the tenants are refused, at their own caps or over their shares
                  }
                }
              }
            });
  }

  @Test
  void coverageRetractionsCountAgainstTheRegisterCaps() {
    var a =
        Fixtures.aggregator(
            new AggregatorConfig(
                Grouping.perNamespace(),
                ReportFormat.WGPOLICY,
                ReportLimits.defaults(),
                InputCaps.defaults().withMaxRegistersPerNamespace(3),
                3600));
    Subject s = Subject.of("v1", "Pod", "alpha", "p", "uid-p");
    a.apply(retraction(s, "background", 10, "p0", "p1", "p2"));
    var e =
        catchThrowableOfType(
            () -> a.apply(retraction(s, "background", 11, "p3")), CapacityExceededException.class);
    assertThat(e.cap()).isEqualTo("maxRegistersPerNamespace");
    assertThat(e.limit()).isEqualTo(3);
    assertThat(a.held().registers()).isEqualTo(3);
    // replacing what is held adds nothing: still accepted
    a.apply(retraction(s, "background", 12, "p0", "p1", "p2"));
    // another namespace has its own cap
    a.apply(retraction(Subject.of("v1", "Pod", "beta", "p", "uid-p"), "background", 10, "p3"));
  }

  @Test
  void aCoverageLargerThanTheCapIsRefusedBeforeAnythingIsHeld() {
    var a =
        Fixtures.aggregator(
            new AggregatorConfig(
                Grouping.perNamespace(),
                ReportFormat.WGPOLICY,
                ReportLimits.defaults(),
                InputCaps.defaults().withMaxCoveragePerPartial(2),
                3600));
    var e =
        catchThrowableOfType(
            () ->
                a.apply(
                    retraction(
                        Subject.of("v1", "Pod", "alpha", "p", "uid-p"), "b", 1, "p0", "p1", "p2")),
            CapacityExceededException.class);
    assertThat(e.cap()).isEqualTo("maxCoveragePerPartial");
    assertThat(e.field()).isEqualTo("coverage");
    assertThat(a.held()).isEqualTo(new HeldCounts(0, 0, 0, 0, 0, 0));
  }

  @Test
  void pastTheTombstoneCapTheOldestDeletionsAreForgotten() {
    var a =
        Fixtures.aggregator(
            new AggregatorConfig(
                Grouping.perNamespace(),
                ReportFormat.WGPOLICY,
                ReportLimits.defaults(),
                InputCaps.defaults().withMaxTombstones(4),
                3600));
    for (int i = 0; i < 10; i++) {
      a.deleteSubject("alpha", "uid-" + i, Timestamp.ofSeconds(100 + i));
    }
    HeldCounts held = a.held();
    assertThat(held.tombstones()).isLessThanOrEqualTo(4);
    assertThat(held.tombstonesForgotten()).isEqualTo(10 - held.tombstones());
    // the latest deletion is remembered: an older report about it stays hidden
    Subject latest = Subject.of("v1", "Pod", "alpha", "p", "uid-9");
    a.apply(result(latest, "background", 50, "p0"));
    assertThat(a.resultCount()).isZero();
  }

  private static void checkWithinCaps(DefaultReportAggregator a, InputCaps caps) {
    ReportState state = a.snapshot();
    List<Register> registers = state.toRegisters();
    Map<String, Long> registersByNs = new HashMap<>();
    Map<String, Long> resultsByNs = new HashMap<>();
    Map<String, Set<String>> producersByNs = new HashMap<>();
    Map<List<String>, Set<String>> subjectsByProducer = new HashMap<>();
    long results = 0;
    long bytes = 0;
    Map<String, Long> bytesByNs = new HashMap<>();
    for (Register r : registers) {
      String ns = r.subject.namespace();
      registersByNs.merge(ns, 1L, Long::sum);
      resultsByNs.merge(ns, (long) r.results.length, Long::sum);
      producersByNs.computeIfAbsent(ns, k -> new HashSet<>()).add(r.order.producer());
      subjectsByProducer
          .computeIfAbsent(List.of(ns, r.order.producer()), k -> new HashSet<>())
          .add(r.uid());
      results += r.results.length;
      bytes += r.resultsBytes;
      bytesByNs.merge(ns, (long) r.resultsBytes, Long::sum);
    }
    long producers = producersByNs.values().stream().mapToLong(Set::size).sum();
    HeldCounts held = a.held();
    assertThat(held.registers()).as("registers counted").isEqualTo(registers.size());
    assertThat(held.results()).as("results counted").isEqualTo(results);
    assertThat(held.producers()).as("producers counted").isEqualTo(producers);
    assertThat(held.tombstones()).as("tombstones counted").isEqualTo(state.tombstones().size());
    assertThat(held.resultBytes()).as("bytes counted").isEqualTo(bytes);

    // the process-wide caps are shared fairly: past them only namespaces within their share are
    // admitted, up to twice the cap
    assertThat(held.registers())
        .as("registers")
        .isLessThanOrEqualTo(FairShare.ceiling(caps.maxRegisters()));
    assertThat(held.results())
        .as("results")
        .isLessThanOrEqualTo(FairShare.ceiling(caps.maxResults()));
    assertThat(held.resultBytes())
        .as("bytes of results")
        .isLessThanOrEqualTo(FairShare.ceiling(caps.maxResultBytes()));
    bytesByNs.forEach(
        (ns, n) ->
            assertThat(n)
                .as("bytes of results of '%s'", ns)
                .isLessThanOrEqualTo(caps.maxResultBytesPerNamespace()));
    assertThat(held.tombstones()).as("tombstones").isLessThanOrEqualTo(caps.maxTombstones());
    registersByNs.forEach(
        (ns, n) ->
            assertThat(n)
                .as("registers of '%s'", ns)
                .isLessThanOrEqualTo(caps.maxRegistersPerNamespace()));
    resultsByNs.forEach(
        (ns, n) ->
            assertThat(n)
                .as("results of '%s'", ns)
                .isLessThanOrEqualTo(caps.maxResultsPerNamespace()));
    producersByNs.forEach(
        (ns, p) ->
            assertThat(p.size())
                .as("producers of '%s'", ns)
                .isLessThanOrEqualTo(caps.maxProducersPerNamespace()));
    subjectsByProducer.forEach(
        (k, s) ->
            assertThat(s.size())
                .as("subjects of %s", k)
                .isLessThanOrEqualTo(caps.maxSubjectsPerProducer()));
  }

  private static String uid(Random random) {
    return "uid-" + random.nextInt(40);
  }

  /**
   * A partial report from a flooding tenant: often a coverage retraction of many keys without
   * results, from one of many producers, about one of many subjects, now and then over a cap.
   */
  private static PartialReport flood(Random random) {
    String ns = NAMESPACES.get(random.nextInt(NAMESPACES.size()));
    String uid = uid(random);
    Subject subject = Subject.of("v1", ns.isEmpty() ? "Node" : "Pod", ns, "s-" + uid, uid);
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    int keys = 1 + random.nextInt(random.nextInt(4) == 0 ? 12 : 4);
    for (int i = 0; i < keys; i++) {
      coverage.add(CoverageKey.of("kyverno", "p" + random.nextInt(20)));
    }
    List<Result> results = new ArrayList<>();
    if (random.nextBoolean()) {
      List<CoverageKey> covered = List.copyOf(coverage);
      int n = random.nextInt(8);
      for (int i = 0; i < n; i++) {
        CoverageKey key = covered.get(random.nextInt(covered.size()));
        results.add(fail(key, "r" + i));
      }
    }
    return PartialReport.builder()
        .producer("producer-" + random.nextInt(random.nextBoolean() ? 3 : 12))
        .subject(subject)
        .coverage(coverage)
        .results(results)
        .observedAt(new Timestamp(random.nextInt(1000), 0))
        .generation(random.nextInt(3))
        .build();
  }

  private static PartialReport retraction(
      Subject s, String producer, long seconds, String... policies) {
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    for (String p : policies) {
      coverage.add(CoverageKey.of("kyverno", p));
    }
    return PartialReport.builder()
        .producer(producer)
        .subject(s)
        .coverage(coverage)
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }

  private static PartialReport result(Subject s, String producer, long seconds, String policy) {
    CoverageKey key = CoverageKey.of("kyverno", policy);
    return PartialReport.builder()
        .producer(producer)
        .subject(s)
        .results(List.of(fail(key, "r0")))
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }

  private static Result fail(CoverageKey key, String rule) {
    return Result.builder()
        .source(key.source())
        .policy(key.policy())
        .rule(rule)
        .status(ResultStatus.FAIL)
        .build();
  }
}
