package dev.tally.report.merge.partition;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.merge.names.ReportNames;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How many bytes of results a partition may hold so that its whole JSON stays within {@code
 * maxBytes}: {@code maxBytes} less the largest envelope of its group (metadata, scope, owner,
 * summary, configuration), measured by {@link EncodedSize} from the group's real content. A
 * partition of {@code n} results takes {@code envelope + 1 + sum(result + 1)} bytes, so the trie of
 * a group splits at {@code maxBytes - 1 - envelopeBound} bytes of results (each result's size plus
 * a comma).
 *
 * <p>A result too large to fit beside the largest envelope any partition of this aggregator can
 * have is refused when applied. That depends on the configuration alone, never on what else the
 * aggregator holds (a group's scope can change with its content, and with it the envelope), so a
 * refusal is the same whatever the order of events.
 */
public final class PartitionBudget {
  /** The longest partition name suffix: '.' and one hex digit per 4 bits of the deepest path. */
  public static final int MAX_SUFFIX = 1 + PartitionTrie.MAX_DEPTH / 4;

  /** The longest value of a Kubernetes label, which the grouping label must respect. */
  public static final int MAX_LABEL_VALUE = 63;

  private final AggregatorConfig config;
  private final Optional<ReportConfiguration> configuration;
  private final int maxBytes;

  /**
   * The most results a partition can count: {@code maxResults}, or for a leaf that can no longer
   * split (its results share a 128-bit path, so they come from one register) a partial report's
   * worth.
   */
  private final int maxCount;

  /** The largest envelope of any partition this aggregator can write. */
  private final int maxEnvelope;

  /** The bytes of results every partition has room for, whatever its envelope. */
  private final long room;

  /** The budget of an aggregator of {@code config} writing {@code configuration}, if any. */
  public PartitionBudget(AggregatorConfig config, Optional<ReportConfiguration> configuration) {
    this.config = config;
    this.configuration = configuration;
    this.maxBytes = config.limits().maxBytes();
    this.maxCount = Math.max(config.limits().maxResults(), config.caps().maxResultsPerPartial());
    // the grouping id is a valid label value: AggregatorConfig checks it
    this.maxEnvelope = maxEnvelope(config, configuration, maxCount);
    this.room = (long) maxBytes - 1 - maxEnvelope;
  }

  /** The most results a partition holds. */
  public int maxResults() {
    return config.limits().maxResults();
  }

  /** The bytes of results (each result's JSON and a comma) every partition has room for. */
  public long room() {
    return room;
  }

  /**
   * The largest envelope of any partition an aggregator with this configuration can write: that of
   * a group in the widest namespace, with the longest base name, scoped (when its grouping is) to
   * the widest subject, with the largest summary. Bounded because every field of it is.
   */
  static int maxEnvelope(
      AggregatorConfig config, Optional<ReportConfiguration> configuration, int maxCount) {
    int most = 0;
    for (String namespace : List.of("", widestNamespace())) {
      Optional<Subject> scope =
          config.grouping().scopedToSubject()
              ? Optional.of(widestSubject(namespace))
              : Optional.empty();
      int envelope =
          envelopeBound(
              config.format().kindFor(namespace),
              namespace,
              "x".repeat(ReportNames.MAX_BASE_LENGTH),
              ReportNames.labels(
                  AggregatorConfig.layoutOf(config.grouping()),
                  config.input(),
                  config.grouping().id(),
                  namespace,
                  "x"),
              scope,
              configuration,
              maxCount);
      most = Math.max(most, envelope);
    }
    return most;
  }

  /**
   * The bytes of results a partition holds of a group of {@code kind} in {@code namespace}, named
   * {@code baseName} and labelled {@code labels}, when its partitions have {@code scope}.
   */
  public long resultBytes(
      ReportKind kind,
      String namespace,
      String baseName,
      Map<String, String> labels,
      Optional<Subject> scope) {
    int envelope = envelopeBound(kind, namespace, baseName, labels, scope, configuration, maxCount);
    return (long) maxBytes - 1 - envelope;
  }

  /**
   * Refuses result {@code index} of a partial report, as a partition holds it ({@code normal}:
   * about the subject when it names no object), if it is too large for any partition to hold.
   *
   * @throws InvalidReportException naming the result's largest field
   */
  public void checkFits(int index, Result normal) {
    long bytes = EncodedSize.of(normal) + 1L;
    if (bytes > room) {
      throw new InvalidReportException(
          "results[" + index + "]." + EncodedSize.largestField(normal),
          "makes the result "
              + (bytes - 1)
              + " bytes of JSON, more than the "
              + (room - 1)
              + " a partition has room for: limits.maxBytes is "
              + maxBytes
              + " and a partition's other fields take up to "
              + (maxEnvelope + 2)
              + " bytes");
    }
  }

  /**
   * The largest envelope any partition of a group can have. All of it is fixed for the group but
   * what differs between its partitions: the name's suffix (at most {@link #MAX_SUFFIX} chars), the
   * content hash (always 16 hex digits) and the summary, whose counts are at most {@code maxCount}
   * each.
   *
   * @param baseName the group's name, that of its first partition
   * @param scope the scope of the group's partitions, which is also their owner
   */
  static int envelopeBound(
      ReportKind kind,
      String namespace,
      String baseName,
      Map<String, String> labels,
      Optional<Subject> scope,
      Optional<ReportConfiguration> configuration,
      int maxCount) {
    String longestName = baseName + "." + "f".repeat(MAX_SUFFIX - 1);
    Summary most = new Summary(maxCount, maxCount, maxCount, maxCount, maxCount);
    return EncodedSize.envelope(
        new AggregateReport(
            new ReportRef(kind, namespace, longestName),
            labels,
            scope,
            scope,
            configuration,
            List.of(),
            most,
            Fingerprint.hex(0)));
  }

  /**
   * The subject of {@code namespace} whose JSON is the largest the model allows: every other field
   * at its longest, of characters that JSON escapes to 6 bytes.
   */
  public static Subject widestSubject(String namespace) {
    String widest = "\u0001".repeat(Subject.MAX_FIELD);
    return new Subject(widest, widest, namespace, widest, "\u0001".repeat(Subject.MAX_UID));
  }

  /** The namespace whose JSON is the largest the model allows. */
  public static String widestNamespace() {
    return "\u0001".repeat(Subject.MAX_NAMESPACE);
  }
}
