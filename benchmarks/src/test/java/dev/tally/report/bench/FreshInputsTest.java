package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fresh inputs are what a decoder hands over: for every invocation new string objects whose
 * hash codes were never computed. Checked through object identity and String's own cache fields
 * (read by reflection; surefire opens java.lang for it), never through timing.
 */
class FreshInputsTest {
  private static final Field HASH = stringField("hash");
  private static final Field HASH_IS_ZERO = stringField("hashIsZero");

  private final ReferenceWorkload workload = ReferenceWorkload.reference(10_000);

  @Test
  void aFreshCopyEqualsTheWorkloadAndSharesNoStringWithItNorWithTheNextCopy() {
    List<PartialReport> first = FreshCopy.of(workload.partials());
    List<PartialReport> second = FreshCopy.of(workload.partials());
    assertThat(strings(first)).noneMatch(FreshInputsTest::hashCached);
    assertThat(first).isEqualTo(workload.partials()).isEqualTo(second);

    Set<String> original = identitySet(strings(workload.partials()));
    List<String> firstStrings = strings(first);
    Set<String> firstSet = identitySet(firstStrings);
    // 1000 partials: producer, subject (5), subjectVersion, 5 coverage keys (2), and 10 results of
    // 5 strings and a subject (5) each
    assertThat(firstStrings).hasSize(1_000 * (1 + 5 + 1 + 10 + 10 * 10));
    assertThat(firstSet).as("every string its own object").hasSameSizeAs(firstStrings);
    for (String s : strings(second)) {
      assertThat(firstSet.contains(s)).as("'%s' shared between invocations", s).isFalse();
      assertThat(original.contains(s)).as("'%s' shared with the workload", s).isFalse();
    }
  }

  @Test
  void aggregatingHashesTheStringsItWasGivenButNotTheNextInvocations() {
    var state = new FullAggregationBenchmark.Workload();
    state.results = 10_000;
    state.inputs = "fresh";
    state.generate();
    state.nextInvocation();
    List<PartialReport> first = state.partials;
    new FullAggregationBenchmark().tally(state);
    // the probe sees what an aggregation does to its input: so it could see a reused input
    assertThat(strings(first).stream().filter(FreshInputsTest::hashCached).count())
        .isGreaterThan(first.size());

    state.nextInvocation();
    List<PartialReport> second = state.partials;
    assertThat(strings(second)).noneMatch(FreshInputsTest::hashCached);
    assertThat(second).isNotSameAs(first).isEqualTo(first);
    Set<String> firstSet = identitySet(strings(first));
    assertThat(strings(second)).noneMatch(firstSet::contains);
  }

  @Test
  void reusedInputsAreTheSameObjectsEveryInvocationAndSharedOnesShareTheirValues() {
    var reused = new FullAggregationBenchmark.Workload();
    reused.results = 10_000;
    reused.inputs = "reused";
    reused.generate();
    reused.nextInvocation();
    List<PartialReport> first = reused.partials;
    reused.nextInvocation();
    assertThat(reused.partials).isSameAs(first);

    var shared = new FullAggregationBenchmark.Workload();
    shared.results = 10_000;
    shared.inputs = "shared";
    shared.generate();
    shared.nextInvocation();
    assertThat(shared.partials).isEqualTo(first);
    Set<String> messages = Collections.newSetFromMap(new IdentityHashMap<>());
    shared.partials.forEach(p -> p.results().forEach(r -> messages.add(r.message())));
    assertThat(messages.size()).isLessThanOrEqualTo(200);
  }

  static boolean hashCached(String s) {
    try {
      return HASH.getInt(s) != 0 || HASH_IS_ZERO.getBoolean(s);
    } catch (IllegalAccessException e) {
      throw new AssertionError(e);
    }
  }

  /** Every string object of the partial reports, with repetitions. */
  static List<String> strings(List<PartialReport> partials) {
    List<String> out = new ArrayList<>();
    for (PartialReport p : partials) {
      out.add(p.producer());
      subject(out, p.subject());
      out.add(p.subjectVersion());
      for (CoverageKey k : p.coverage()) {
        out.add(k.source());
        out.add(k.policy());
      }
      for (Result r : p.results()) {
        out.add(r.source());
        out.add(r.policy());
        out.add(r.rule());
        out.add(r.category());
        out.add(r.message());
        r.resources().forEach(s -> subject(out, s));
      }
    }
    return out;
  }

  private static void subject(List<String> out, Subject s) {
    out.add(s.apiVersion());
    out.add(s.kind());
    out.add(s.namespace());
    out.add(s.name());
    out.add(s.uid());
  }

  private static Set<String> identitySet(List<String> strings) {
    Set<String> set = Collections.newSetFromMap(new IdentityHashMap<>());
    set.addAll(strings);
    return set;
  }

  private static Field stringField(String name) {
    try {
      Field f = String.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
