package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A deep copy of partial reports as a JSON decoder hands them over: every string is a new object
 * built from its characters, with its own byte array and no cached hash code, and every subject,
 * timestamp, coverage key, result and partial report is a new object.
 *
 * <p>{@code new String(s)} would not do: it shares {@code s}'s bytes and copies its cached hash
 * code. Label selectors (which the reference workload never has) are kept as they are; property
 * keys are hashed by whatever map holds them, as a decoder's would be (the workload has none).
 */
public final class FreshCopy {
  private FreshCopy() {}

  /** Fresh copies of {@code partials}, in the same order, equal to them. */
  public static List<PartialReport> of(List<PartialReport> partials) {
    List<PartialReport> out = new ArrayList<>(partials.size());
    for (PartialReport p : partials) {
      out.add(of(p));
    }
    return out;
  }

  static PartialReport of(PartialReport p) {
    // a sorted set, as PartialReport holds it: a hash set would hash the new strings
    Set<CoverageKey> coverage = new TreeSet<>();
    for (CoverageKey k : p.coverage()) {
      coverage.add(new CoverageKey(string(k.source()), string(k.policy())));
    }
    List<Result> results = new ArrayList<>(p.results().size());
    for (Result r : p.results()) {
      results.add(of(r));
    }
    return new PartialReport(
        string(p.producer()),
        of(p.subject()),
        string(p.subjectVersion()),
        coverage,
        results,
        of(p.observedAt()),
        p.generation());
  }

  static Result of(Result r) {
    Map<String, String> properties = new LinkedHashMap<>();
    r.properties().forEach((k, v) -> properties.put(string(k), string(v)));
    List<Subject> resources = new ArrayList<>(r.resources().size());
    for (Subject s : r.resources()) {
      resources.add(of(s));
    }
    Optional<Timestamp> timestamp = r.timestamp();
    return Result.builder()
        .source(string(r.source()))
        .policy(string(r.policy()))
        .rule(string(r.rule()))
        .status(r.status())
        .severity(r.severity().orElse(null))
        .category(string(r.category()))
        .message(string(r.message()))
        .scored(r.scored().orElse(null))
        .properties(properties)
        .timestamp(timestamp.isPresent() ? of(timestamp.get()) : null)
        .resources(resources)
        .resourceSelector(r.resourceSelector().orElse(null))
        .build();
  }

  static Subject of(Subject s) {
    return new Subject(
        string(s.apiVersion()),
        string(s.kind()),
        string(s.namespace()),
        string(s.name()),
        string(s.uid()));
  }

  static Timestamp of(Timestamp t) {
    return new Timestamp(t.seconds(), t.nanos());
  }

  /** A new string of the same characters: its own bytes, its hash code not yet computed. */
  static String string(String s) {
    return new String(s.toCharArray());
  }
}
