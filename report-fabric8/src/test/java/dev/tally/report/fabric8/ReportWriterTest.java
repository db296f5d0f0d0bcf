package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Summary;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireSummary;
import dev.tally.report.merge.ContentHash;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The writer against the mock API server, with hand-made ChangeSets and injected faults. */
@EnableKubernetesMockClient(crud = true)
class ReportWriterTest {
  private static final String PATH =
      "/apis/wgpolicyk8s.io/v1alpha2/namespaces/team-a/policyreports";

  KubernetesMockServer server;
  KubernetesClient client;
  private final RecordingSleeper sleeper = new RecordingSleeper();
  private final CountingMetrics metrics = new CountingMetrics();
  private ReportWriter writer;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
    writer = writer(false);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  private ReportWriter writer(boolean serverSideApply) {
    return writer(serverSideApply, AggregatorConfig.DEFAULT_INPUT);
  }

  private ReportWriter writer(boolean serverSideApply, String input) {
    return writer(serverSideApply, input, 1);
  }

  private ReportWriter writer(boolean serverSideApply, String input, int concurrency) {
    var calls =
        new ApiCalls(
            new ApiBudget(1000, 1000, sleeper::nanos, sleeper),
            new RetryPolicy(
                5, Duration.ofMillis(100), Duration.ofSeconds(2), Duration.ofSeconds(30)),
            new Random(7),
            sleeper,
            metrics,
            concurrency);
    return new ReportWriter(client, calls, metrics, serverSideApply, input);
  }

  static AggregateReport report(String name, String hash, ResultStatus... statuses) {
    List<Result> results =
        java.util.Arrays.stream(statuses)
            .map(s -> Result.builder().source("kyverno").policy("p").rule("r").status(s).build())
            .toList();
    return new AggregateReport(
        new ReportRef(ReportKind.POLICY_REPORT, "team-a", name),
        Map.of(WireNames.MANAGED_BY_LABEL, "tally", WireNames.GROUP_LABEL, "g1"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        results,
        Summary.of(results),
        hash);
  }

  /** {@link #report} with the content hash of its content, as the aggregator writes it. */
  static AggregateReport hashed(String name, ResultStatus... statuses) {
    AggregateReport r = report(name, "", statuses);
    return r.withContentHash(ContentHash.of(r));
  }

  private PolicyReportResource read(String name) {
    return client.resources(PolicyReportResource.class).inNamespace("team-a").withName(name).get();
  }

  private WriteOutcome write(Change... changes) {
    return writer.write(new ChangeSet(List.of(changes)), () -> true);
  }

  private static Status status(int code, String reason, Integer retryAfter) {
    var b = new StatusBuilder().withCode(code).withReason(reason).withMessage(reason);
    if (retryAfter != null) {
      b.withNewDetails().withRetryAfterSeconds(retryAfter).endDetails();
    }
    return b.build();
  }

  @Test
  void createsUpdatesAndDeletesWithPreconditions() {
    assertThat(write(new Change.Create(report("r1", "h1", ResultStatus.FAIL))).complete()).isTrue();
    assertThat(read("r1").getMetadata().getAnnotations())
        .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, "h1");

    var update = new Change.Update(report("r1", "h2", ResultStatus.PASS, ResultStatus.PASS), "h1");
    assertThat(write(update).written()).isEqualTo(1);
    assertThat(read("r1").getSummary()).isEqualTo(new WireSummary(2L, 0L, 0L, 0L, 0L));

    assertThat(
            write(new Change.Delete(new ReportRef(ReportKind.POLICY_REPORT, "team-a", "r1"), "h2"))
                .written())
        .isEqualTo(1);
    assertThat(read("r1")).isNull();
    assertThat(metrics.writes)
        .containsEntry("create", 1)
        .containsEntry("update", 1)
        .containsEntry("delete", 1);
  }

  @Test
  void writesSideBySideSayWhatEachObjectDidAsOneAfterTheOtherWould() {
    // r0 to r2 exist; r1 changed behind the writer's back (its update conflicts); r9 is another's
    ReportWriter sideBySide = writer(false, AggregatorConfig.DEFAULT_INPUT, 4);
    for (int i = 0; i < 3; i++) {
      sideBySide.write(
          new ChangeSet(List.of(new Change.Create(report("r" + i, "h" + i, ResultStatus.FAIL)))),
          () -> true);
    }
    var changed = read("r1");
    changed.getMetadata().setAnnotations(Map.of("touched", "yes"));
    client.resource(changed).update();
    var foreign = ReportCodec.encode(report("r9", "x", ResultStatus.FAIL));
    foreign.getMetadata().setLabels(Map.of("app.kubernetes.io/managed-by", "kyverno"));
    client.resource(foreign).create();
    List<Change> changes = new java.util.ArrayList<>();
    changes.add(new Change.Update(report("r0", "n0", ResultStatus.PASS), "h0"));
    changes.add(new Change.Update(report("r1", "n1", ResultStatus.PASS), "h1"));
    changes.add(new Change.Delete(new ReportRef(ReportKind.POLICY_REPORT, "team-a", "r2"), "h2"));
    for (int i = 3; i < 9; i++) {
      changes.add(new Change.Create(report("r" + i, "n" + i, ResultStatus.PASS)));
    }
    changes.add(new Change.Update(report("r9", "n9", ResultStatus.PASS), "x"));

    WriteOutcome outcome = sideBySide.write(new ChangeSet(changes), () -> true);

    assertThat(outcome.complete()).isFalse();
    assertThat(outcome.stopped()).isFalse();
    assertThat(outcome.written()).as("r0, the delete of r2, r3 to r8").isEqualTo(8);
    assertThat(outcome.conflicts()).extracting(ReportRef::name).containsExactly("r1");
    assertThat(outcome.refused()).extracting(ReportRef::name).containsExactly("r9");
    assertThat(read("r0").getMetadata().getAnnotations())
        .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, "n0");
    assertThat(read("r1").getMetadata().getAnnotations()).containsEntry("touched", "yes");
    assertThat(read("r2")).isNull();
    for (int i = 3; i < 9; i++) {
      assertThat(read("r" + i).getMetadata().getAnnotations())
          .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, "n" + i);
    }
    assertThat(read("r9").getMetadata().getLabels())
        .containsEntry(WireNames.MANAGED_BY_LABEL, "kyverno");
  }

  @Test
  void sideBySideNoWriteStartsOnceItMayNoLongerWrite() {
    List<Change> changes = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      changes.add(new Change.Create(report("r" + i, "h" + i, ResultStatus.FAIL)));
    }
    var asked = new java.util.concurrent.atomic.AtomicInteger();

    WriteOutcome outcome =
        writer(false, AggregatorConfig.DEFAULT_INPUT, 4)
            .write(new ChangeSet(changes), () -> asked.incrementAndGet() <= 3);

    assertThat(outcome.stopped()).isTrue();
    assertThat(outcome.written()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(read("r" + i)).as("r%d, started", i).isNotNull();
    }
    for (int i = 3; i < 8; i++) {
      assertThat(read("r" + i)).as("r%d, never started", i).isNull();
    }
  }

  @Test
  void neverModifiesOrDeletesAnObjectTallyDoesNotOwn() {
    var foreign = ReportCodec.encode(report("theirs", "x", ResultStatus.FAIL));
    foreign.getMetadata().setLabels(Map.of("app.kubernetes.io/managed-by", "kyverno"));
    client.resource(foreign).create();
    String rv = read("theirs").getMetadata().getResourceVersion();

    WriteOutcome outcome = write(new Change.Update(report("theirs", "h2", ResultStatus.PASS), "x"));
    WriteOutcome delete =
        write(new Change.Delete(new ReportRef(ReportKind.POLICY_REPORT, "team-a", "theirs"), "x"));
    WriteOutcome create = write(new Change.Create(report("theirs", "h3", ResultStatus.PASS)));

    assertThat(List.of(outcome, delete, create))
        .allSatisfy(o -> assertThat(o.refused()).hasSize(1));
    assertThat(read("theirs").getMetadata().getResourceVersion()).isEqualTo(rv);
    assertThat(read("theirs").getMetadata().getLabels())
        .containsEntry(WireNames.MANAGED_BY_LABEL, "kyverno");
  }

  @Test
  void aStaleResourceVersionIsAConflictToReread() {
    write(new Change.Create(report("r1", "h1", ResultStatus.FAIL)));
    // someone else changes the object: the writer's resourceVersion is now stale
    var changed = read("r1");
    changed.getMetadata().setAnnotations(Map.of("touched", "yes"));
    client.resource(changed).update();

    WriteOutcome outcome = write(new Change.Update(report("r1", "h2", ResultStatus.PASS), "h1"));
    assertThat(outcome.conflicts()).extracting(ReportRef::name).containsExactly("r1");
    assertThat(metrics.conflicts).isEqualTo(1);
    assertThat(read("r1").getMetadata().getAnnotations()).containsEntry("touched", "yes");
  }

  @Test
  void tooManyRequestsIsRetriedHonouringRetryAfter() {
    server.expect().post().withPath(PATH).andReturn(429, status(429, "TooManyRequests", 3)).once();

    WriteOutcome outcome = write(new Change.Create(report("r1", "h1", ResultStatus.FAIL)));

    assertThat(outcome.complete()).isTrue();
    assertThat(read("r1")).isNotNull();
    assertThat(sleeper.sleeps)
        .singleElement()
        .satisfies(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(3)));
    assertThat(metrics.retries).isEqualTo(1);
  }

  @Test
  void serverErrorsAreRetriedWithCappedJitteredBackoff() {
    server
        .expect()
        .post()
        .withPath(PATH)
        .andReturn(500, status(500, "InternalError", null))
        .times(3);

    WriteOutcome outcome = write(new Change.Create(report("r1", "h1", ResultStatus.FAIL)));

    assertThat(outcome.complete()).isTrue();
    assertThat(read("r1")).isNotNull();
    assertThat(sleeper.sleeps).hasSize(3);
    // 100 ms, 200 ms, 400 ms before jitter: each delay in the upper half of its step
    assertThat(sleeper.sleeps.get(0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    assertThat(sleeper.sleeps.get(1)).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
    assertThat(sleeper.sleeps.get(2)).isBetween(Duration.ofMillis(200), Duration.ofMillis(400));
  }

  @Test
  void retriesRunOutIntoAFailureToWriteLater() {
    server.expect().post().withPath(PATH).andReturn(503, status(503, "Unavailable", null)).times(5);

    WriteOutcome outcome = write(new Change.Create(report("r1", "h1", ResultStatus.FAIL)));

    assertThat(outcome.failed()).extracting(f -> f.ref().name()).containsExactly("r1");
    assertThat(read("r1")).isNull();
  }

  @Test
  void stopsBeforeTheNextWriteOnceItMayNoLongerWrite() {
    var mayWrite = new AtomicBoolean(true);
    var changes =
        new ChangeSet(
            List.of(
                new Change.Create(report("r1", "h1", ResultStatus.FAIL)),
                new Change.Create(report("r2", "h2", ResultStatus.FAIL))));
    WriteOutcome outcome =
        writer.write(
            changes,
            () -> {
              boolean may = mayWrite.get();
              mayWrite.set(false); // the lease is lost right after the first write starts
              return may;
            });
    assertThat(outcome.stopped()).isTrue();
    assertThat(read("r1")).isNotNull();
    assertThat(read("r2")).isNull();
  }

  @Test
  void anExistingObjectWithTheSameContentHashIsNotRewritten() {
    write(new Change.Create(hashed("r1", ResultStatus.FAIL)));
    writer.forget();
    MockCluster.drainByMethod(server);

    WriteOutcome outcome = write(new Change.Create(hashed("r1", ResultStatus.FAIL)));
    writer.forget();
    WriteOutcome update = write(new Change.Update(hashed("r1", ResultStatus.FAIL), "h0"));

    assertThat(outcome.suppressed()).isEqualTo(1);
    assertThat(update.suppressed()).isEqualTo(1);
    assertThat(MockCluster.drainByMethod(server).getOrDefault("PUT", 0)).isZero();
    assertThat(metrics.suppressed).isEqualTo(2);
  }

  /**
   * A tenant who may write reports in its namespace turns a failure into a pass and keeps the
   * {@code tally.dev/content-hash} annotation: the annotation no longer says what the object holds,
   * so an update to that hash is written, not skipped (docs/DESIGN.md §7, "Writer").
   */
  @Test
  void anObjectWhoseContentNoLongerHashesToItsAnnotationIsRewritten() {
    AggregateReport desired = hashed("r1", ResultStatus.FAIL);
    write(new Change.Create(desired));
    PolicyReportResource tampered = read("r1");
    tampered.setResults(
        List.of(
            ReportCodec.encodeResult(
                desired.results().get(0).toBuilder().status(ResultStatus.PASS).build())));
    tampered.setSummary(new WireSummary(1L, 0L, 0L, 0L, 0L));
    client.resource(tampered).update();
    assertThat(read("r1").getMetadata().getAnnotations())
        .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, desired.contentHash());
    writer.forget();

    WriteOutcome outcome = write(new Change.Update(desired, desired.contentHash()));

    assertThat(outcome.written()).isEqualTo(1);
    assertThat(ReportCodec.decode(read("r1"))).isEqualTo(desired);
  }

  @Test
  void listsOnlyOwnedAggregates() {
    write(new Change.Create(report("r1", "h1", ResultStatus.FAIL)));
    var foreign = ReportCodec.encode(report("theirs", "x", ResultStatus.FAIL));
    foreign.getMetadata().setLabels(Map.of("app", "other"));
    client.resource(foreign).create();

    assertThat(writer.listOwned(ReportFormat.WGPOLICY, ReportLayout.TALLY))
        .singleElement()
        .isEqualTo(report("r1", "h1", ResultStatus.FAIL));
  }

  /**
   * Another input's aggregate is as foreign as another tool's (docs/DESIGN.md §6.8): a writer lists
   * its own input's only (the default input's carry no input label), and an update, a delete, a
   * create or an apply that meets another input's object leaves it as it is.
   */
  @Test
  void aWriterChangesItsOwnInputsAggregatesOnly() {
    AggregateReport tallys = report("tally-namespace-all", "t", ResultStatus.FAIL);
    Map<String, String> labels = new java.util.HashMap<>(tallys.labels());
    labels.put(WireNames.INPUT_LABEL, "trivy");
    AggregateReport trivys =
        new AggregateReport(
            new ReportRef(ReportKind.POLICY_REPORT, "team-a", "tally-trivy--namespace-all"),
            labels,
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            tallys.results(),
            tallys.summary(),
            "v");
    client.resource(ReportCodec.encode(tallys)).create();
    client.resource(ReportCodec.encode(trivys)).create();
    String tallyRv = read("tally-namespace-all").getMetadata().getResourceVersion();
    String trivyRv = read("tally-trivy--namespace-all").getMetadata().getResourceVersion();

    for (boolean ssa : List.of(false, true)) {
      ReportWriter trivy = writer(ssa, "trivy");
      ReportWriter tally = writer(ssa, AggregatorConfig.DEFAULT_INPUT);
      assertThat(trivy.listOwned(ReportFormat.WGPOLICY, ReportLayout.TALLY))
          .singleElement()
          .isEqualTo(trivys);
      assertThat(tally.listOwned(ReportFormat.WGPOLICY, ReportLayout.TALLY))
          .singleElement()
          .isEqualTo(tallys);
      ChangeSet overTally =
          new ChangeSet(
              List.of(
                  new Change.Update(report("tally-namespace-all", "x", ResultStatus.PASS), "t")));
      ChangeSet deleteTally = new ChangeSet(List.of(new Change.Delete(tallys.ref(), "t")));
      ChangeSet createTally =
          new ChangeSet(
              List.of(new Change.Create(report("tally-namespace-all", "y", ResultStatus.PASS))));
      ChangeSet overTrivy =
          new ChangeSet(
              List.of(
                  new Change.Update(
                      report("tally-trivy--namespace-all", "z", ResultStatus.PASS), "v")));
      for (ChangeSet refused : List.of(overTally, deleteTally, createTally)) {
        assertThat(trivy.write(refused, () -> true).refused()).as("%s", refused).hasSize(1);
      }
      assertThat(tally.write(overTrivy, () -> true).refused()).hasSize(1);
    }
    assertThat(read("tally-namespace-all").getMetadata().getResourceVersion()).isEqualTo(tallyRv);
    assertThat(read("tally-trivy--namespace-all").getMetadata().getResourceVersion())
        .isEqualTo(trivyRv);
  }

  /**
   * Server-side apply never writes over what it did not read: an object that exists is applied with
   * the resourceVersion just read as a precondition (409 if it changed since, as an update).
   */
  @Test
  void serverSideApplyPatchesWithTallysFieldManagerOverTheVersionRead() throws Exception {
    ReportWriter ssa = writer(true);
    assertThat(write(new Change.Create(report("r1", "h1", ResultStatus.FAIL))).written())
        .isEqualTo(1);
    String version = read("r1").getMetadata().getResourceVersion();

    var applied = ReportCodec.encode(report("r1", "h2", ResultStatus.PASS));
    applied.getMetadata().setResourceVersion(version + "1");
    server
        .expect()
        .patch()
        .withPath(PATH + "/r1?fieldManager=tally&force=true")
        .andReturn(200, applied)
        .once();
    WriteOutcome outcome =
        ssa.write(
            new ChangeSet(List.of(new Change.Update(report("r1", "h2", ResultStatus.PASS), "h1"))),
            () -> true);

    assertThat(outcome.written()).isEqualTo(1);
    var patch = server.getLastRequest();
    assertThat(patch.getMethod()).isEqualTo("PATCH");
    assertThat(patch.getBody().readUtf8())
        .as("the applied object carries the resourceVersion read")
        .contains("\"resourceVersion\":\"" + version + "\"");
    assertThat(metrics.writes).containsEntry("apply", 1);
  }
}
