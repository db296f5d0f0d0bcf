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
 * aggregator (what a diff may update and a resync delete) and by the adapter's writer (what it may
 * change at all).
 *
 * <p>An object is managed by an aggregator ({@link #managed}) when its {@code
 * app.kubernetes.io/managed-by} label is the layout's and, in Tally's layout, its input is the
 * aggregator's: its {@code tally.dev/input} label, the default input when it has none ({@link
 * ReportNames#inputOf}). Nothing else is ever changed or deleted: another input's aggregate is as
 * foreign as another tool's. Of those, an aggregator owns ({@link #owns}) the ones of its format's
 * kind and, in Tally's layout, of its grouping (the {@code tally.dev/grouping} label), so that
 * aggregators of different groupings never delete each other's. Kyverno's reports carry no grouping
 * or input label and are all per resource, so in Kyverno's layout every managed one of the format's
 * kind is the aggregator's, whatever its input: that layout has one writer per cluster, in place of
 * Kyverno's reports controller.
 */
public final class Ownership {
  private final ReportFormat format;
  private final ReportLayout layout;
  private final String input;
  private final String groupingLabel;

  private Ownership(ReportFormat format, ReportLayout layout, String input, String groupingId) {
    this.format = format;
    this.layout = layout;
    this.input = input;
    this.groupingLabel = ReportNames.sanitize(groupingId);
  }

  /** The rule of an aggregator configured with {@code config}. */
  public static Ownership of(AggregatorConfig config) {
    return new Ownership(
        config.format(),
        AggregatorConfig.layoutOf(config.grouping()),
        config.input(),
        config.grouping().id());
  }

  /**
   * Whether an object labelled {@code labels} (null: none) is managed by an aggregator of {@code
   * input} in {@code layout}: its managed-by label is {@link ReportLayout#managedBy()} and, in
   * Tally's layout, its input is {@code input}. What may be written over or deleted at all.
   */
  public static boolean managed(
      ReportLayout layout, String input, @Nullable Map<String, String> labels) {
    return layout.manages(labels)
        && (!layout.namesItsWriter() || input.equals(ReportNames.inputOf(labels)));
  }

  /** Whether {@code o} is managed by this aggregator: in its layout and of its input. */
  public boolean managed(AggregateReport o) {
    return managed(layout, input, o.labels());
  }

  /**
   * Whether {@code o} is this aggregator's, to delete when it is not desired: managed by it, of its
   * format's kind and, in Tally's layout, of its grouping.
   */
  public boolean owns(AggregateReport o) {
    if (!managed(o) || !o.ref().kind().equals(format.kindFor(o.ref().namespace()))) {
      return false;
    }
    return !layout.namesItsWriter()
        || groupingLabel.equals(o.labels().get(WireNames.GROUPING_LABEL));
  }

  /** The labels that mark what this aggregator manages, for messages. */
  @Override
  public String toString() {
    String managedBy = WireNames.MANAGED_BY_LABEL + "=" + layout.managedBy();
    if (!layout.namesItsWriter()) {
      return managedBy;
    }
    return managedBy
        + (input.equals(AggregatorConfig.DEFAULT_INPUT)
            ? ", no " + WireNames.INPUT_LABEL
            : ", " + WireNames.INPUT_LABEL + "=" + input);
  }
}
