package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The content hash of an aggregate: equal content (kind, namespace, labels, scope, owner,
 * configuration, summary and the multiset of results) gives equal hashes, in every run. The
 * aggregator keeps it incrementally (results enter as a sum of their digests, so no re-hashing of
 * unchanged results); {@link #of(AggregateReport)} computes the same value from scratch.
 */
public final class ContentHash {

  private ContentHash() {}

  /**
   * The content hash of a report, computed from its fields.
   *
   * <p>In a report with a scope, a result that names no object ({@code resources} and {@code
   * resourceSelector} empty) is about the scope: it hashes as the same result naming it, which is
   * how the merge holds every result ({@link MergeRule#aboutSubject}). So a per-resource report as
   * Kyverno writes it (the resource in {@code scope} only) and the same report as Tally writes it
   * (the resource in each result too) have one content, and taking over Kyverno's reports rewrites
   * none of them.
   */
  public static String of(AggregateReport report) {
    long sum = 0;
    List<Subject> scopeOnly = report.scope().map(List::of).orElse(List.of());
    for (Result r : report.results()) {
      // the result's digest, computed when it was built
      sum += scopeOnly.isEmpty() ? r.digest() : MergeRule.aboutSubject(r, scopeOnly).digest();
    }
    long meta =
        envelope(
            report.ref().kind(),
            report.ref().namespace(),
            report.labels(),
            report.scope(),
            report.owner(),
            report.configuration());
    return combine(meta, sum, report.results().size(), report.summary());
  }

  /**
   * Whether {@code observed} carries a content hash and its content hashes to it: what a report as
   * Tally wrote it does. One that does not was changed by another hand (or written by another tool,
   * which stores none), so its stored hash says nothing about what it holds.
   */
  public static boolean isIntact(AggregateReport observed) {
    return !observed.contentHash().isEmpty() && observed.contentHash().equals(of(observed));
  }

  /** The digest of everything but the results and the name. */
  static long envelope(
      ReportKind kind,
      String namespace,
      Map<String, String> labels,
      Optional<Subject> scope,
      Optional<Subject> owner,
      Optional<ReportConfiguration> configuration) {
    return envelope(prefix(kind, namespace, labels), scope, owner, configuration);
  }

  /**
   * The digest of the part of an envelope that is fixed for a group (kind, namespace, labels), so
   * that a group computes it once rather than on every flush.
   */
  static long prefix(ReportKind kind, String namespace, Map<String, String> labels) {
    long h = Fingerprint.of(kind.apiVersion(), kind.kind(), namespace);
    return Fingerprint.map(h, labels);
  }

  /** {@link #envelope(ReportKind, String, Map, Optional, Optional, Optional)} from its prefix. */
  static long envelope(
      long prefix,
      Optional<Subject> scope,
      Optional<Subject> owner,
      Optional<ReportConfiguration> configuration) {
    long h = prefix;
    h = scope.map(s -> Fingerprint.subject(1, s)).orElse(0L) ^ Fingerprint.mix(h);
    h = Fingerprint.value(h, owner.map(s -> Fingerprint.subject(2, s)).orElse(0L));
    if (configuration.isPresent()) {
      h = Fingerprint.value(h, configuration.get().maxResults());
      for (var s : configuration.get().statusFilter()) {
        h = Fingerprint.value(h, s.ordinal() + 100L);
      }
    } else {
      h = Fingerprint.value(h, -1);
    }
    return Fingerprint.mix(h);
  }

  static String combine(long envelope, long resultSum, int count, Summary summary) {
    long h = Fingerprint.value(envelope, resultSum);
    h = Fingerprint.value(h, count);
    h = Fingerprint.value(h, summary.pass());
    h = Fingerprint.value(h, summary.fail());
    h = Fingerprint.value(h, summary.warn());
    h = Fingerprint.value(h, summary.error());
    h = Fingerprint.value(h, summary.skip());
    return Fingerprint.hex(Fingerprint.mix(h));
  }
}
