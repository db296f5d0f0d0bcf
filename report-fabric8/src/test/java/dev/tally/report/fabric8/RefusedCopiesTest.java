package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.input.InputServices;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.WireCoverageKey;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.fabric8.resource.WireTimestamp;
import dev.tally.report.merge.publish.ClockRule;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the feed's informers hold of refused objects (docs/DESIGN.md, section 9, "Caps"): real
 * informers on the mock API server, handing their events to the ledger. A tenant's refused objects
 * of 200 KB each are held as their identity alone, within the caps per namespace and in all; past a
 * cap nothing is held for them, with a {@code NotHeld} Event and {@code capacityReached} naming the
 * cap. Before {@link InformerStores}, the informers held every refused object whole.
 */
@EnableKubernetesMockClient(crud = true)
class RefusedCopiesTest {
  /** An input's typed class of its own, as each input but Tally's has (Kyverno's, trivy's). */
  @io.fabric8.kubernetes.model.annotation.Group("example.dev")
  @io.fabric8.kubernetes.model.annotation.Version("v1")
  public static final class WidgetReportResource
      extends dev.tally.report.fabric8.resource.InputResource<java.util.Map<String, Object>>
      implements io.fabric8.kubernetes.api.model.Namespaced {
    public WidgetReportResource() {}
  }

  /** Its cluster-scoped kind. */
  @io.fabric8.kubernetes.model.annotation.Group("example.dev")
  @io.fabric8.kubernetes.model.annotation.Version("v1")
  public static final class ClusterWidgetReportResource
      extends dev.tally.report.fabric8.resource.InputResource<java.util.Map<String, Object>> {
    public ClusterWidgetReportResource() {}
  }

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  KubernetesMockServer server;

  private final CountingMetrics metrics = new CountingMetrics();
  private final Object lock = new Object();
  private KubernetesClient client;
  private InputLedger ledger;
  private InformerStores copies;
  private InputInformers source;

  private void start(int perNamespace, int total) throws Exception {
    client = MockCluster.client(server);
    Clock clock = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(10_000, 10_000),
            ControllerFixture.FAST_RETRIES,
            new Random(1),
            d -> {},
            metrics);
    ReportInput input = new PartialReportsInput();
    copies = new InformerStores(perNamespace, total);
    ledger =
        new InputLedger(
            input,
            InputServices.NONE,
            null,
            new RejectionEvents(client, calls, metrics, clock, true),
            copies,
            metrics,
            () -> Timestamp.ofSeconds(clock.instant().getEpochSecond()),
            ClockRule.allowing(Duration.ofDays(1)),
            () -> {});
    ledger.begin(ReportAggregator.builder().build());
    List<io.fabric8.kubernetes.client.informers.SharedIndexInformer<? extends HasMetadata>>
        informers = new ArrayList<>();
    for (var informer : input.informers(client)) {
      informers.add(copies.bound(informer)); // as InputFeed.start does
    }
    source =
        new InputInformers(
            informers,
            new InputInformers.Listener() {
              @Override
              public void upsert(HasMetadata resource) {
                synchronized (lock) {
                  ledger.upsert(resource);
                }
              }

              @Override
              public void removed(HasMetadata resource) {
                synchronized (lock) {
                  ledger.removed(resource);
                }
              }
            });
    source.start(Duration.ofSeconds(60));
  }

  @AfterEach
  void stop() {
    if (source != null) {
      source.close();
    }
    if (client != null) {
      MockCluster.close(client);
    }
  }

  @Test
  void aStrippedCopyIsOfItsObjectsClassWhateverInputItBelongsTo() {
    for (HasMetadata object :
        List.<HasMetadata>of(
            new PartialReportResource(),
            new dev.tally.report.fabric8.resource.ClusterPartialReportResource(),
            new WidgetReportResource(),
            new ClusterWidgetReportResource(),
            new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                .withApiVersion("aquasecurity.github.io/v1alpha1")
                .withKind("ConfigAuditReport")
                .build())) {
      object.setMetadata(
          new ObjectMetaBuilder()
              .withNamespace("team")
              .withName("r")
              .withUid("u-1")
              .withResourceVersion("7")
              .withLabels(java.util.Map.of("big", "x".repeat(1000)))
              .build());

      HasMetadata copy = InformerStores.stripped(object);

      assertThat(copy).isExactlyInstanceOf(object.getClass());
      assertThat(copy.getKind()).isEqualTo(object.getKind());
      assertThat(copy.getApiVersion()).isEqualTo(object.getApiVersion());
      assertThat(copy.getMetadata().getName()).isEqualTo("r");
      assertThat(copy.getMetadata().getResourceVersion()).isEqualTo("7");
      assertThat(copy.getMetadata().getLabels()).isNullOrEmpty();
      assertThat(InformerStores.isCopy(copy)).isTrue();
    }
  }

  @Test
  void aFloodOfLargeRefusedObjectsIsHeldAsIdentitiesWithinTheCaps() throws Exception {
    start(3, 5);
    for (int i = 0; i < 8; i++) {
      create(refused("flood", "big-" + i));
    }
    for (int i = 0; i < 4; i++) {
      create(refused("quiet", "big-" + i));
    }
    create(valid("quiet", "fine"));
    Await.until(
        "every object handled",
        () -> metrics.rejected.getOrDefault("invalid", 0) == 12 && metrics.applied == 1);
    // the last refusal's stripping happens on the handling thread, under the lock
    synchronized (lock) {
      List<HasMetadata> held = source.snapshot();
      long refusedBytes = 0;
      int refusedHeld = 0;
      for (HasMetadata o : held) {
        if (!o.getMetadata().getName().equals("fine")) {
          refusedHeld++;
          refusedBytes += JSON.asJson(o).getBytes(StandardCharsets.UTF_8).length;
        }
      }
      assertThat(refusedHeld).as("refused objects held, in all").isLessThanOrEqualTo(5);
      assertThat(refusedBytes)
          .as("what the informers hold of refused objects of 200 KB each")
          .isLessThan(5 * 2_048L);
      assertThat(copies.heldIn("flood")).isEqualTo(3);
      assertThat(copies.held()).isEqualTo(5);
      assertThat(copies.heldBytes()).isLessThanOrEqualTo(5 * 2_048L);
      assertThat(held)
          .filteredOn(o -> o.getMetadata().getName().equals("fine"))
          .singleElement()
          .satisfies(
              o ->
                  assertThat(InformerStores.isCopy(o))
                      .as("an applied object, held as its identity outside the caps")
                      .isTrue());
    }
    assertThat(metrics.capsReached)
        .containsEntry("maxRefusedCopiesPerNamespace", 5)
        .containsEntry("maxRefusedCopies", 2);
    // Events name the object and the cap (within each namespace's share of Events)
    var notHeld =
        client.v1().events().inAnyNamespace().list().getItems().stream()
            .filter(e -> "NotHeld".equals(e.getReason()))
            .toList();
    assertThat(notHeld)
        .allSatisfy(e -> assertThat(e.getInvolvedObject().getName()).startsWith("big-"))
        .anySatisfy(e -> assertThat(e.getMessage()).contains("(cap maxRefusedCopiesPerNamespace)"))
        .anySatisfy(e -> assertThat(e.getMessage()).contains("(cap maxRefusedCopies,"));

    // a copy deleted with its object makes room; the room is taken by the next refused object
    client.resources(PartialReportResource.class).inNamespace("quiet").withName("big-0").delete();
    Await.until("the deletion handled", () -> copies.held() == 4);
    create(refused("quiet", "big-9"));
    Await.until("room taken", () -> copies.held() == 5);
    assertThat(copies.heldIn("quiet")).isEqualTo(2);
  }

  /**
   * An accepted object whose later version is refused still holds what the aggregator applied of
   * it: its copy is kept past the caps, so that its deletion still reaches the ledger and deletes
   * its subject at once.
   */
  @Test
  void aRefusedVersionOfAnAcceptedObjectKeepsItsCopyPastTheCaps() throws Exception {
    start(1, 1);
    create(refused("t", "junk"));
    create(valid("t", "app"));
    Await.until("both handled", () -> metrics.applied == 1 && copies.held() == 1);
    assertThat(aggregates()).hasSize(1);

    client
        .resources(PartialReportResource.class)
        .inNamespace("t")
        .withName("app")
        .edit(
            r -> {
              r.setSpec(refused("t", "app").getSpec());
              return r;
            });
    Await.until("the refused version handled", () -> copies.held() == 2);
    assertThat(metrics.capsReached).doesNotContainKey("maxRefusedCopiesPerNamespace");
    assertThat(aggregates()).as("a refused version changes nothing").hasSize(1);

    client.resources(PartialReportResource.class).inNamespace("t").withName("app").delete();
    Await.until("its subject deleted with it", () -> aggregates().isEmpty());
    assertThat(copies.held()).isEqualTo(1);
  }

  /**
   * A backlog of applied objects (say merged reports waiting for their delete) costs their identity
   * alone, outside the caps for refused ones: the informers' stores hold nothing of their content;
   * a new version is applied whole and stripped again, and a deletion still deletes its subject.
   */
  @Test
  void appliedObjectsAreHeldAsTheirIdentityOutsideTheCaps() throws Exception {
    start(1, 1);
    for (int i = 0; i < 20; i++) {
      create(partial("t", "r-" + i, "m".repeat(10_000)));
    }
    Await.until("every object applied", () -> metrics.applied == 20);
    synchronized (lock) {
      List<HasMetadata> held = source.snapshot();
      assertThat(held).hasSize(20).allSatisfy(o -> assertThat(InformerStores.isCopy(o)).isTrue());
      long bytes = 0;
      for (HasMetadata o : held) {
        bytes += JSON.asJson(o).getBytes(StandardCharsets.UTF_8).length;
      }
      assertThat(bytes)
          .as("what the informers hold of 20 applied objects of 10 KB each")
          .isLessThan(20 * 512L);
      assertThat(copies.held()).as("applied objects count against no cap").isZero();
    }
    assertThat(results()).hasSize(20);

    client
        .resources(PartialReportResource.class)
        .inNamespace("t")
        .withName("r-3")
        .edit(
            r -> {
              r.setSpec(partial("t", "r-3", "changed").getSpec());
              return r;
            });
    Await.until(
        "the new version applied",
        () -> results().stream().anyMatch(r -> "changed".equals(r.message())));
    synchronized (lock) {
      assertThat(source.snapshot()).allSatisfy(o -> assertThat(InformerStores.isCopy(o)).isTrue());
    }

    client.resources(PartialReportResource.class).inNamespace("t").withName("r-7").delete();
    Await.until("its subject deleted with it", () -> results().size() == 19);
    assertThat(copies.held()).isZero();
  }

  /**
   * A periodic re-list's LIST may bring a version before the informer's watch does: the ledger
   * applies it then, and when the informer delivers it, whole, it is held as its identity from then
   * on.
   */
  @Test
  void aVersionAppliedBeforeItsInformerHeldItIsHeldAsItsIdentityOnceDelivered() throws Exception {
    start(1, 1);
    io.fabric8.kubernetes.client.informers.cache.ItemStore<HasMetadata> store = copies.store();
    PartialReportResource early = partial("t", "early", "m".repeat(10_000));
    early.getMetadata().setResourceVersion("5");
    synchronized (lock) {
      ledger.upsert(early); // from the re-list's LIST
    }
    assertThat(results()).hasSize(1);
    store.put("t/early", early); // the watch, later
    synchronized (lock) {
      ledger.upsert(early); // its event
    }
    assertThat(store.get("t/early")).satisfies(o -> assertThat(InformerStores.isCopy(o)).isTrue());
    assertThat(copies.held()).isZero();
  }

  private List<dev.tally.report.api.Result> results() {
    return aggregates().stream().flatMap(a -> a.results().stream()).toList();
  }

  private List<dev.tally.report.api.AggregateReport> aggregates() {
    synchronized (lock) {
      return ledger.aggregator().aggregates();
    }
  }

  private void create(PartialReportResource resource) {
    client.resources(PartialReportResource.class).resource(resource).create();
  }

  /** A partial report refused for its message of 200 KB (at most 16 KiB is allowed). */
  private static PartialReportResource refused(String namespace, String name) {
    return partial(namespace, name, "x".repeat(200_000));
  }

  static PartialReportResource valid(String namespace, String name) {
    return partial(namespace, name, "fine");
  }

  private static PartialReportResource partial(String namespace, String name, String message) {
    var resource = new PartialReportResource();
    resource.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    var result =
        new WireResult(
            "kyverno",
            "require-labels",
            "r",
            "fail",
            null,
            null,
            message,
            null,
            null,
            null,
            null,
            null);
    resource.setSpec(
        new PartialReportSpec(
            "scanner",
            new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withNamespace(namespace)
                .withName("app-" + name)
                .withUid("uid-" + namespace + "-" + name)
                .build(),
            null,
            new WireTimestamp(1_800_000_000L, 0),
            1L,
            List.of(new WireCoverageKey("kyverno", "require-labels")),
            List.of(result)));
    return resource;
  }
}
