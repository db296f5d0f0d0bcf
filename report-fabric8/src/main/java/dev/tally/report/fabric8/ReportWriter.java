package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Summary;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.ContentHash;
import dev.tally.report.merge.names.Ownership;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies ChangeSets to a cluster: create, update with a resourceVersion precondition, delete with
 * one (or server-side apply with Tally's field manager). Every request goes through the shared
 * budget and retry policy. The writer never modifies or deletes an object without {@code
 * app.kubernetes.io/managed-by: tally} (in Kyverno's layout, {@code kyverno}), nor, in Tally's
 * layout, another input's (report-merge's {@code Ownership.managed}).
 *
 * <p>It decides nothing about content: a conflict is reported back so the controller re-reads and
 * re-diffs. Not thread-safe: used from the controller's thread (the requests of one {@link #write}
 * may run on the requests' own threads, each on its own object).
 */
final class ReportWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ReportWriter.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final TallyMetrics metrics;
  private final boolean serverSideApply;

  /**
   * The resourceVersion last seen of each object Tally owns, for optimistic updates; written by the
   * requests of {@link #write}, which may run side by side (each on its own object).
   */
  private final Map<ReportRef, String> resourceVersions = new ConcurrentHashMap<>();

  /**
   * The layout whose {@code app.kubernetes.io/managed-by} value marks what this writer may change:
   * the aggregator's, set by each {@link #listOwned}, which begins every term.
   */
  private ReportLayout owner = ReportLayout.TALLY;

  /** The input whose aggregates this writer may change, in Tally's layout. */
  private final String input;

  ReportWriter(
      KubernetesClient client, ApiCalls calls, TallyMetrics metrics, boolean serverSideApply) {
    this(client, calls, metrics, serverSideApply, AggregatorConfig.DEFAULT_INPUT);
  }

  ReportWriter(
      KubernetesClient client,
      ApiCalls calls,
      TallyMetrics metrics,
      boolean serverSideApply,
      String input) {
    this.client = client;
    this.calls = calls;
    this.metrics = metrics;
    this.serverSideApply = serverSideApply;
    this.input = input;
  }

  /**
   * Writes the changes, started in order and as many at once as the requests' concurrency allows
   * (each change is its own object), checking {@code mayWrite} before each starts: once it says no
   * (the lease was lost), no more start; those already sent end first.
   */
  WriteOutcome write(ChangeSet changes, BooleanSupplier mayWrite) {
    List<Change> all = changes.changes();
    Verdict[] verdicts = new Verdict[all.size()];
    WriteFailure[] failures = new WriteFailure[all.size()];
    int started =
        calls.each(
            all.size(),
            mayWrite,
            i -> {
              Change change = all.get(i);
              try {
                verdicts[i] = write(change);
              } catch (KubernetesClientException e) {
                // the scheduler logs each object's trouble once; one line per attempt is for
                // debugging
                WriteFailure failure = WriteFailure.of(change.ref(), e);
                LOG.debug(
                    "writing {} failed with {}: {}",
                    change.ref(),
                    failure.code(),
                    failure.reason());
                failures[i] = failure;
              }
            });
    int written = 0;
    int suppressed = 0;
    List<ReportRef> conflicts = new ArrayList<>();
    List<WriteFailure> failed = new ArrayList<>();
    List<WriteFailure> parked = new ArrayList<>();
    List<ReportRef> refused = new ArrayList<>();
    for (int i = 0; i < started; i++) {
      ReportRef ref = all.get(i).ref();
      WriteFailure failure = failures[i];
      if (failure != null) {
        (failure.permanent() ? parked : failed).add(failure);
        continue;
      }
      switch (verdicts[i]) {
        case WRITTEN -> written++;
        case SUPPRESSED -> {
          suppressed++;
          metrics.noOpWriteSuppressed();
        }
        case CONFLICT -> {
          conflicts.add(ref);
          metrics.conflict(ref);
        }
        case REFUSED -> refused.add(ref);
      }
    }
    boolean stopped = started < all.size();
    if (stopped) {
      LOG.info("stopped writing: this replica may no longer write");
    }
    return new WriteOutcome(written, suppressed, conflicts, failed, parked, refused, stopped);
  }

  private Verdict write(Change change) {
    if (change instanceof Change.Create c) {
      return serverSideApply ? apply(c.report()) : create(c.report());
    } else if (change instanceof Change.Update u) {
      return serverSideApply ? apply(u.report()) : update(u.report());
    }
    return delete(change.ref());
  }

  /**
   * Every aggregate of the format that Tally owns in {@code layout} (it carries the layout's
   * managed-by label and, in Tally's layout, is of this writer's input), as the cluster holds it
   * now; from now on only such objects are changed. An owned object that does not decode is
   * returned with no results and no content hash, so that a diff rewrites it.
   */
  List<AggregateReport> listOwned(ReportFormat format, ReportLayout layout) {
    owner = layout;
    List<AggregateReport> out = new ArrayList<>();
    for (ReportKind kind : List.of(format.kindFor("any-namespace"), format.kindFor(""))) {
      List<? extends AggregateResource> items = listOwned(kind);
      for (AggregateResource item : items) {
        Optional<AggregateReport> report = observe(item);
        report.ifPresent(out::add);
      }
    }
    return out;
  }

  /**
   * The objects named by {@code refs} that Tally owns in the layout of the last {@link #listOwned},
   * as the cluster holds them now: one GET each, no LIST. An object absent or not Tally's is left
   * out, as {@link #listOwned} would leave it out.
   *
   * @throws KubernetesClientException if a GET failed for good
   */
  List<AggregateReport> readOwned(Collection<ReportRef> refs) {
    List<AggregateReport> out = new ArrayList<>();
    for (ReportRef ref : refs) {
      @Nullable AggregateResource item = get(ref);
      if (item == null || !owned(item)) {
        resourceVersions.remove(ref);
        continue;
      }
      observe(item).ifPresent(out::add);
    }
    return out;
  }

  private <T extends AggregateResource> List<T> listOwned(ReportKind kind) {
    @SuppressWarnings("unchecked")
    Class<T> type = (Class<T>) ReportCodec.resourceClass(kind);
    // another input's aggregates are left out by the server; the default input's carry no label
    // to select by, and the others' are left out by owned()
    boolean labelled = owner.namesItsWriter() && !input.equals(AggregatorConfig.DEFAULT_INPUT);
    return PagedList.all(
        calls,
        "list " + kind.plural(),
        options -> {
          var owned =
              client
                  .resources(type)
                  .inAnyNamespace()
                  .withLabel(WireNames.MANAGED_BY_LABEL, owner.managedBy());
          return (labelled ? owned.withLabel(WireNames.INPUT_LABEL, input) : owned).list(options);
        });
  }

  /** Forgets what it knew of resourceVersions, as after losing the lease. */
  void forget() {
    resourceVersions.clear();
  }

  private Optional<AggregateReport> observe(AggregateResource item) {
    if (!owned(item)) {
      return Optional.empty();
    }
    AggregateReport report;
    try {
      report = ReportCodec.decode(item);
    } catch (InvalidReportException e) {
      LogFields.about(LOG.atWarn(), item)
          .log("an owned report does not decode ({}); it will be rewritten", e.getMessage());
      var ref =
          new ReportRef(
              item.reportKind(),
              item.reportKind().namespaced() ? item.getMetadata().getNamespace() : "",
              item.getMetadata().getName());
      report =
          new AggregateReport(
              ref,
              item.getMetadata().getLabels(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              List.of(),
              Summary.EMPTY,
              "");
    }
    remember(report.ref(), item);
    return Optional.of(report);
  }

  private enum Verdict {
    WRITTEN,
    SUPPRESSED,
    CONFLICT,
    REFUSED
  }

  private Verdict create(AggregateReport report) {
    ReportRef ref = report.ref();
    try {
      AggregateResource created =
          calls.call("create " + ref, () -> client.resource(ReportCodec.encode(report)).create());
      remember(ref, created);
      metrics.write(WriteVerb.CREATE, ref);
      return Verdict.WRITTEN;
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // it exists already: ours with the same content is fine, anything else is a conflict
      @Nullable AggregateResource existing = get(ref);
      if (existing == null) {
        return Verdict.CONFLICT;
      }
      if (!owned(existing)) {
        return refuse(ref);
      }
      remember(ref, existing);
      return sameContent(existing, report) ? Verdict.SUPPRESSED : Verdict.CONFLICT;
    }
  }

  private Verdict update(AggregateReport report) {
    ReportRef ref = report.ref();
    String rv = resourceVersions.get(ref);
    if (rv == null) {
      @Nullable AggregateResource existing = get(ref);
      if (existing == null) {
        return Verdict.CONFLICT;
      }
      if (!owned(existing)) {
        return refuse(ref);
      }
      remember(ref, existing);
      if (sameContent(existing, report)) {
        return Verdict.SUPPRESSED;
      }
      rv = existing.getMetadata().getResourceVersion();
    }
    AggregateResource desired = ReportCodec.encode(report);
    desired.getMetadata().setResourceVersion(rv);
    try {
      // update() sends the resourceVersion: the server refuses with 409 if the object changed
      AggregateResource updated =
          calls.call("update " + ref, () -> client.resource(desired).update());
      remember(ref, updated);
      metrics.write(WriteVerb.UPDATE, ref);
      return Verdict.WRITTEN;
    } catch (KubernetesClientException e) {
      if (ApiCalls.changedMeanwhile(e)) {
        resourceVersions.remove(ref);
        return Verdict.CONFLICT;
      }
      throw e;
    }
  }

  /**
   * Server-side apply over the object as just read, with its resourceVersion as a precondition: the
   * server refuses with 409 if it changed since (the same guarantee as an update; a bare apply
   * would write over whatever is there, even a newer leader's write). An object that is not there
   * is applied without one (an apply cannot say "must not exist", and fabric8's create cannot name
   * Tally's field manager): the one window left is another writer creating it between the GET and
   * the apply.
   */
  private Verdict apply(AggregateReport report) {
    ReportRef ref = report.ref();
    @Nullable AggregateResource existing = get(ref);
    if (existing != null && !owned(existing)) {
      return refuse(ref);
    }
    if (existing != null && sameContent(existing, report)) {
      return Verdict.SUPPRESSED;
    }
    AggregateResource desired = ReportCodec.encode(report);
    if (existing != null) {
      desired.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
    }
    try {
      AggregateResource applied =
          calls.call(
              "apply " + ref,
              () ->
                  client
                      .resource(desired)
                      .fieldManager(WireNames.FIELD_MANAGER)
                      .forceConflicts()
                      .serverSideApply());
      remember(ref, applied);
      metrics.write(WriteVerb.APPLY, ref);
      return Verdict.WRITTEN;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Verdict.CONFLICT;
      }
      throw e;
    }
  }

  private Verdict delete(ReportRef ref) {
    String rv = resourceVersions.get(ref);
    if (rv == null) {
      @Nullable AggregateResource existing = get(ref);
      if (existing == null) {
        return Verdict.SUPPRESSED;
      }
      if (!owned(existing)) {
        return refuse(ref);
      }
      rv = existing.getMetadata().getResourceVersion();
    }
    String precondition = rv;
    try {
      // the precondition makes the server refuse if someone replaced the object meanwhile
      calls.call("delete " + ref, () -> resource(ref).lockResourceVersion(precondition).delete());
      resourceVersions.remove(ref);
      metrics.write(WriteVerb.DELETE, ref);
      return Verdict.WRITTEN;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        resourceVersions.remove(ref);
        return Verdict.SUPPRESSED;
      }
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        resourceVersions.remove(ref);
        return Verdict.CONFLICT;
      }
      throw e;
    }
  }

  private Verdict refuse(ReportRef ref) {
    LogFields.about(LOG.atWarn(), ref)
        .log(
            "the report exists and is not this aggregator's ({}={}{}); leaving it alone",
            WireNames.MANAGED_BY_LABEL,
            owner.managedBy(),
            owner.namesItsWriter() ? ", input " + input : "");
    resourceVersions.remove(ref);
    return Verdict.REFUSED;
  }

  private @Nullable AggregateResource get(ReportRef ref) {
    return calls.call("get " + ref, () -> resource(ref).get());
  }

  private Resource<? extends AggregateResource> resource(ReportRef ref) {
    var op = client.resources(ReportCodec.resourceClass(ref.kind()));
    return ref.kind().namespaced()
        ? op.inNamespace(ref.namespace()).withName(ref.name())
        : op.withName(ref.name());
  }

  private void remember(ReportRef ref, @Nullable HasMetadata written) {
    if (written != null && written.getMetadata() != null) {
      String rv = written.getMetadata().getResourceVersion();
      if (rv == null) {
        resourceVersions.remove(ref);
      } else {
        resourceVersions.put(ref, rv);
      }
    }
  }

  /** report-merge's ownership rule: the aggregator's resync decides by the same one. */
  private boolean owned(HasMetadata item) {
    return Ownership.managed(owner, input, item.getMetadata().getLabels());
  }

  /**
   * Whether {@code existing} already holds what {@code desired} states: its annotation is the
   * desired content hash and its content hashes to it (report-merge's {@link ContentHash} decides;
   * this only decodes). An object another hand changed while keeping the annotation is rewritten.
   */
  private static boolean sameContent(AggregateResource existing, AggregateReport desired) {
    var annotations = existing.getMetadata().getAnnotations();
    if (desired.contentHash().isEmpty()
        || annotations == null
        || !desired.contentHash().equals(annotations.get(WireNames.CONTENT_HASH_ANNOTATION))) {
      return false;
    }
    try {
      return ContentHash.isIntact(ReportCodec.decode(existing));
    } catch (InvalidReportException e) {
      return false; // it does not even decode: write it
    }
  }
}
