package dev.tally.report.api.testing;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds random but valid model values from a seeded {@link Random}. The pools are small on
 * purpose, so that subjects, policies, timestamps and producers collide often and the merge rules
 * (ties, retractions, deletions) are exercised.
 */
public final class RandomModel {
  public static final List<String> NAMESPACES = List.of("alpha", "beta", "");
  public static final List<String> PRODUCERS = List.of("admission", "background", "audit/nightly");
  public static final List<String> SOURCES = List.of("kyverno", "trivy");
  public static final List<String> POLICIES = List.of("p0", "p1", "p2", "p3");
  public static final List<String> RULES = List.of("r0", "r1");

  private final Random random;
  private final int subjectCount;

  public RandomModel(Random random, int subjectCount) {
    this.random = random;
    this.subjectCount = subjectCount;
  }

  public RandomModel(long seed) {
    this(new Random(seed), 6);
  }

  /** The i-th subject: always the same namespace, kind and name for the same uid. */
  public static Subject subject(int i) {
    String ns = NAMESPACES.get(i % NAMESPACES.size());
    return ns.isEmpty()
        ? Subject.of("v1", "Namespace", "", "ns-" + i, "uid-" + i)
        : Subject.of("v1", "Pod", ns, "pod-" + i, "uid-" + i);
  }

  public Subject subject() {
    return subject(random.nextInt(subjectCount));
  }

  public CoverageKey key() {
    return CoverageKey.of(pick(SOURCES), pick(POLICIES));
  }

  public Timestamp timestamp() {
    int[] nanos = {0, 1, 500_000_000};
    return new Timestamp(random.nextInt(6), nanos[random.nextInt(nanos.length)]);
  }

  public Result result(Subject subject, CoverageKey key) {
    var b =
        Result.builder()
            .source(key.source())
            .policy(key.policy())
            .rule(pick(RULES))
            .status(pick(List.of(ResultStatus.values())))
            .message(pick(List.of("ok", "missing label", "image is latest", "ünïcode \"quoted\"")));
    if (random.nextBoolean()) {
      b.severity(pick(List.of(Severity.values())));
    }
    if (random.nextInt(3) == 0) {
      b.category("Pod Security");
    }
    if (random.nextInt(3) == 0) {
      b.scored(random.nextBoolean());
    }
    if (random.nextInt(4) == 0) {
      Map<String, String> props = new TreeMap<>();
      props.put("index", Integer.toString(random.nextInt(3)));
      if (random.nextBoolean()) {
        props.put("container", "c" + random.nextInt(2));
      }
      b.properties(props);
    }
    if (random.nextInt(3) == 0) {
      b.timestamp(timestamp());
    }
    int shape = random.nextInt(10);
    if (shape < 6) {
      b.resources(List.of(subject));
    } else if (shape == 6) {
      b.resourceSelector(LabelSelector.matching(Map.of("app", "web")));
    } else if (shape == 7 && !subject.namespace().isEmpty()) {
      b.resources(List.of(subject, Subject.of("v1", "Service", subject.namespace(), "svc", "")));
    }
    return b.build();
  }

  /** A valid partial report about a random subject. */
  public PartialReport partial() {
    return partial(subject());
  }

  public PartialReport partial(Subject subject) {
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    int keys = 1 + random.nextInt(3);
    for (int i = 0; i < keys; i++) {
      coverage.add(key());
    }
    List<Result> results = new ArrayList<>();
    for (CoverageKey key : coverage) {
      int n = random.nextInt(4); // 0 is a retraction of the key
      for (int i = 0; i < n; i++) {
        results.add(result(subject, key));
      }
    }
    boolean declare = results.isEmpty() || random.nextInt(3) > 0;
    return PartialReport.builder()
        .producer(pick(PRODUCERS))
        .subject(subject)
        .coverage(declare ? coverage : Set.of())
        .results(results)
        .observedAt(timestamp())
        .generation(random.nextInt(3))
        .build();
  }

  /** A stream of applies and, now and then, deletions. */
  public List<AggregatorEvent> events(int count) {
    List<AggregatorEvent> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (random.nextInt(8) == 0) {
        Subject deleted = subject();
        events.add(new AggregatorEvent.Delete(deleted.namespace(), deleted.uid(), timestamp()));
      } else {
        events.add(new AggregatorEvent.Apply(partial()));
      }
    }
    return events;
  }

  public <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  public Random random() {
    return random;
  }
}
