package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.gatekeeper.GatekeeperInput;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.report.trivy.TrivyInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OptionsTest {
  /** Every flag the aggregator takes; the usage text must list each. */
  static final List<String> FLAGS =
      List.of(
          "--kubeconfig",
          "--context",
          "--input",
          "--intermediate-reports",
          "--adoption-grace",
          "--adoption-kinds",
          "--grouping",
          "--format",
          "--server-side-apply",
          "--leader-election",
          "--lease-name",
          "--lease-namespace",
          "--identity",
          "--lease-duration",
          "--renew-deadline",
          "--retry-period",
          "--http-port",
          "--flush-window",
          "--resync-period",
          "--qps",
          "--max-qps",
          "--burst",
          "--write-concurrency",
          "--shutdown-timeout",
          "--max-results",
          "--max-registers",
          "--max-tombstones",
          "--max-results-per-namespace",
          "--max-registers-per-namespace",
          "--max-producers-per-namespace",
          "--max-result-bytes",
          "--max-result-bytes-per-namespace",
          "--max-awaiting-adoption",
          "--max-awaiting-adoption-per-namespace",
          "--max-awaiting-delete",
          "--max-awaiting-delete-per-namespace",
          "--max-refused-copies",
          "--max-refused-copies-per-namespace",
          "--min-resync-interval",
          "--help");

  @Test
  void helpIsRecognisedAndTheUsageListsEveryFlag() {
    assertThat(Options.parse("--help").help).isTrue();
    assertThat(Options.parse("-h").help).isTrue();
    // help wins over whatever else is wrong on the line
    assertThat(Options.parse("--grouping", "nope", "--help").help).isTrue();
    String usage = Options.usage();
    for (String flag : FLAGS) {
      assertThat(usage).as(flag).containsPattern("(?m)^  " + flag + "\\b");
    }
    assertThat(usage).contains("per-namespace-and-policy", "per-subject", "openreports");
  }

  @Test
  void theDefaults() {
    Options o = Options.parse();
    assertThat(o.help).isFalse();
    assertThat(o.kubeconfig).isNull();
    assertThat(o.groupingName).isEqualTo("per-namespace");
    assertThat(o.grouping.id()).isEqualTo("namespace");
    assertThat(o.format).isEqualTo(ReportFormat.WGPOLICY);
    assertThat(o.leaderElection).isTrue();
    assertThat(o.leaseName).isEqualTo("tally-aggregator");
    assertThat(o.leaseNamespace).isNull();
    assertThat(o.identity).isNull();
    assertThat(o.leaseDuration).isEqualTo(Duration.ofSeconds(15));
    assertThat(o.renewDeadline).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.retryPeriod).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.httpPort).isEqualTo(8080);
    assertThat(o.flushWindow).isEqualTo(Duration.ofMillis(500));
    assertThat(o.resyncPeriod).isEqualTo(Duration.ofMinutes(10));
    assertThat(o.qps).isEqualTo(20.0);
    assertThat(o.maxQps).as("the rate may grow to 300 by default").isEqualTo(300.0);
    assertThat(o.burst).isEqualTo(40);
    assertThat(o.serverSideApply).isFalse();
    assertThat(o.kyverno).isNull();
  }

  @Test
  void trivyInputReadsConfigAuditReportsPerNamespaceByDefault() {
    Options o = Options.parse("--input", "trivy");
    assertThat(o.reportInput).isInstanceOf(TrivyInput.class);
    assertThat(o.groupingName).isEqualTo("per-namespace");
    assertThat(o.kyverno).isNull();
  }

  @Test
  void gatekeeperInputReadsTheChartsExportDirectoryByDefaultAndItsFlagsOnlyWithIt() {
    Options o = Options.parse("--input", "gatekeeper");
    assertThat(o.reportInput).isInstanceOf(GatekeeperInput.class);
    GatekeeperInput g = (GatekeeperInput) o.reportInput;
    assertThat(g.exportDir()).isEqualTo(Path.of("/tmp/violations/topics/audit-channel"));
    assertThat(g.pollPeriod()).isEqualTo(Duration.ofSeconds(10));
    assertThat(g.lookupKinds()).isEqualTo(GatekeeperInput.DEFAULT_LOOKUP_KINDS);
    assertThat(o.groupingName).isEqualTo("per-namespace");

    GatekeeperInput set =
        (GatekeeperInput)
            Options.parse(
                    "--input=gatekeeper",
                    "--gatekeeper-export-dir=/export/audit",
                    "--gatekeeper-poll-period=2s",
                    "--gatekeeper-lookup-kinds=configmaps, deployments.apps")
                .reportInput;
    assertThat(set.exportDir()).isEqualTo(Path.of("/export/audit"));
    assertThat(set.pollPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(set.lookupKinds()).containsExactlyInAnyOrder("configmaps", "deployments.apps");

    assertThat(refusal("--gatekeeper-export-dir", "/x"))
        .isEqualTo("--gatekeeper-export-dir: applies only with --input gatekeeper");
    assertThat(refusal("--input", "gatekeeper", "--gatekeeper-poll-period", "0"))
        .startsWith("--gatekeeper-poll-period:");
    assertThat(refusal("--input", "gatekeeper", "--gatekeeper-lookup-kinds", "pods,,services"))
        .startsWith("--gatekeeper-lookup-kinds: an empty entry");
    assertThat(refusal("--input", "gatekeeper", "--gatekeeper-lookup-kinds", "Pods"))
        .startsWith("--gatekeeper-lookup-kinds: lookupKinds: 'Pods' is not");
  }

  /**
   * What {@code --input} (and the chart's {@code input}) takes is the input's name, which the
   * aggregator names as its input and, for any input but the default, writes into its aggregates'
   * names and {@code tally.dev/input} label.
   */
  @Test
  void eachInputIsNamedAsTheFlagNamesIt() {
    for (InputOption<?> input : Options.INPUTS) {
      assertThat(Options.parse("--input", input.name()).reportInput.name()).isEqualTo(input.name());
    }
    assertThat(Options.parse().reportInput.name()).isEqualTo(AggregatorConfig.DEFAULT_INPUT);
  }

  @Test
  void kyvernoInputDeletesMergedReportsAndWritesKyvernosLayoutByDefault() {
    Options o = Options.parse("--input", "kyverno");
    assertThat(o.kyverno).isNotNull();
    assertThat(o.kyverno.lifecycle()).isEqualTo(KyvernoInput.Lifecycle.DELETE_AFTER_MERGE);
    assertThat(o.kyverno.adoptionGrace()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.groupingName).isEqualTo("kyverno");
    assertThat(o.grouping.layout()).isEqualTo(ReportLayout.KYVERNO);

    Options keep =
        Options.parse(
            "--input=kyverno",
            "--intermediate-reports=keep",
            "--adoption-grace=30s",
            "--grouping=per-namespace");
    assertThat(keep.kyverno.lifecycle()).isEqualTo(KyvernoInput.Lifecycle.KEEP);
    assertThat(keep.kyverno.adoptionGrace()).isEqualTo(Duration.ofSeconds(30));
    assertThat(keep.grouping.id()).isEqualTo("namespace");
  }

  @Test
  void kyvernoFlagsAreRefusedNamingTheFlagAndTheReason() {
    assertThat(refusal("--input", "opa"))
        .isEqualTo("--input: unknown input 'opa', expected tally, kyverno, trivy or gatekeeper");
    assertThat(refusal("--intermediate-reports", "keep"))
        .isEqualTo("--intermediate-reports: applies only with --input kyverno");
    assertThat(refusal("--adoption-grace", "1m"))
        .isEqualTo("--adoption-grace: applies only with --input kyverno");
    assertThat(refusal("--input", "kyverno", "--intermediate-reports", "sometimes"))
        .isEqualTo(
            "--intermediate-reports: unknown lifecycle 'sometimes', expected delete or keep");
    assertThat(refusal("--input", "kyverno", "--grouping", "per-namespace"))
        .startsWith("--grouping: must be kyverno with --input kyverno and --intermediate-reports");
  }

  @Test
  void adoptionKindsDefaultToTheShippedRolesAndAreReadFromTheFlag() {
    assertThat(Options.parse("--input", "kyverno").kyverno.adoptionKinds())
        .isEqualTo(KyvernoInput.DEFAULT_ADOPTION_KINDS)
        .contains("pods", "deployments.apps", "jobs.batch", "namespaces")
        .doesNotContain("secrets");
    assertThat(
            Options.parse("--input=kyverno", "--adoption-kinds=pods, widgets.example.com")
                .kyverno
                .adoptionKinds())
        .containsExactlyInAnyOrder("pods", "widgets.example.com");
    assertThat(refusal("--adoption-kinds", "pods"))
        .isEqualTo("--adoption-kinds: applies only with --input kyverno");
    assertThat(refusal("--input=kyverno", "--adoption-kinds=pods,,services"))
        .startsWith("--adoption-kinds: an empty entry in 'pods,,services'");
    assertThat(refusal("--input=kyverno", "--adoption-kinds=Pods"))
        .startsWith("--adoption-kinds: adoptionKinds: 'Pods' is not a resource");
    assertThat(refusal("--input=kyverno", "--adoption-kinds=pods/exec"))
        .startsWith("--adoption-kinds: adoptionKinds: 'pods/exec' is not a resource");
  }

  private static String refusal(String... args) {
    return catchThrowableOfType(() -> Options.parse(args), Options.UsageException.class)
        .getMessage();
  }

  @Test
  void valuesFollowTheFlagOrAnEqualsSign(@TempDir Path dir) throws IOException {
    Path kubeconfig = Files.writeString(dir.resolve("config"), "apiVersion: v1\n");
    Options o =
        Options.parse(
            "--kubeconfig",
            kubeconfig.toString(),
            "--grouping=per-subject",
            "--format",
            "openreports",
            "--leader-election=false",
            "--server-side-apply",
            "--lease-namespace=ops",
            "--identity",
            "replica-a",
            "--lease-duration=4s",
            "--renew-deadline=3000ms",
            "--retry-period=PT0.3S",
            "--http-port=0",
            "--resync-period=0",
            "--qps=5.5",
            "--max-qps=50",
            "--burst=7",
            "--write-concurrency=3");
    assertThat(o.kubeconfig).isEqualTo(kubeconfig);
    assertThat(o.grouping.id()).isEqualTo("subject");
    assertThat(o.format).isEqualTo(ReportFormat.OPENREPORTS);
    assertThat(o.leaderElection).isFalse();
    assertThat(o.serverSideApply).isTrue();
    assertThat(o.leaseNamespace).isEqualTo("ops");
    assertThat(o.identity).isEqualTo("replica-a");
    assertThat(o.leaseDuration).isEqualTo(Duration.ofSeconds(4));
    assertThat(o.renewDeadline).isEqualTo(Duration.ofSeconds(3));
    assertThat(o.retryPeriod).isEqualTo(Duration.ofMillis(300));
    assertThat(o.httpPort).isZero();
    assertThat(o.resyncPeriod).isZero();
    assertThat(o.qps).isEqualTo(5.5);
    assertThat(o.maxQps).isEqualTo(50.0);
    assertThat(o.burst).isEqualTo(7);
    assertThat(o.writeConcurrency).isEqualTo(3);
    assertThat(Options.parse().writeConcurrency).as("the default").isEqualTo(8);
    assertThat(Options.parse("--qps=500").maxQps)
        .as("a starting rate above the default ceiling is the ceiling")
        .isEqualTo(500.0);
    assertThat(Options.parse("--grouping", "per-namespace-and-policy").grouping.id())
        .isEqualTo("policy");
  }

  @Test
  void anUnknownFlagIsNamed() {
    assertUsageError(
        new String[] {"--grouping=per-namespace", "--bogus", "1"}, "--bogus", "unknown flag");
    assertUsageError(new String[] {"--bogus=1"}, "--bogus", "unknown flag");
    assertUsageError(new String[] {"per-namespace"}, "per-namespace", "not a flag");
  }

  @Test
  void aBadValueNamesTheFlagAndTheReason() {
    assertUsageError(
        new String[] {"--grouping", "per-team"},
        "--grouping",
        "unknown grouping 'per-team', expected one of [per-namespace, per-namespace-and-policy,"
            + " per-subject, kyverno]");
    assertUsageError(
        new String[] {"--format", "policyreports"},
        "--format",
        "unknown format 'policyreports', expected wgpolicy or openreports");
    assertUsageError(new String[] {"--http-port", "eighty"}, "--http-port", "not a number");
    assertUsageError(new String[] {"--http-port", "70000"}, "--http-port", "out of range");
    assertUsageError(new String[] {"--burst=0"}, "--burst", "out of range");
    assertUsageError(new String[] {"--write-concurrency=0"}, "--write-concurrency", "out of range");
    assertUsageError(
        new String[] {"--write-concurrency=65"}, "--write-concurrency", "out of range");
    assertUsageError(new String[] {"--qps=-1"}, "--qps", "out of range");
    assertUsageError(
        new String[] {"--qps=30", "--max-qps=10"}, "--max-qps", "must be at least --qps (30.0)");
    assertUsageError(new String[] {"--flush-window", "soon"}, "--flush-window", "not a duration");
    assertUsageError(new String[] {"--lease-duration=0"}, "--lease-duration", "more than zero");
    assertUsageError(
        new String[] {"--leader-election=maybe"}, "--leader-election", "expected true or false");
    assertUsageError(new String[] {"--identity="}, "--identity", "must not be empty");
    assertUsageError(
        new String[] {"--kubeconfig", "/no/such/kubeconfig"}, "--kubeconfig", "no such file");
    assertUsageError(
        new String[] {"--lease-duration=5s", "--renew-deadline=10s"},
        "--renew-deadline",
        "must be shorter than --lease-duration");
    assertUsageError(
        new String[] {"--retry-period=10s"},
        "--retry-period",
        "must be shorter than --renew-deadline");
  }

  @Test
  void aMissingValueOrARepeatedFlagIsNamed() {
    assertUsageError(new String[] {"--kubeconfig"}, "--kubeconfig", "needs a value");
    assertUsageError(
        new String[] {"--grouping", "--format", "openreports"}, "--grouping", "needs a value");
    assertUsageError(new String[] {"--qps=1", "--qps=2"}, "--qps", "given more than once");
  }

  private static void assertUsageError(String[] args, String flag, String reason) {
    var e = catchThrowableOfType(() -> Options.parse(args), Options.UsageException.class);
    assertThat(e).as(String.join(" ", args)).isNotNull();
    assertThat(e.flag()).isEqualTo(flag);
    assertThat(e.getMessage()).startsWith(flag + ": ").contains(reason);
  }

  @Test
  void theCapsHaveTheLibrarysDefaultsAndFlagsOfTheirOwn() {
    Options o = Options.parse();
    assertThat(o.caps).isEqualTo(dev.tally.report.api.InputCaps.defaults());
    assertThat(o.minResyncInterval).isEqualTo(Duration.ofSeconds(30));

    Options set =
        Options.parse(
            "--max-results", "100000",
            "--max-registers", "200000",
            "--max-tombstones", "5000",
            "--max-results-per-namespace", "10000",
            "--max-registers-per-namespace", "20000",
            "--max-producers-per-namespace", "50",
            "--max-result-bytes", "1000000",
            "--max-result-bytes-per-namespace", "250000",
            "--min-resync-interval", "1m");
    assertThat(set.caps.maxResults()).isEqualTo(100_000);
    assertThat(set.caps.maxRegisters()).isEqualTo(200_000);
    assertThat(set.caps.maxTombstones()).isEqualTo(5_000);
    assertThat(set.caps.maxResultsPerNamespace()).isEqualTo(10_000);
    assertThat(set.caps.maxRegistersPerNamespace()).isEqualTo(20_000);
    assertThat(set.caps.maxProducersPerNamespace()).isEqualTo(50);
    assertThat(set.caps.maxResultBytes()).isEqualTo(1_000_000);
    assertThat(set.caps.maxResultBytesPerNamespace()).isEqualTo(250_000);
    assertThat(set.minResyncInterval).isEqualTo(Duration.ofMinutes(1));

    Options kyverno =
        Options.parse(
            "--input", "kyverno",
            "--max-awaiting-adoption", "300",
            "--max-awaiting-adoption-per-namespace", "20");
    assertThat(kyverno.kyverno.maxAwaitingAdoption()).isEqualTo(300);
    assertThat(kyverno.kyverno.maxAwaitingAdoptionPerNamespace()).isEqualTo(20);
    Options deletes =
        Options.parse(
            "--input", "kyverno",
            "--max-awaiting-delete", "500",
            "--max-awaiting-delete-per-namespace", "50");
    assertThat(deletes.kyverno.maxAwaitingDelete()).isEqualTo(500);
    assertThat(deletes.kyverno.maxAwaitingDeletePerNamespace()).isEqualTo(50);
    Options copies =
        Options.parse("--max-refused-copies", "700", "--max-refused-copies-per-namespace", "7");
    assertThat(copies.maxRefusedCopies).isEqualTo(700);
    assertThat(copies.maxRefusedCopiesPerNamespace).isEqualTo(7);
    assertThat(Options.parse().maxRefusedCopies).isEqualTo(20_000);

    assertThat(refusal("--max-results", "0"))
        .isEqualTo("--max-results: out of range [1, 9223372036854775807]: 0");
    assertThat(refusal("--max-awaiting-adoption", "10"))
        .isEqualTo("--max-awaiting-adoption: applies only with --input kyverno");
    assertThat(refusal("--max-awaiting-delete", "10"))
        .isEqualTo("--max-awaiting-delete: applies only with --input kyverno");
  }
}
