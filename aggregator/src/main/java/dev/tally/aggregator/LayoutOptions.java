package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportFormat;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flags of what the aggregator writes: the grouping (which report a result goes to, and the
 * layout), the report format, and how it writes.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 *
 * @param groupingName the grouping as {@code --grouping} names it
 */
record LayoutOptions(
    String groupingName, Grouping grouping, ReportFormat format, boolean serverSideApply) {
  /** The groupings the library offers, by the name the flag takes, in the order of the help. */
  static final Map<String, Grouping> GROUPINGS = groupings();

  static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--grouping",
              "NAME",
              "which aggregate results go to: per-namespace (one report per namespace, the"
                  + " default), per-namespace-and-policy, per-subject (one report per resource,"
                  + " owned by it), kyverno (one per resource in Kyverno's own layout: named by"
                  + " its uid, managed-by kyverno; the default with --input kyverno)"),
          Flag.of(
              "--format",
              "NAME",
              "the reports written: wgpolicy (wgpolicyk8s.io/v1alpha2 PolicyReport and"
                  + " ClusterPolicyReport, the default) or openreports (openreports.io/v1alpha1"
                  + " Report and ClusterReport)"),
          Flag.bool(
              "--server-side-apply",
              "write with server-side apply (field manager tally) instead of update"));

  private static Map<String, Grouping> groupings() {
    Map<String, Grouping> byName = new LinkedHashMap<>();
    byName.put("per-namespace", Grouping.perNamespace());
    byName.put("per-namespace-and-policy", Grouping.perNamespaceAndPolicy());
    byName.put("per-subject", Grouping.perSubject());
    byName.put("kyverno", Grouping.kyvernoPerResource());
    return Collections.unmodifiableMap(byName);
  }

  /** Reads the flags; the grouping's default and its check are the chosen {@code input}'s. */
  static LayoutOptions parse(FlagValues v, InputOption.Chosen<?> input) {
    String groupingName = v.getOrDefault("--grouping", input.input().defaultGrouping());
    Grouping grouping = GROUPINGS.get(groupingName);
    if (grouping == null) {
      throw new UsageException(
          "--grouping",
          "unknown grouping '"
              + groupingName
              + "', expected one of "
              + List.copyOf(GROUPINGS.keySet()));
    }
    input.checkGrouping(groupingName);
    String f = v.getOrDefault("--format", "wgpolicy");
    ReportFormat format;
    try {
      format = ReportFormat.named(f);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--format", e.getMessage());
    }
    return new LayoutOptions(groupingName, grouping, format, v.bool("--server-side-apply", false));
  }
}
