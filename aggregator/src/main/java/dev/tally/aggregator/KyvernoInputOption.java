package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import dev.tally.report.kyverno.KyvernoInput;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code --input kyverno}: Kyverno's intermediate reports in place of Kyverno's reports
 * aggregation, and the flags that apply only with it (what becomes of a merged report, adoption,
 * the caps of reports awaiting adoption or their delete), read into a {@link KyvernoInput}.
 *
 * <p>The Kyverno input's group of flags, one of {@link Options#INPUTS}; {@link Options} assembles
 * the groups into the command line.
 */
final class KyvernoInputOption extends InputOption<KyvernoInput> {
  static final KyvernoInputOption INPUT = new KyvernoInputOption();

  private static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--intermediate-reports",
              "WHAT",
              "with --input kyverno, what becomes of a merged report: delete (once what it said"
                  + " is written, as Kyverno does; the default) or keep"),
          Flag.of(
              "--adoption-grace",
              "DURATION",
              "with --input kyverno, how long an admission report waits for its resource to"
                  + " appear before it is deleted; default 2m"),
          Flag.of(
              "--adoption-kinds",
              "LIST",
              "with --input kyverno, the resources the aggregator may read (by name, metadata"
                  + " only) to adopt an admission report and to see whether a resource is gone,"
                  + " comma-separated, as <plural> or <plural>.<group>; default: "
                  + String.join(",", KyvernoInput.DEFAULT_ADOPTION_KINDS.stream().sorted().toList())
                  + ". Its role must grant get on each (deploy/kyverno/README.md)"));

  private static final List<Flag> CAP_FLAGS =
      List.of(
          Flag.of(
              "--max-awaiting-adoption",
              "N",
              "with --input kyverno, most reports awaiting adoption in all; default 10000"),
          Flag.of(
              "--max-awaiting-adoption-per-namespace",
              "N",
              "with --input kyverno, most reports awaiting adoption in one namespace; default 1000"),
          Flag.of(
              "--max-awaiting-delete",
              "N",
              "with --input kyverno, most merged reports awaiting their delete in all; past it no"
                  + " more is merged until deletes catch up; default 100000"),
          Flag.of(
              "--max-awaiting-delete-per-namespace",
              "N",
              "with --input kyverno, most merged reports awaiting their delete in one namespace;"
                  + " default 10000"));

  private KyvernoInputOption() {
    super(
        "kyverno",
        "Kyverno's EphemeralReports and ClusterEphemeralReports, in place of Kyverno's reports"
            + " aggregation");
  }

  @Override
  List<Flag> flags() {
    return FLAGS;
  }

  @Override
  List<Flag> capFlags() {
    return CAP_FLAGS;
  }

  /** Kyverno's own layout, the one a deleting lifecycle needs. */
  @Override
  String defaultGrouping() {
    return "kyverno";
  }

  @Override
  KyvernoInput read(FlagValues v) {
    String lifecycle = v.getOrDefault("--intermediate-reports", "delete");
    KyvernoInput k =
        switch (lifecycle) {
          case "delete" -> KyvernoInput.deleteAfterMerge();
          case "keep" -> KyvernoInput.keep();
          default ->
              throw new UsageException(
                  "--intermediate-reports",
                  "unknown lifecycle '" + lifecycle + "', expected delete or keep");
        };
    if (v.has("--adoption-grace")) {
      k = k.withAdoptionGrace(v.duration("--adoption-grace", Duration.ofMinutes(2), false));
    }
    if (v.has("--max-awaiting-adoption") || v.has("--max-awaiting-adoption-per-namespace")) {
      k =
          k.withMaxAwaitingAdoption(
              v.count("--max-awaiting-adoption-per-namespace", k.maxAwaitingAdoptionPerNamespace()),
              v.count("--max-awaiting-adoption", k.maxAwaitingAdoption()));
    }
    if (v.has("--adoption-kinds")) {
      k = withAdoptionKinds(k, v.getOrDefault("--adoption-kinds", ""));
    }
    if (v.has("--max-awaiting-delete") || v.has("--max-awaiting-delete-per-namespace")) {
      k =
          k.withMaxAwaitingDelete(
              v.count("--max-awaiting-delete-per-namespace", k.maxAwaitingDeletePerNamespace()),
              v.count("--max-awaiting-delete", k.maxAwaitingDelete()));
    }
    return k;
  }

  private static KyvernoInput withAdoptionKinds(KyvernoInput k, String list) {
    Set<String> kinds = resources("--adoption-kinds", list);
    try {
      return k.withAdoptionKinds(kinds);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--adoption-kinds", e.getMessage());
    }
  }

  /** Deleting the reports makes the aggregates the state, so they must be in Kyverno's layout. */
  @Override
  void checkGrouping(KyvernoInput k, String groupingName) {
    if (k.lifecycle() == KyvernoInput.Lifecycle.DELETE_AFTER_MERGE
        && !groupingName.equals("kyverno")) {
      throw new UsageException(
          "--grouping",
          "must be kyverno with --input kyverno and --intermediate-reports delete (the reports"
              + " are then the state), was '"
              + groupingName
              + "'");
    }
  }
}
