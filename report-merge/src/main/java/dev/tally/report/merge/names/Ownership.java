package dev.tally.report.merge.names;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.WireNames;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Which aggregates in a cluster are whose: the one ownership rule of Tally, applied by the
 * aggregator (what a resync may delete) and by the adapter's writer (what it may change at all).
 *
 * <p>An object is managed in a layout when its {@code app.kubernetes.io/managed-by} label is the
 * layout's ({@link #managed}): nothing else is ever changed or deleted. Of those, an aggregator
 * owns ({@link #owns}) the ones of its format's kind and, in Tally's layout, of its grouping (the
 * {@code tally.dev/grouping} label), so that aggregators of different groupings never delete each
 * other's. Kyverno's reports carry no grouping label and are all per resource, so in Kyverno's
 * layout every managed one of the format's kind is the aggregator's.
 */
public final class Ownership {
  private final ReportFormat format;
  private final ReportLayout layout;
  private final String groupingLabel;

  private Ownership(ReportFormat format, ReportLayout layout, String groupingId) {
    this.format = format;
    this.layout = layout;
    this.groupingLabel = ReportNames.sanitize(groupingId);
  }

  /** The rule of an aggregator configured with {@code config}. */
  public static Ownership of(AggregatorConfig config) {
    return new Ownership(
        config.format(), AggregatorConfig.layoutOf(config.grouping()), config.grouping().id());
  }

  /**
   * Whether an object labelled {@code labels} (null: none) is managed in {@code layout}: its
   * managed-by label is {@link ReportLayout#managedBy()}. What may be written over or deleted at
   * all.
   */
  public static boolean managed(ReportLayout layout, @Nullable Map<String, String> labels) {
    return layout.manages(labels);
  }

  /** Whether {@code o} is managed in this aggregator's layout. */
  public boolean managed(AggregateReport o) {
    return managed(layout, o.labels());
  }

  /**
   * Whether {@code o} is this aggregator's, to delete when it is not desired: managed in its
   * layout, of its format's kind and, in Tally's layout, of its grouping.
   */
  public boolean owns(AggregateReport o) {
    if (!managed(o) || !o.ref().kind().equals(format.kindFor(o.ref().namespace()))) {
      return false;
    }
    return layout == ReportLayout.KYVERNO
        || groupingLabel.equals(o.labels().get(WireNames.GROUPING_LABEL));
  }
}
