package dev.tally.aggregator;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.fabric8.kyverno.KyvernoInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The command line of the aggregator: every flag, its default and its check. {@link #parse} turns
 * arguments into options or throws a {@link UsageException} whose message names the flag and what
 * is wrong with it; {@link #usage()} is the text {@code --help} prints.
 *
 * <p>Flags take their value as the next argument or after {@code =}; a boolean flag alone means
 * true ({@code --server-side-apply}), and takes {@code =true} or {@code =false}.
 */
public final class Options {
  /** The groupings the library offers, by the name the flag takes. */
  static final Map<String, Grouping> GROUPINGS =
      Map.of(
          "per-namespace", Grouping.perNamespace(),
          "per-namespace-and-policy", Grouping.perNamespaceAndPolicy(),
          "per-subject", Grouping.perSubject(),
          "kyverno", Grouping.kyvernoPerResource());

  private static final List<String> GROUPING_NAMES =
      List.of("per-namespace", "per-namespace-and-policy", "per-subject", "kyverno");

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** A flag of the command line, for the usage text and the parser alike. */
  private record Flag(String name, @Nullable String value, String help, boolean bool) {}

  private static final List<Flag> FLAGS =
      List.of(
          new Flag(
              "--kubeconfig",
              "PATH",
              "kubeconfig to connect with; without it: $KUBECONFIG or ~/.kube/config, else the"
                  + " pod's service account (in-cluster)",
              false),
          new Flag(
              "--context",
              "NAME",
              "the kubeconfig context to use; default: its current-context",
              false),
          new Flag(
              "--input",
              "NAME",
              "what is aggregated: tally (Tally's PartialReports, the default) or kyverno"
                  + " (Kyverno's EphemeralReports and ClusterEphemeralReports, in place of"
                  + " Kyverno's reports aggregation)",
              false),
          new Flag(
              "--intermediate-reports",
              "WHAT",
              "with --input kyverno, what becomes of a merged report: delete (once what it said"
                  + " is written, as Kyverno does; the default) or keep",
              false),
          new Flag(
              "--adoption-grace",
              "DURATION",
              "with --input kyverno, how long an admission report waits for its resource to"
                  + " appear before it is deleted; default 2m",
              false),
          new Flag(
              "--adoption-kinds",
              "LIST",
              "with --input kyverno, the resources the aggregator may read (by name, metadata"
                  + " only) to adopt an admission report and to see whether a resource is gone,"
                  + " comma-separated, as <plural> or <plural>.<group>; default: "
                  + String.join(",", KyvernoInput.DEFAULT_ADOPTION_KINDS.stream().sorted().toList())
                  + ". Its role must grant get on each (deploy/kyverno/README.md)",
              false),
          new Flag(
              "--grouping",
              "NAME",
              "which aggregate results go to: per-namespace (one report per namespace, the"
                  + " default), per-namespace-and-policy, per-subject (one report per resource,"
                  + " owned by it), kyverno (one per resource in Kyverno's own layout: named by"
                  + " its uid, managed-by kyverno; the default with --input kyverno)",
              false),
          new Flag(
              "--format",
              "NAME",
              "the reports written: wgpolicy (wgpolicyk8s.io/v1alpha2 PolicyReport and"
                  + " ClusterPolicyReport, the default) or openreports (openreports.io/v1alpha1"
                  + " Report and ClusterReport)",
              false),
          new Flag(
              "--server-side-apply",
              null,
              "write with server-side apply (field manager tally) instead of update",
              true),
          new Flag(
              "--leader-election",
              null,
              "elect one writing replica with a Lease; on by default, --leader-election=false"
                  + " for a single replica",
              true),
          new Flag("--lease-name", "NAME", "the Lease's name; default tally-aggregator", false),
          new Flag(
              "--lease-namespace",
              "NS",
              "the Lease's namespace; default: the pod's namespace in a cluster, the kubeconfig"
                  + " context's namespace, else default",
              false),
          new Flag(
              "--identity",
              "ID",
              "this replica's name in the Lease; default: $POD_NAME, else the host name",
              false),
          new Flag("--lease-duration", "DURATION", "how long a Lease holds; default 15s", false),
          new Flag(
              "--renew-deadline",
              "DURATION",
              "how long the leader tries to renew before it stops writing; default 10s",
              false),
          new Flag(
              "--retry-period",
              "DURATION",
              "how often candidates try to acquire or renew; default 2s",
              false),
          new Flag(
              "--http-port",
              "PORT",
              "port of /healthz, /readyz and /metrics; default 8080, 0 for none",
              false),
          new Flag(
              "--flush-window",
              "DURATION",
              "how long changes are gathered before they are written; default 500ms",
              false),
          new Flag(
              "--resync-period",
              "DURATION",
              "how often everything is re-listed as a safety net; default 10m, 0 for never",
              false),
          new Flag(
              "--max-clock-skew",
              "DURATION",
              "how far ahead of this clock an evaluation may be; later ones are refused; default 5m",
              false),
          new Flag(
              "--qps",
              "N",
              "API requests per second to start at, all of Tally's; the rate grows while the API"
                  + " server answers and callers wait, and halves on 429; default 20",
              false),
          new Flag(
              "--max-qps",
              "N",
              "the most API requests per second the rate may grow to; equal to --qps for a fixed"
                  + " rate; default 300 (the fixed rate of Kyverno's reports controller), or --qps when that is higher",
              false),
          new Flag("--burst", "N", "API requests at once; default 40", false),
          new Flag(
              "--shutdown-timeout",
              "DURATION",
              "on SIGTERM, how long the last flush may take before it is abandoned; default 10s",
              false),
          new Flag(
              "--max-results",
              "N",
              "most results held in all; past it a partial report is refused; default 2000000",
              false),
          new Flag(
              "--max-registers",
              "N",
              "most registers (subject and policy, with results or without) held in all;"
                  + " default 4000000",
              false),
          new Flag(
              "--max-tombstones",
              "N",
              "most deleted subjects remembered; past it the oldest are forgotten early;"
                  + " default 1000000",
              false),
          new Flag(
              "--max-results-per-namespace",
              "N",
              "most results held for one namespace; default 500000",
              false),
          new Flag(
              "--max-registers-per-namespace",
              "N",
              "most registers held for one namespace; default 1000000",
              false),
          new Flag(
              "--max-producers-per-namespace",
              "N",
              "most producers holding results in one namespace; default 1000",
              false),
          new Flag(
              "--max-awaiting-adoption",
              "N",
              "with --input kyverno, most reports awaiting adoption in all; default 10000",
              false),
          new Flag(
              "--max-awaiting-adoption-per-namespace",
              "N",
              "with --input kyverno, most reports awaiting adoption in one namespace; default 1000",
              false),
          new Flag(
              "--max-awaiting-delete",
              "N",
              "with --input kyverno, most merged reports awaiting their delete in all; past it no"
                  + " more is merged until deletes catch up; default 100000",
              false),
          new Flag(
              "--max-awaiting-delete-per-namespace",
              "N",
              "with --input kyverno, most merged reports awaiting their delete in one namespace;"
                  + " default 10000",
              false),
          new Flag(
              "--max-refused-copies",
              "N",
              "most refused input objects the informers hold (each as its identity alone) in all;"
                  + " past it nothing is held for one; default 20000",
              false),
          new Flag(
              "--max-refused-copies-per-namespace",
              "N",
              "most refused input objects the informers hold in one namespace; default 1000",
              false),
          new Flag(
              "--min-resync-interval",
              "DURATION",
              "least time between two full resyncs that trouble asks for; default 30s",
              false),
          new Flag(
              "--stall-bound",
              "DURATION",
              "/healthz fails once a task of the aggregator thread has made no progress (no API"
                  + " request or backoff began) for this long, or the periodic resync has not run"
                  + " for --resync-period plus this; default 3m",
              false),
          new Flag(
              "--max-staleness",
              "DURATION",
              "/readyz fails on the leader once an input has waited this long without being"
                  + " written, or no resync succeeded for --resync-period plus this; default 5m,"
                  + " 0 for no bound",
              false),
          new Flag(
              "--http-request-timeout",
              "DURATION",
              "how long a client of /healthz, /readyz and /metrics may take to send its request"
                  + " and read the answer before it is disconnected; default 5s",
              false),
          new Flag("--help", null, "print this text and exit", true));

  final @Nullable Path kubeconfig;
  final @Nullable String context;
  final boolean kyvernoInput;
  final @Nullable KyvernoInput kyverno;
  final String groupingName;
  final Grouping grouping;
  final ReportFormat format;
  final boolean serverSideApply;
  final boolean leaderElection;
  final String leaseName;
  final @Nullable String leaseNamespace;
  final @Nullable String identity;
  final Duration leaseDuration;
  final Duration renewDeadline;
  final Duration retryPeriod;
  final int httpPort;
  final Duration flushWindow;
  final Duration resyncPeriod;
  final Duration maxClockSkew;
  final Duration stallBound;
  final Duration maxStaleness;
  final Duration httpRequestTimeout;
  final double qps;
  final double maxQps;
  final int burst;
  final Duration shutdownTimeout;
  final InputCaps caps;
  final Duration minResyncInterval;
  final int maxRefusedCopies;
  final int maxRefusedCopiesPerNamespace;
  final boolean help;

  private Options(Map<String, String> v) {
    help = bool(v, "--help", false);
    String kc = v.get("--kubeconfig");
    if (kc != null) {
      Path p = Path.of(kc);
      if (!Files.isRegularFile(p)) {
        throw new UsageException("--kubeconfig", "no such file: " + kc);
      }
      kubeconfig = p;
    } else {
      kubeconfig = null;
    }
    context = nonBlank(v, "--context");
    String in = v.getOrDefault("--input", "tally");
    kyvernoInput =
        switch (in) {
          case "tally" -> false;
          case "kyverno" -> true;
          default ->
              throw new UsageException(
                  "--input", "unknown input '" + in + "', expected tally or kyverno");
        };
    if (!kyvernoInput) {
      for (String flag :
          List.of(
              "--intermediate-reports",
              "--adoption-grace",
              "--max-awaiting-adoption",
              "--max-awaiting-adoption-per-namespace",
              "--adoption-kinds",
              "--max-awaiting-delete",
              "--max-awaiting-delete-per-namespace")) {
        if (v.containsKey(flag)) {
          throw new UsageException(flag, "applies only with --input kyverno");
        }
      }
    }
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
    if (v.containsKey("--adoption-grace")) {
      k = k.withAdoptionGrace(duration(v, "--adoption-grace", Duration.ofMinutes(2), false));
    }
    if (v.containsKey("--max-awaiting-adoption")
        || v.containsKey("--max-awaiting-adoption-per-namespace")) {
      k =
          k.withMaxAwaitingAdoption(
              number(
                  v,
                  "--max-awaiting-adoption-per-namespace",
                  k.maxAwaitingAdoptionPerNamespace(),
                  Integer::parseInt,
                  1,
                  Integer.MAX_VALUE),
              number(
                  v,
                  "--max-awaiting-adoption",
                  k.maxAwaitingAdoption(),
                  Integer::parseInt,
                  1,
                  Integer.MAX_VALUE));
    }
    if (v.containsKey("--adoption-kinds")) {
      String list = v.get("--adoption-kinds");
      java.util.Set<String> kinds = new java.util.LinkedHashSet<>();
      for (String kind : list.split(",", -1)) {
        if (kind.isBlank()) {
          throw new UsageException(
              "--adoption-kinds", "an empty entry in '" + list + "' (comma-separated resources)");
        }
        kinds.add(kind.trim());
      }
      try {
        k = k.withAdoptionKinds(kinds);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--adoption-kinds", e.getMessage());
      }
    }
    if (v.containsKey("--max-awaiting-delete")
        || v.containsKey("--max-awaiting-delete-per-namespace")) {
      k =
          k.withMaxAwaitingDelete(
              number(
                  v,
                  "--max-awaiting-delete-per-namespace",
                  k.maxAwaitingDeletePerNamespace(),
                  Integer::parseInt,
                  1,
                  Integer.MAX_VALUE),
              number(
                  v,
                  "--max-awaiting-delete",
                  k.maxAwaitingDelete(),
                  Integer::parseInt,
                  1,
                  Integer.MAX_VALUE));
    }
    kyverno = kyvernoInput ? k : null;
    groupingName = v.getOrDefault("--grouping", kyvernoInput ? "kyverno" : "per-namespace");
    Grouping g = GROUPINGS.get(groupingName);
    if (g == null) {
      throw new UsageException(
          "--grouping",
          "unknown grouping '" + groupingName + "', expected one of " + GROUPING_NAMES);
    }
    grouping = g;
    if (kyverno != null
        && kyverno.lifecycle() == KyvernoInput.Lifecycle.DELETE_AFTER_MERGE
        && !groupingName.equals("kyverno")) {
      throw new UsageException(
          "--grouping",
          "must be kyverno with --input kyverno and --intermediate-reports delete (the reports"
              + " are then the state), was '"
              + groupingName
              + "'");
    }
    String f = v.getOrDefault("--format", "wgpolicy");
    format =
        switch (f) {
          case "wgpolicy" -> ReportFormat.WGPOLICY;
          case "openreports" -> ReportFormat.OPENREPORTS;
          default ->
              throw new UsageException(
                  "--format", "unknown format '" + f + "', expected wgpolicy or openreports");
        };
    serverSideApply = bool(v, "--server-side-apply", false);
    leaderElection = bool(v, "--leader-election", true);
    leaseName = Optional.ofNullable(nonBlank(v, "--lease-name")).orElse("tally-aggregator");
    leaseNamespace = nonBlank(v, "--lease-namespace");
    identity = nonBlank(v, "--identity");
    leaseDuration = duration(v, "--lease-duration", Duration.ofSeconds(15), false);
    renewDeadline = duration(v, "--renew-deadline", Duration.ofSeconds(10), false);
    retryPeriod = duration(v, "--retry-period", Duration.ofSeconds(2), false);
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new UsageException(
          "--renew-deadline",
          "must be shorter than --lease-duration ("
              + text(renewDeadline)
              + " is not less than "
              + text(leaseDuration)
              + ")");
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new UsageException(
          "--retry-period",
          "must be shorter than --renew-deadline ("
              + text(retryPeriod)
              + " is not less than "
              + text(renewDeadline)
              + ")");
    }
    httpPort = number(v, "--http-port", 8080, Integer::parseInt, 0, 65535);
    flushWindow = duration(v, "--flush-window", Duration.ofMillis(500), true);
    resyncPeriod = duration(v, "--resync-period", Duration.ofMinutes(10), true);
    maxClockSkew = duration(v, "--max-clock-skew", Duration.ofMinutes(5), true);
    qps = number(v, "--qps", 20.0, Double::parseDouble, 0.001, 100_000.0);
    maxQps = number(v, "--max-qps", Math.max(300.0, qps), Double::parseDouble, 0.001, 100_000.0);
    if (maxQps < qps) {
      throw new UsageException("--max-qps", "must be at least --qps (" + qps + "), was " + maxQps);
    }
    burst = number(v, "--burst", 40, Integer::parseInt, 1, 100_000);
    shutdownTimeout = duration(v, "--shutdown-timeout", Duration.ofSeconds(10), true);
    InputCaps d = InputCaps.defaults();
    caps =
        d.withMaxResults(
                number(v, "--max-results", d.maxResults(), Long::parseLong, 1L, Long.MAX_VALUE))
            .withMaxRegisters(
                number(v, "--max-registers", d.maxRegisters(), Long::parseLong, 1L, Long.MAX_VALUE))
            .withMaxTombstones(
                number(
                    v,
                    "--max-tombstones",
                    d.maxTombstones(),
                    Integer::parseInt,
                    1,
                    Integer.MAX_VALUE))
            .withMaxResultsPerNamespace(
                number(
                    v,
                    "--max-results-per-namespace",
                    d.maxResultsPerNamespace(),
                    Integer::parseInt,
                    1,
                    Integer.MAX_VALUE))
            .withMaxRegistersPerNamespace(
                number(
                    v,
                    "--max-registers-per-namespace",
                    d.maxRegistersPerNamespace(),
                    Integer::parseInt,
                    1,
                    Integer.MAX_VALUE))
            .withMaxProducersPerNamespace(
                number(
                    v,
                    "--max-producers-per-namespace",
                    d.maxProducersPerNamespace(),
                    Integer::parseInt,
                    1,
                    Integer.MAX_VALUE));
    minResyncInterval = duration(v, "--min-resync-interval", Duration.ofSeconds(30), true);
    stallBound = duration(v, "--stall-bound", Duration.ofMinutes(3), false);
    maxStaleness = duration(v, "--max-staleness", Duration.ofMinutes(5), true);
    httpRequestTimeout = duration(v, "--http-request-timeout", Duration.ofSeconds(5), false);
    maxRefusedCopies =
        number(v, "--max-refused-copies", 20_000, Integer::parseInt, 1, Integer.MAX_VALUE);
    maxRefusedCopiesPerNamespace =
        number(
            v,
            "--max-refused-copies-per-namespace",
            1_000,
            Integer::parseInt,
            1,
            Integer.MAX_VALUE);
  }

  /**
   * Reads the command line.
   *
   * @throws UsageException naming the flag and the reason, for an unknown flag, a missing value or
   *     a value the flag does not take
   */
  public static Options parse(String... args) {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      return new Options(Map.of("--help", "true")); // help wins over whatever else is wrong
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new UsageException(arg, "not a flag (flags start with --; see --help)");
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      Flag flag = FLAGS.stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
      if (flag == null) {
        throw new UsageException(name, "unknown flag (see --help)");
      }
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (flag.bool()) {
        value = "true";
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value = args[++i];
      } else {
        throw new UsageException(name, "needs a value: " + name + " " + flag.value());
      }
      if (values.put(name, value) != null) {
        throw new UsageException(name, "given more than once");
      }
    }
    return new Options(values);
  }

  /** What {@code --help} prints: every flag with its value and default. */
  public static String usage() {
    StringBuilder out = new StringBuilder();
    out.append("Usage: java -jar tally-aggregator.jar [FLAGS]\n\n")
        .append("Aggregates Tally's partial reports (tally.dev PartialReport and")
        .append(" ClusterPartialReport)\ninto policy reports, or with --input kyverno Kyverno's")
        .append(" intermediate reports into\nKyverno's per-resource reports, as report-fabric8's")
        .append(" AggregatorController, with\nleader election, /healthz, /readyz and /metrics.")
        .append(" Exits 0 after SIGTERM, 2 for a bad\nflag, 1 when it cannot start (API server")
        .append(" unreachable, access refused).\n\n")
        .append("Flags (a value follows the flag or '='; DURATION is like 500ms, 15s, 10m,")
        .append(" 1h):\n");
    for (Flag f : FLAGS) {
      String head = "  " + f.name() + (f.value() == null ? "" : " " + f.value());
      out.append(head);
      out.append(head.length() >= 30 ? "\n" + " ".repeat(30) : " ".repeat(30 - head.length()));
      out.append(wrap(f.help(), 30, 100)).append('\n');
    }
    return out.toString();
  }

  private static String wrap(String text, int indent, int width) {
    StringBuilder out = new StringBuilder();
    int col = indent;
    for (String word : text.split(" ")) {
      if (col > indent && col + 1 + word.length() > width) {
        out.append('\n').append(" ".repeat(indent));
        col = indent;
      } else if (col > indent) {
        out.append(' ');
        col++;
      }
      out.append(word);
      col += word.length();
    }
    return out.toString();
  }

  private static @Nullable String nonBlank(Map<String, String> v, String flag) {
    String value = v.get(flag);
    if (value != null && value.isBlank()) {
      throw new UsageException(flag, "must not be empty");
    }
    return value;
  }

  private static boolean bool(Map<String, String> v, String flag, boolean otherwise) {
    String value = v.get(flag);
    if (value == null) {
      return otherwise;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new UsageException(flag, "expected true or false, was '" + value + "'");
    };
  }

  private static <N extends Comparable<N>> N number(
      Map<String, String> v, String flag, N otherwise, Function<String, N> parse, N min, N max) {
    String value = v.get(flag);
    if (value == null) {
      return otherwise;
    }
    N n;
    try {
      n = parse.apply(value.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(flag, "not a number: '" + value + "'");
    }
    if (n.compareTo(min) < 0 || n.compareTo(max) > 0) {
      throw new UsageException(flag, "out of range [" + min + ", " + max + "]: " + value);
    }
    return n;
  }

  /** {@code 500ms}, {@code 15s}, {@code 10m}, {@code 1h}, or ISO-8601 such as {@code PT15S}. */
  static Duration parseDuration(String flag, String value, boolean zeroAllowed) {
    Duration d;
    Matcher m = DURATION.matcher(value.trim());
    if (value.trim().equals("0")) {
      d = Duration.ZERO;
    } else if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new UsageException(flag, "too large: '" + value + "'");
      }
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } else {
      try {
        d = Duration.parse(value.trim());
      } catch (DateTimeParseException e) {
        throw new UsageException(
            flag, "not a duration: '" + value + "' (expected e.g. 500ms, 15s, 10m, 1h)");
      }
    }
    if (d.isNegative() || (d.isZero() && !zeroAllowed)) {
      throw new UsageException(flag, "must be more than zero, was '" + value + "'");
    }
    return d;
  }

  private static Duration duration(
      Map<String, String> v, String flag, Duration otherwise, boolean zeroAllowed) {
    String value = v.get(flag);
    return value == null ? otherwise : parseDuration(flag, value, zeroAllowed);
  }

  private static String text(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  /** A flag that is unknown, lacks its value or has a value it does not take. */
  public static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String flag;

    UsageException(String flag, String reason) {
      super(flag + ": " + reason);
      this.flag = flag;
    }

    /** The flag at fault, as written (without its value). */
    public String flag() {
      return flag;
    }
  }
}
