package dev.tally.report.kyverno;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.InputServices;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.input.Statement;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Makes an {@link dev.tally.report.fabric8.AggregatorController} read Kyverno's intermediate
 * reports ({@code reports.kyverno.io/v1} {@code EphemeralReport} and {@code
 * ClusterEphemeralReport}) instead of Tally's partial reports: Tally then takes the place of
 * Kyverno's reports aggregation (docs/DESIGN.md, "Kyverno's intermediate reports").
 *
 * <p>What each report says is {@link dev.tally.report.merge.kyverno.KyvernoMapping}'s rule. What
 * happens to the reports afterwards is the {@link Lifecycle} ({@link IntermediateReports}); which
 * policies are live, {@link KyvernoPolicyWatch}. The settings here are a value: the controller
 * makes the moving parts from them.
 */
public final class KyvernoInput implements ReportInput {
  /** Where the jar holds {@link #rbacYaml()}. */
  public static final String RBAC = "META-INF/tally/rbac/kyverno-aggregator.yaml";

  /** What becomes of an intermediate report once it is merged. */
  public enum Lifecycle {
    /**
     * Kyverno's own behaviour, and the default: each report is deleted once what it said is written
     * (every write of the flush that followed it succeeded), so etcd holds only the reports not
     * merged yet. The aggregates are then the state: a rebuild seeds the aggregator from the
     * per-resource reports in the cluster, which must be in Kyverno's layout ({@code
     * Grouping.kyvernoPerResource()}). A resource is known to be deleted when its report vanished
     * (garbage collection) and the resource is gone.
     */
    DELETE_AFTER_MERGE,

    /**
     * The reports stay: they are the state, as Tally's own partial reports are, and a resource is
     * deleted when the last report about it is (garbage collection, through the owner reference
     * that adoption writes). Tally bounds nothing in etcd then; use it where something else removes
     * them, or to watch Tally beside Kyverno's own controller without changing anything. Any
     * grouping may be used.
     */
    KEEP
  }

  /**
   * The resources the aggregator reads by default: {@link ResourceLookups#DEFAULT_KINDS}, the kinds
   * Kyverno's policies commonly admit. The shipped ClusterRole {@code tally-kyverno-aggregator}
   * grants {@code get} on exactly these.
   */
  public static final Set<String> DEFAULT_ADOPTION_KINDS = ResourceLookups.DEFAULT_KINDS;

  /** Kyverno's namespaced intermediate reports, {@code reports.kyverno.io/v1} EphemeralReport. */
  public static final ResourceDefinitionContext EPHEMERAL = KyvernoReports.EPHEMERAL;

  /** Kyverno's cluster-scoped intermediate reports, ClusterEphemeralReport. */
  public static final ResourceDefinitionContext CLUSTER_EPHEMERAL =
      KyvernoReports.CLUSTER_EPHEMERAL;

  private final Lifecycle lifecycle;
  private final Duration adoptionGrace;
  private final Duration adoptionRetry;
  private final boolean watchPolicies;
  private final int maxAwaitingPerNamespace;
  private final int maxAwaiting;
  private final Set<String> adoptionKinds;
  private final int maxAwaitingDeletePerNamespace;
  private final int maxAwaitingDelete;

  private KyvernoInput(
      Lifecycle lifecycle, Duration adoptionGrace, Duration adoptionRetry, boolean watchPolicies) {
    this(
        lifecycle,
        adoptionGrace,
        adoptionRetry,
        watchPolicies,
        1_000,
        10_000,
        DEFAULT_ADOPTION_KINDS,
        10_000,
        100_000);
  }

  private KyvernoInput(
      Lifecycle lifecycle,
      Duration adoptionGrace,
      Duration adoptionRetry,
      boolean watchPolicies,
      int maxAwaitingPerNamespace,
      int maxAwaiting,
      Set<String> adoptionKinds,
      int maxAwaitingDeletePerNamespace,
      int maxAwaitingDelete) {
    this.lifecycle = lifecycle;
    this.adoptionGrace = adoptionGrace;
    this.adoptionRetry = adoptionRetry;
    this.watchPolicies = watchPolicies;
    this.maxAwaitingPerNamespace = maxAwaitingPerNamespace;
    this.maxAwaiting = maxAwaiting;
    this.adoptionKinds = adoptionKinds;
    this.maxAwaitingDeletePerNamespace = maxAwaitingDeletePerNamespace;
    this.maxAwaitingDelete = maxAwaitingDelete;
  }

  /**
   * Reads Kyverno's reports and deletes each once merged ({@link Lifecycle#DELETE_AFTER_MERGE}),
   * with a 2 minute adoption grace retried every 10 seconds, as Kyverno does.
   */
  public static KyvernoInput deleteAfterMerge() {
    return new KyvernoInput(
        Lifecycle.DELETE_AFTER_MERGE, Duration.ofMinutes(2), Duration.ofSeconds(10), true);
  }

  /** Reads Kyverno's reports and leaves them in place ({@link Lifecycle#KEEP}). */
  public static KyvernoInput keep() {
    return new KyvernoInput(Lifecycle.KEEP, Duration.ofMinutes(2), Duration.ofSeconds(10), true);
  }

  /**
   * How long an admission report about a resource with no uid yet (an object being created) waits
   * for its resource to appear; after that it is deleted, with a WARN line and {@code
   * TallyMetrics.inputObjectExpired()}. Kyverno's own controller waits 2 minutes.
   */
  public KyvernoInput withAdoptionGrace(Duration grace) {
    return new KyvernoInput(
        lifecycle,
        positive("adoptionGrace", grace),
        adoptionRetry,
        watchPolicies,
        maxAwaitingPerNamespace,
        maxAwaiting,
        adoptionKinds,
        maxAwaitingDeletePerNamespace,
        maxAwaitingDelete);
  }

  /** How often a report awaiting adoption looks for its resource again; 10 seconds by default. */
  public KyvernoInput withAdoptionRetry(Duration retry) {
    return new KyvernoInput(
        lifecycle,
        adoptionGrace,
        positive("adoptionRetry", retry),
        watchPolicies,
        maxAwaitingPerNamespace,
        maxAwaiting,
        adoptionKinds,
        maxAwaitingDeletePerNamespace,
        maxAwaitingDelete);
  }

  /**
   * Whether the controller watches Kyverno's policies (on by default): the results of a policy that
   * no longer exists leave the reports, as Kyverno's own aggregation drops them, and come back if
   * it does. It watches the policy kinds the server serves when the controller starts
   * (ClusterPolicy and Policy, the {@code policies.kyverno.io} kinds, Kubernetes' admission
   * policies) and sets the controller's liveness from them ({@code KyvernoPolicies.liveness}), so
   * it owns the liveness: a {@code setLiveness} of the caller's is replaced at the next change.
   * Results of sources whose kind is not installed, and of other scanners, always stay.
   */
  public KyvernoInput withPolicyWatch(boolean watch) {
    return new KyvernoInput(
        lifecycle,
        adoptionGrace,
        adoptionRetry,
        watch,
        maxAwaitingPerNamespace,
        maxAwaiting,
        adoptionKinds,
        maxAwaitingDeletePerNamespace,
        maxAwaitingDelete);
  }

  /**
   * Caps on the admission reports awaiting adoption, each of which the controller holds (a copy of
   * the object) and looks for with a GET every {@link #adoptionRetry()}: at most {@code
   * perNamespace} in one namespace and {@code total} in all (1,000 and 10,000 by default). A report
   * past a cap is rejected as a capacity rejection (a Warning Event naming the cap, {@code
   * TallyMetrics.capacityReached}) and left in the cluster, so that a namespace creating reports
   * about objects that never appear spends neither the memory nor the requests others need.
   */
  public KyvernoInput withMaxAwaitingAdoption(int perNamespace, int total) {
    if (perNamespace < 1 || total < 1) {
      throw new IllegalArgumentException(
          "maxAwaitingAdoption must be at least 1, was " + perNamespace + " and " + total);
    }
    return new KyvernoInput(
        lifecycle,
        adoptionGrace,
        adoptionRetry,
        watchPolicies,
        perNamespace,
        total,
        adoptionKinds,
        maxAwaitingDeletePerNamespace,
        maxAwaitingDelete);
  }

  /**
   * Caps on the reports merged and awaiting their delete ({@link Lifecycle#DELETE_AFTER_MERGE}):
   * each is remembered until the write after it lets it be deleted, at most {@code perNamespace} in
   * one namespace and {@code total} in all (10,000 and 100,000 by default). At a cap no more report
   * is merged until deletes catch up: back-pressure, never a drop. The report is rejected as a
   * capacity rejection (a Warning Event naming the cap, {@code TallyMetrics.capacityReached}) and
   * stays in the cluster; the next periodic re-list merges it when there is room.
   */
  public KyvernoInput withMaxAwaitingDelete(int perNamespace, int total) {
    if (perNamespace < 1 || total < 1) {
      throw new IllegalArgumentException(
          "maxAwaitingDelete must be at least 1, was " + perNamespace + " and " + total);
    }
    return new KyvernoInput(
        lifecycle,
        adoptionGrace,
        adoptionRetry,
        watchPolicies,
        maxAwaitingPerNamespace,
        maxAwaiting,
        adoptionKinds,
        perNamespace,
        total);
  }

  /** At most this many merged reports await their delete in one namespace. */
  public int maxAwaitingDeletePerNamespace() {
    return maxAwaitingDeletePerNamespace;
  }

  /** At most this many merged reports await their delete in all. */
  public int maxAwaitingDelete() {
    return maxAwaitingDelete;
  }

  /** At most this many reports await adoption in one namespace. */
  public int maxAwaitingAdoptionPerNamespace() {
    return maxAwaitingPerNamespace;
  }

  /** At most this many reports await adoption in all. */
  public int maxAwaitingAdoption() {
    return maxAwaiting;
  }

  /**
   * The resources the aggregator may read, by name and for their metadata only, to learn the uid of
   * what an admission report names (adoption) and whether the resource of a vanished report is
   * gone: each {@code <plural>} for the core group or {@code <plural>.<group>}, as {@code kubectl}
   * and RBAC name them ({@code pods}, {@code deployments.apps}, {@code widgets.example.com}).
   * {@link #DEFAULT_ADOPTION_KINDS} by default. A report about any other resource is never looked
   * up: it waits for its uid and is deleted after the adoption grace, with a WARN line naming the
   * kind and {@code TallyMetrics.resourceLookupSkipped}. The aggregator's role must grant {@code
   * get} on each of them (deploy/kyverno/README.md says how to extend both).
   *
   * @throws IllegalArgumentException naming the entry that is not a resource name
   */
  public KyvernoInput withAdoptionKinds(Set<String> kinds) {
    Set<String> checked = ResourceLookups.checkedKinds("adoptionKinds", kinds);
    return new KyvernoInput(
        lifecycle,
        adoptionGrace,
        adoptionRetry,
        watchPolicies,
        maxAwaitingPerNamespace,
        maxAwaiting,
        checked,
        maxAwaitingDeletePerNamespace,
        maxAwaitingDelete);
  }

  /** See {@link #withAdoptionKinds}. */
  public Set<String> adoptionKinds() {
    return adoptionKinds;
  }

  /** Whether {@code plural} of {@code group} ("" for the core group) may be read. */
  public boolean mayRead(String group, String plural) {
    return adoptionKinds.contains(group.isEmpty() ? plural : plural + "." + group);
  }

  /** Whether the controller watches Kyverno's policies, so that a deleted policy's results go. */
  public boolean watchesPolicies() {
    return watchPolicies;
  }

  public Lifecycle lifecycle() {
    return lifecycle;
  }

  public Duration adoptionGrace() {
    return adoptionGrace;
  }

  public Duration adoptionRetry() {
    return adoptionRetry;
  }

  @Override
  public String name() {
    return "kyverno";
  }

  @Override
  public List<InputKind> kinds(KubernetesClient client) {
    return KyvernoReports.kinds(client);
  }

  @Override
  public Statement decode(HasMetadata object) {
    return KyvernoReports.decode(object);
  }

  /**
   * Adoption of admission reports about a resource with no uid yet, in both lifecycles; with {@link
   * Lifecycle#DELETE_AFTER_MERGE} also the retirement of merged reports (deleted once what they
   * said is written), which makes the per-resource reports the state. One {@link
   * IntermediateReports} is both, so that a report is counted once against the caps whichever way
   * it waits.
   */
  @Override
  public InputServices services(InputContext context) {
    IntermediateReports reports = new IntermediateReports(this, context);
    return new InputServices(reports, reports.deletesAfterMerge() ? reports : null);
  }

  @Override
  public Optional<LivenessWatch> livenessWatch(KubernetesClient client, Consumer<Liveness> live) {
    return watchPolicies ? Optional.of(new KyvernoPolicyWatch(client, live)) : Optional.empty();
  }

  /**
   * @throws IllegalArgumentException if reports are to be deleted after merging and the aggregator
   *     does not write in Kyverno's layout
   */
  @Override
  public void checkAggregator(AggregatorConfig config) {
    if (lifecycle == Lifecycle.DELETE_AFTER_MERGE
        && config.grouping().layout() != ReportLayout.KYVERNO) {
      throw new IllegalArgumentException(
          "deleting Kyverno's intermediate reports after merging needs the aggregator to write"
              + " in Kyverno's layout (Grouping.kyvernoPerResource()): its reports are then the"
              + " state");
    }
  }

  private static Duration positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
    return d;
  }

  /** The longest wait between two lookups of one object after failures. */
  static final Duration MAX_LOOKUP_BACKOFF = Duration.ofMinutes(5);

  /**
   * The wait before the {@code failures}th lookup of one object's resource (adoption, or whether a
   * resource is gone): doubling from {@link #adoptionRetry()}, at most {@link #MAX_LOOKUP_BACKOFF}.
   */
  Duration lookupBackoff(int failures) {
    Duration wait = adoptionRetry;
    for (int i = 1; i < failures && wait.compareTo(MAX_LOOKUP_BACKOFF) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(MAX_LOOKUP_BACKOFF) > 0 ? MAX_LOOKUP_BACKOFF : wait;
  }

  /**
   * The ClusterRoles this input needs, shipped in the jar: {@code tally-kyverno-aggregator}, bound
   * cluster-wide, and {@code tally-kyverno-aggregator-lease} for leader election in the
   * aggregator's namespace; they read Kyverno's intermediate reports and write Kyverno's reports.
   */
  public static String rbacYaml() {
    return TallyResources.read(KyvernoInput.class, RBAC);
  }

  @Override
  public String toString() {
    return "KyvernoInput["
        + lifecycle
        + ", adoptionGrace="
        + adoptionGrace
        + (watchPolicies ? ", watching policies" : "")
        + "]";
  }
}
