package dev.tally.aggregator;

import dev.tally.aggregator.log.LogFormat;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.report.trivy.TrivyInput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * The command line of the aggregator: every flag, its default and its check. {@link #parse} turns
 * arguments into options or throws a {@link UsageException} whose message names the flag and what
 * is wrong with it; {@link #usage()} is the text {@code --help} prints.
 *
 * <p>Flags take their value as the next argument or after {@code =}; a boolean flag alone means
 * true ({@code --server-side-apply}), and takes {@code =true} or {@code =false}.
 *
 * <p>This class is the assembly: the flags come in groups, each a class of its own with its flags,
 * their defaults and their parsing ({@link ClusterOptions}, the inputs ({@link #INPUTS}), {@link
 * LayoutOptions}, {@link LeaseOptions}, {@link HealthOptions}, {@link TimingOptions}, {@link
 * BudgetOptions}, {@link CapsOptions}, {@link LogOptions}); the reading of a command line is {@link
 * FlagValues}.
 */
public final class Options {
  /**
   * The inputs {@code --input} chooses from, the first the default: where an input is added, one
   * line each (an {@link InputOption}: its name, its flags, the settings it makes of them).
   */
  static final List<InputOption<?>> INPUTS =
      List.of(
          InputOption.TALLY,
          KyvernoInputOption.INPUT,
          InputOption.of("trivy", "trivy-operator's ConfigAuditReports", TrivyInput::new),
          GatekeeperInputOption.INPUT);

  private static final Flag HELP = Flag.bool("--help", "print this text and exit");

  /** Every flag, in the order the usage text lists them. */
  private static final List<Flag> FLAGS =
      Stream.of(
              ClusterOptions.FLAGS,
              InputOption.flags(INPUTS),
              LayoutOptions.FLAGS,
              LeaseOptions.FLAGS,
              List.of(HealthOptions.HTTP_PORT),
              TimingOptions.WRITE_FLAGS,
              BudgetOptions.FLAGS,
              List.of(TimingOptions.SHUTDOWN_TIMEOUT),
              CapsOptions.STATE_FLAGS,
              InputOption.capFlags(INPUTS),
              CapsOptions.REFUSED_FLAGS,
              List.of(TimingOptions.MIN_RESYNC_INTERVAL),
              HealthOptions.PROBE_FLAGS,
              LogOptions.FLAGS,
              List.of(HELP))
          .flatMap(List::stream)
          .toList();

  final @Nullable Path kubeconfig;
  final @Nullable String context;
  final InputOption<?> input;
  final @Nullable KyvernoInput kyverno;

  /** What the controller reads, as the chosen input made it of its flags. */
  final ReportInput reportInput;

  /** The chosen input, for the log: its name, and its settings when it has flags. */
  final String inputDescription;

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
  final int writeConcurrency;
  final Duration shutdownTimeout;
  final InputCaps caps;
  final Duration minResyncInterval;
  final int maxRefusedCopies;
  final int maxRefusedCopiesPerNamespace;
  final LogFormat logFormat;
  final Level logLevel;
  final boolean help;

  private Options(FlagValues v) {
    help = v.bool("--help", false);
    ClusterOptions cluster = ClusterOptions.parse(v);
    kubeconfig = cluster.kubeconfig();
    context = cluster.context();
    InputOption.Chosen<?> chosen = InputOption.choose(INPUTS, v);
    input = chosen.input();
    kyverno = chosen.settingsOf(KyvernoInputOption.INPUT);
    reportInput = chosen.settings();
    inputDescription = chosen.describe();
    LayoutOptions layout = LayoutOptions.parse(v, chosen);
    groupingName = layout.groupingName();
    grouping = layout.grouping();
    format = layout.format();
    serverSideApply = layout.serverSideApply();
    LeaseOptions lease = LeaseOptions.parse(v);
    leaderElection = lease.leaderElection();
    leaseName = lease.leaseName();
    leaseNamespace = lease.leaseNamespace();
    identity = lease.identity();
    leaseDuration = lease.leaseDuration();
    renewDeadline = lease.renewDeadline();
    retryPeriod = lease.retryPeriod();
    HealthOptions health = HealthOptions.parse(v);
    httpPort = health.httpPort();
    stallBound = health.stallBound();
    maxStaleness = health.maxStaleness();
    httpRequestTimeout = health.httpRequestTimeout();
    TimingOptions timing = TimingOptions.parse(v);
    flushWindow = timing.flushWindow();
    resyncPeriod = timing.resyncPeriod();
    maxClockSkew = timing.maxClockSkew();
    shutdownTimeout = timing.shutdownTimeout();
    minResyncInterval = timing.minResyncInterval();
    BudgetOptions budget = BudgetOptions.parse(v);
    qps = budget.qps();
    maxQps = budget.maxQps();
    burst = budget.burst();
    writeConcurrency = budget.writeConcurrency();
    CapsOptions capsOptions = CapsOptions.parse(v);
    caps = capsOptions.caps();
    maxRefusedCopies = capsOptions.maxRefusedCopies();
    maxRefusedCopiesPerNamespace = capsOptions.maxRefusedCopiesPerNamespace();
    LogOptions log = LogOptions.parse(v);
    logFormat = log.format();
    logLevel = log.level();
  }

  /**
   * Reads the command line.
   *
   * @throws UsageException naming the flag and the reason, for an unknown flag, a missing value or
   *     a value the flag does not take
   */
  public static Options parse(String... args) {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      // help wins over whatever else is wrong
      return new Options(FlagValues.of(Map.of("--help", "true")));
    }
    return new Options(FlagValues.read(FLAGS, args));
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
    FLAGS.forEach(f -> f.appendUsage(out));
    return out.toString();
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
