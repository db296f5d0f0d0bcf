package dev.tally.report.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.InputServices;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.input.Retirement;
import dev.tally.report.fabric8.input.StatementSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Gatekeeper's audit as an input: every violation of every finished run its {@code disk} export
 * driver wrote (not only the Constraint status's first 20), a result in the report of the violating
 * resource's namespace; a run that finished covers what it audited, so a violation fixed since is
 * retracted, and a run cut short states nothing. docs/DESIGN.md, "Gatekeeper's audit runs", gives
 * the rule (report-merge's {@code GatekeeperMapping}); this input reads.
 *
 * <ul>
 *   <li>Its statements come from files, not objects ({@link #statementSource}): the newest finished
 *       run of the channel's directory, read every {@link #pollPeriod}, applied once per run and
 *       again when more of its constraints are known audited (their status names the run).
 *   <li>Exports carry no uid: a violating resource's uid is read by the shared adoption service
 *       ({@link dev.tally.report.fabric8.input.ResourceLookups}, one metadata LIST per kind and
 *       namespace a run names), of the resources in {@link #lookupKinds} only, which the role must
 *       grant {@code get} and {@code list} on.
 *   <li>The aggregates are the state (its {@link Retirement}): the export's directory is emptied
 *       with its Pod, so a new term seeds from what the cluster holds and writes nothing until a
 *       run says otherwise. It deletes nothing: the driver cleans its own files.
 * </ul>
 *
 * <p>Immutable: each {@code with} method returns a copy.
 */
public final class GatekeeperInput implements ReportInput {
  /** Where the jar holds {@link #rbacYaml()}. */
  public static final String RBAC = "META-INF/tally/rbac/gatekeeper-aggregator.yaml";

  /**
   * The resources looked up by default: {@link ResourceLookups#DEFAULT_KINDS}, the kinds policies
   * commonly match; the shipped ClusterRole grants {@code get} and {@code list} on exactly these.
   */
  public static final Set<String> DEFAULT_LOOKUP_KINDS = ResourceLookups.DEFAULT_KINDS;

  /** How often the directory is read by default. */
  public static final Duration DEFAULT_POLL_PERIOD = Duration.ofSeconds(10);

  private final Path channel;
  private final Duration pollPeriod;
  private final Set<String> lookupKinds;

  private GatekeeperInput(Path channel, Duration pollPeriod, Set<String> lookupKinds) {
    this.channel = channel;
    this.pollPeriod = pollPeriod;
    this.lookupKinds = lookupKinds;
  }

  /**
   * Reads the runs in {@code channel}: the Connection's {@code path} joined with the audit's
   * channel ({@code <path>/audit-channel} with the chart's defaults). It need not exist yet:
   * Gatekeeper makes it at its first run.
   */
  public static GatekeeperInput reading(Path channel) {
    return new GatekeeperInput(
        InvalidReportException.requireNonNull("exportDir", channel),
        DEFAULT_POLL_PERIOD,
        DEFAULT_LOOKUP_KINDS);
  }

  /**
   * How often the directory is read for a new run (a listing of its names; the run is read only
   * when a new one finished).
   *
   * @throws IllegalArgumentException naming {@code pollPeriod} if not positive
   */
  public GatekeeperInput withPollPeriod(Duration period) {
    Objects.requireNonNull(period, "pollPeriod");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("pollPeriod: must be positive, was " + period);
    }
    return new GatekeeperInput(channel, period, lookupKinds);
  }

  /**
   * The resources whose uids may be read, as {@code <plural>} (core group) or {@code
   * <plural>.<group>}; a violation of another kind is not stated (its uid cannot be known), and
   * logged.
   *
   * @throws IllegalArgumentException naming {@code lookupKinds} and the entry at fault
   */
  public GatekeeperInput withLookupKinds(Set<String> kinds) {
    return new GatekeeperInput(
        channel, pollPeriod, ResourceLookups.checkedKinds("lookupKinds", kinds));
  }

  /** The channel's directory read. */
  public Path exportDir() {
    return channel;
  }

  public Duration pollPeriod() {
    return pollPeriod;
  }

  public Set<String> lookupKinds() {
    return lookupKinds;
  }

  @Override
  public String name() {
    return "gatekeeper";
  }

  /** None: every statement comes from the export's files. */
  @Override
  public List<InputKind> kinds(KubernetesClient client) {
    return List.of();
  }

  /**
   * Never called: the input reads no kind.
   *
   * @throws IllegalStateException always
   */
  @Override
  public dev.tally.report.fabric8.input.Statement decode(HasMetadata object) {
    throw new IllegalStateException("the gatekeeper input reads no object, was given " + object);
  }

  @Override
  public InputServices services(InputContext context) {
    return new InputServices(null, new GatekeeperRetirement(context));
  }

  @Override
  public Optional<StatementSource> statementSource(InputContext context) {
    return Optional.of(new GatekeeperRuns(this, context));
  }

  /**
   * Makes, once, a LIST of one ConstraintTemplate (whose constraints' statuses say which were
   * audited): what the role must grant for the input to retract anything.
   */
  @Override
  public void checkAccess(KubernetesClient client, Requests calls) {
    String what = "list constrainttemplates.templates.gatekeeper.sh";
    try {
      calls.call(
          what,
          () ->
              client
                  .genericKubernetesResources(ConstraintStatuses.TEMPLATES)
                  .list(new ListOptionsBuilder().withLimit(1L).build()));
    } catch (KubernetesClientException e) {
      throw new RequestFailedException(what, e);
    }
  }

  /**
   * The ClusterRoles this input needs, shipped in the jar: {@code tally-gatekeeper-aggregator},
   * bound cluster-wide (to the audit's ServiceAccount when it runs as its sidecar), and {@code
   * tally-gatekeeper-aggregator-lease} for leader election in the aggregator's namespace. Its
   * lookup rules grant {@link #DEFAULT_LOOKUP_KINDS}: other lookup kinds need rules of their own.
   */
  public static String rbacYaml() {
    return TallyResources.read(GatekeeperInput.class, RBAC);
  }

  @Override
  public String toString() {
    return "exportDir="
        + channel
        + ", pollPeriod="
        + pollPeriod
        + ", lookupKinds="
        + String.join(",", new TreeSet<>(lookupKinds));
  }
}
