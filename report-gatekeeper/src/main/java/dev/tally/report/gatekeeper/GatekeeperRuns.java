package dev.tally.report.gatekeeper;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.input.StatementSource;
import dev.tally.report.fabric8.internal.RateLimitedLog;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.gatekeeper.AuditRun;
import dev.tally.report.merge.gatekeeper.ConstraintAudits;
import dev.tally.report.merge.gatekeeper.ExportLine;
import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Gatekeeper input's statements: at each poll, the newest finished run of the export's
 * directory, stated by report-merge's rule ({@link GatekeeperMapping#statements}) against what the
 * aggregator holds, with the constraints {@link ConstraintAudits} confirms from their statuses and
 * the uids the shared adoption service reads. A run is stated once, and again while more of its
 * constraints come to be confirmed (Gatekeeper writes the statuses around the time the file is
 * finished); a file that is not a finished run (still written, cut short, unreadable) is logged
 * once and states nothing, and the finished run before it is the newest. A resource that still
 * exists loses a confirmed constraint's result only once two runs in a row omitted it (Gatekeeper's
 * audit finishes a run that could not list a kind as if it had).
 *
 * <p>What cannot be read now is read again at a later poll: the directory or the templates' list
 * (nothing of the run is stated), one kind's constraints (none of them is confirmed), one uid (that
 * resource is withheld), one file (the run before it is read). Confined to the aggregator thread.
 */
final class GatekeeperRuns implements StatementSource {
  private static final Logger LOG = LoggerFactory.getLogger(GatekeeperRuns.class);

  /** At most this many files not finished are remembered, so as to log and read each once. */
  private static final int MAX_NOTED = 1000;

  private final GatekeeperExport export;
  private final Duration period;
  private final InputContext context;
  private final ResourceLookups lookups;
  private final RateLimitedLog rateLimited;

  /**
   * What the constraints' statuses said over time, kept across terms (they are the cluster's
   * facts): which constraints a run is known to have audited.
   */
  private final ConstraintAudits audits = new ConstraintAudits();

  /**
   * The run (id and ordinal) whose statements' omissions {@link #omitted} are; empty before the
   * first.
   */
  private String omissionsOf = "";

  /** What the run {@link #omissionsOf} omitted (its latest statement). */
  private GatekeeperMapping.Omissions omitted = GatekeeperMapping.Omissions.NONE;

  /** What the run before {@link #omissionsOf} omitted. */
  private GatekeeperMapping.Omissions omittedBefore = GatekeeperMapping.Omissions.NONE;

  /** The run stated last in this term, or null. */
  private @Nullable Stated stated;

  /** Files that held no finished run, as they were then: read again only once they changed. */
  private final Map<Path, FileVersion> notFinished = new HashMap<>();

  /** What was stated last: the run, the constraints it confirmed, and whether more may come. */
  private record Stated(
      Path file,
      FileVersion version,
      String id,
      int ordinal,
      Set<String> confirmed,
      boolean final_) {}

  /**
   * A file's size and modification time: the driver renames a run's {@code .txt} over the {@code
   * .log} of the same name, so a second run started in the same second replaces the first's file.
   */
  private record FileVersion(long size, long modifiedNanos) {
    static FileVersion of(Path f) {
      try {
        return new FileVersion(
            Files.size(f),
            Files.getLastModifiedTime(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                .to(java.util.concurrent.TimeUnit.NANOSECONDS));
      } catch (IOException e) {
        return new FileVersion(-1, -1);
      }
    }
  }

  GatekeeperRuns(GatekeeperInput settings, InputContext context) {
    this.export = new GatekeeperExport(settings.exportDir());
    this.period = settings.pollPeriod();
    this.context = context;
    this.lookups = new ResourceLookups(context.client(), context.calls(), settings.lookupKinds());
    this.rateLimited = new RateLimitedLog(LOG, context.clock(), Duration.ofMinutes(5));
  }

  @Override
  public Duration period() {
    return period;
  }

  @Override
  public void termEnded() {
    // what the runs omitted is kept, as the constraints' audits are: facts about the runs
    stated = null;
    lookups.clear();
  }

  @Override
  public List<PartialReport> poll(Supplier<List<AggregateReport>> held) {
    Stated last = stated;
    List<Path> files;
    try {
      files = export.finishedFiles();
    } catch (IOException e) {
      rateLimited.warn("list", "cannot list {}: {}", export.channel(), e.toString());
      return List.of();
    }
    if (last != null
        && !files.isEmpty()
        && files.get(files.size() - 1).equals(last.file())
        && FileVersion.of(last.file()).equals(last.version())
        && last.final_()) {
      return List.of(); // the newest run was stated, with every constraint it can confirm
    }
    Path file = null;
    FileVersion version = null;
    AuditRun.Finished run = null;
    for (int i = files.size() - 1; i >= 0 && run == null; i--) {
      Path f = files.get(i);
      if (last != null && f.compareTo(last.file()) < 0) {
        break; // older than the run stated: superseded
      }
      FileVersion seen = FileVersion.of(f);
      if (seen.equals(notFinished.get(f))) {
        continue;
      }
      AuditRun read;
      try {
        read = GatekeeperExport.read(f);
      } catch (IOException e) {
        // one file that cannot be read keeps no other from being read; read again next poll
        rateLimited.warn("read " + f, "{} cannot be read: {}", f.getFileName(), e.toString());
        continue;
      }
      if (read instanceof AuditRun.Finished finished) {
        file = f;
        version = seen;
        run = finished;
      } else {
        noteNotFinished(f, seen, read);
      }
    }
    if (run == null || file == null || version == null) {
      return List.of();
    }
    if (last != null && last.id().equals(run.id()) && !last.version().equals(version)) {
      // the file of the run stated was replaced by a run started in the same second: it comes
      // after, so it outranks the one stated (the two would otherwise tie)
      run =
          new AuditRun.Finished(
              run.id(),
              run.started(),
              Math.max(run.ordinal(), last.ordinal() + 1),
              run.violations());
    }

    ConstraintStatuses.Listed stamps;
    try {
      stamps = ConstraintStatuses.auditTimestamps(context.client(), context.calls());
    } catch (KubernetesClientException e) {
      rateLimited.warn(
          "constraints",
          "run {} is not stated: the constraints' statuses cannot be read: {}",
          run.id(),
          RequestFailedException.rootCause(e));
      return List.of();
    }
    stamps
        .unlisted()
        .forEach(
            (kind, reason) ->
                rateLimited.warn(
                    "unlisted " + kind,
                    "the constraints of kind {} cannot be listed: {}; none of them is confirmed",
                    kind,
                    reason));
    audits.observe(stamps.stamps(), stamps.unlisted().keySet());
    List<AggregateReport> before = held.get();
    Set<String> confirmed = audits.confirmed(run, before);
    boolean final_ = audits.settled(run);
    if (last != null
        && last.file().equals(file)
        && last.version().equals(version)
        && last.id().equals(run.id())
        && last.ordinal() == run.ordinal()
        && !(confirmed.containsAll(last.confirmed()) && !confirmed.equals(last.confirmed()))) {
      // the run stated: stated again only when more of its constraints are confirmed (when the
      // statuses moved on to a later run, fewer are, and that later run is read once finished)
      stated =
          new Stated(
              file,
              version,
              run.id(),
              run.ordinal(),
              last.confirmed(),
              final_ || !confirmed.containsAll(last.confirmed()));
      return List.of();
    }

    // a retraction waits for a second run in a row to omit it: what the run before this one (not an
    // earlier statement of this one) omitted
    String runKey = run.id() + "#" + run.ordinal();
    boolean sameRun = runKey.equals(omissionsOf);
    GatekeeperMapping.Omissions previous = sameRun ? omittedBefore : omitted;
    GatekeeperMapping.Statements statements =
        GatekeeperMapping.statements(run, before, confirmed, uids(run.violations()), previous);
    if (!sameRun) {
      omittedBefore = omitted;
      omissionsOf = runKey;
      omitted = statements.omitted();
    } else {
      // a later statement of the same run confirms more: what it omitted adds to what it had
      omitted = omitted.and(statements.omitted());
    }
    for (GatekeeperMapping.Refusal refused : statements.refused()) {
      rateLimited.warn(
          "refused " + refused.resource(),
          "run {}: nothing is stated of {}: {}",
          run.id(),
          refused.resource(),
          refused.reason());
    }
    stated = new Stated(file, version, run.id(), run.ordinal(), confirmed, final_);
    LOG.info(
        "run {}: {} violations, {} of {} constraints audited, {} resources stated",
        run.id(),
        run.violations().size(),
        confirmed.size(),
        stamps.stamps().size(),
        statements.reports().size());
    return statements.reports();
  }

  /** A file that holds no finished run: logged once while it stays as it is. */
  private void noteNotFinished(Path f, FileVersion seen, AuditRun read) {
    if (notFinished.size() >= MAX_NOTED) {
      notFinished.clear();
    }
    notFinished.put(f, seen);
    if (read instanceof AuditRun.Invalid invalid) {
      LOG.warn(
          "{} states nothing: line {}{}: {}",
          f.getFileName(),
          invalid.line(),
          invalid.field().isEmpty() ? "" : ", field " + invalid.field(),
          invalid.reason());
    } else if (read instanceof AuditRun.Unfinished unfinished) {
      LOG.info("{} states nothing yet: {}", f.getFileName(), unfinished.reason());
    }
  }

  /**
   * The uid each resource has now: those the run names read first, one metadata LIST per kind and
   * namespace naming several (one GET for one), others (held resources the run no longer names) one
   * GET each when asked.
   */
  private java.util.function.Function<Subject, Optional<String>> uids(List<ExportLine> violations) {
    Map<String, List<Subject>> byCollection = new TreeMap<>();
    Set<Subject> seen = new java.util.HashSet<>();
    for (ExportLine v : violations) {
      Subject s;
      try {
        s = GatekeeperMapping.resource(v);
      } catch (InvalidReportException e) {
        continue; // the rule refuses it
      }
      if (seen.add(s)) {
        byCollection
            .computeIfAbsent(
                s.apiVersion() + " " + s.kind() + " " + s.namespace(), k -> new ArrayList<>())
            .add(s);
      }
    }
    Map<Subject, ResourceLookups.Outcome> known = new LinkedHashMap<>();
    for (List<Subject> collection : byCollection.values()) {
      if (collection.size() == 1) {
        known.put(collection.get(0), lookups.uidOf(collection.get(0), null));
      } else {
        known.putAll(lookups.uidsOf(collection));
      }
    }
    return subject -> {
      Subject named = subject.withUid("");
      ResourceLookups.Outcome outcome = known.computeIfAbsent(named, s -> lookups.uidOf(s, null));
      if (outcome instanceof ResourceLookups.Outcome.Found found) {
        return Optional.of(found.uid());
      }
      if (outcome instanceof ResourceLookups.Outcome.Failed failed) {
        context.metrics().resourceLookupFailed(TallyMetrics.Lookup.ADOPTION);
        throw new GatekeeperMapping.UnknownUid(
            "its uid cannot be read (" + failed.cause() + "); it is read again at the next run");
      }
      if (outcome instanceof ResourceLookups.Outcome.Skipped skipped) {
        context.metrics().resourceLookupSkipped(TallyMetrics.Lookup.ADOPTION);
        rateLimited.warn(
            "skipped " + skipped.resource(),
            "{} is not among the lookup kinds: its violations are not stated",
            skipped.resource());
        throw new GatekeeperMapping.UnknownUid(
            skipped.resource() + " is not among the lookup kinds");
      }
      return Optional.empty();
    };
  }
}
