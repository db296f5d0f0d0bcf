package dev.tally.report.trivy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.input.Statement;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ConfigAuditReport as the informer decodes it, on the mock API server: trivy-operator's CRD
 * keeps unknown fields at a report's root, so a tenant's report may carry a blob of 1.4 MB (as a
 * generic object, 28 MB of heap) and nesting as deep as the API server stores (past every Jackson
 * reader's default), in fields of its own and, mirrored, in {@code metadata.managedFields}. Listed
 * (the informer's first LIST, and every re-list) and watched (its events), the report is the typed
 * object holding what Tally reads and nothing else, and says what it says. A report past a bound is
 * refused naming the field; a client that cannot read what the server stores is refused at start.
 */
@EnableKubernetesMockClient
class ConfigAuditReportDecodingTest {
  private static final String PATH = "/apis/aquasecurity.github.io/v1alpha1/configauditreports";

  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void setUp() {
    client = MockCluster.readingClient(server);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  @Test
  void aListedReportHoldsWhatTallyReadsThoughItCarriesABlobAndTheDeepestNesting() {
    server
        .expect()
        .get()
        .withPath(PATH)
        .andReturn(
            200, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + tenantReport() + "]}")
        .once();

    List<? extends HasMetadata> listed =
        new TrivyInput().kinds(client).get(0).page().apply(new ListOptions()).getItems();

    assertThat(listed).hasSize(1);
    assertHoldsWhatIsReadAlone(listed.get(0));
  }

  @Test
  void aWatchedReportHoldsWhatTallyReadsToo() throws Exception {
    server
        .expect()
        .get()
        .withPath(PATH + "?allowWatchBookmarks=true&watch=true")
        .andUpgradeToWebSocket()
        .open("{\"type\":\"ADDED\",\"object\":" + tenantReport() + "}")
        .done()
        .once();
    new TrivyInput().kinds(client); // as the controller does before it watches
    CompletableFuture<HasMetadata> received = new CompletableFuture<>();

    try (Watch watch =
        client
            .resources(ConfigAuditReportResource.class)
            .inAnyNamespace()
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ConfigAuditReportResource resource) {
                    received.complete(resource);
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    received.completeExceptionally(cause);
                  }
                })) {
      assertHoldsWhatIsReadAlone(received.get(60, TimeUnit.SECONDS));
    }
  }

  @Test
  void aReportPastABoundIsRefusedNamingTheField() {
    TrivyInput input = new TrivyInput();
    ConfigAuditReportData.Check check = check("KSV01010", List.of("configure it"));

    assertThatThrownBy(
            () ->
                input.decode(
                    resource(
                        Collections.nCopies(TrivyCodec.MAX_CHECKS + 1, check),
                        "2030-01-01T00:00:00Z")))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("report.checks: has 5001 checks, at most 5000 allowed");
    assertThatThrownBy(
            () ->
                input.decode(
                    resource(
                        List.of(check, check("KSV01011", Collections.nCopies(101, "again"))),
                        "2030-01-01T00:00:00Z")))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("report.checks[1].messages: has 101 messages, at most 100 allowed");
    assertThatThrownBy(
            () ->
                input.decode(
                    resource(
                        List.of(check("KSV01010", List.of("ok", "x".repeat(16 * 1024 + 1)))),
                        "2030-01-01T00:00:00Z")))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage(
            "report.checks[0].messages[1]: is 16385 characters long, at most 16384 allowed");
    assertThatThrownBy(
            () ->
                input.decode(
                    resource(
                        List.of(check("K".repeat(16 * 1024 + 1), List.of())),
                        "2030-01-01T00:00:00Z")))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("report.checks[0].checkID: is 16385 characters long, at most 16384 allowed");

    // at the bounds, a report is read
    assertThat(
            input.decode(
                resource(
                    Collections.nCopies(
                        TrivyCodec.MAX_CHECKS,
                        check("KSV01010", Collections.nCopies(TrivyCodec.MAX_MESSAGES, "m"))),
                    "2030-01-01T00:00:00Z")))
        .isInstanceOf(Statement.Ready.class);
  }

  @Test
  void aListPastItsBoundHoldsNoMoreThanItsBoundAsItIsParsed() {
    String check =
        "{\"checkID\":\"KSV01010\",\"severity\":\"LOW\",\"success\":false,\"messages\":["
            + "\"m\",".repeat(99_999)
            + "\"m\"]}";
    String small = "{\"checkID\":\"KSV01011\",\"severity\":\"LOW\",\"success\":false},";
    server
        .expect()
        .get()
        .withPath(PATH)
        .andReturn(
            200,
            "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":"
                + "\"aquasecurity.github.io/v1alpha1\",\"kind\":\"ConfigAuditReport\","
                + "\"metadata\":{\"name\":\"r\",\"namespace\":\"tenant\"},"
                + "\"report\":{\"checks\":["
                + check
                + ","
                + small.repeat(9_999)
                + check
                + "]}}]}")
        .once();

    ConfigAuditReportResource report =
        (ConfigAuditReportResource)
            new TrivyInput().kinds(client).get(0).page().apply(new ListOptions()).getItems().get(0);

    ConfigAuditReportData.Checks checks = report.getReport().checks();
    assertThat(checks.added()).isEqualTo(10_001);
    assertThat(checks).hasSize(TrivyCodec.MAX_CHECKS);
    assertThat(checks.get(0).messages().added()).isEqualTo(100_000);
    assertThat(checks.get(0).messages()).hasSize(TrivyCodec.MAX_MESSAGES);
    assertThatThrownBy(() -> new TrivyInput().decode(report))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("report.checks: has 10001 checks, at most 5000 allowed");
  }

  @Test
  void aClientThatCannotReadWhatTheServerStoresIsRefusedAtStart() {
    KubernetesClient plain = MockCluster.client(server);
    try {
      assertThat(ApiServerJson.readsEveryObject(plain.getKubernetesSerialization())).isFalse();
      assertThatThrownBy(() -> new TrivyInput().checkAccess(plain, null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ApiServerJson.serialization()");
    } finally {
      MockCluster.close(plain);
    }
  }

  /** The typed report, holding what Tally reads of the tenant's report and nothing else. */
  private static void assertHoldsWhatIsReadAlone(HasMetadata object) {
    assertThat(object).isInstanceOf(ConfigAuditReportResource.class);
    ConfigAuditReportResource report = (ConfigAuditReportResource) object;
    ObjectMeta meta = report.getMetadata();
    assertThat(meta.getName()).isEqualTo("configmap-app-config");
    assertThat(meta.getNamespace()).isEqualTo("tenant");
    assertThat(meta.getUid()).isEqualTo("report-uid");
    assertThat(meta.getResourceVersion()).isEqualTo("7");
    assertThat(meta.getOwnerReferences()).extracting(OwnerReference::getUid).containsExactly("cm");
    assertThat(meta.getManagedFields()).isNullOrEmpty();
    assertThat(meta.getLabels()).isNullOrEmpty();
    assertThat(meta.getAnnotations()).isNullOrEmpty();
    assertThat(meta.getAdditionalProperties()).isEmpty();
    assertThat(report.getSpec()).isNull();
    assertThat(report.getStatus()).isNull();
    // records: equal only if nothing else was kept in them
    assertThat(report.getReport())
        .isEqualTo(
            new ConfigAuditReportData(
                "2030-01-01T00:00:00Z",
                ConfigAuditReportData.Checks.of(
                    List.of(
                        new ConfigAuditReportData.Check(
                            "KSV01010",
                            "Runs as root",
                            "CRITICAL",
                            false,
                            "Kubernetes Security Check",
                            ConfigAuditReportData.Messages.of(List.of("configure it")),
                            new ConfigAuditReportData.Scope("Container", "nginx"))))));
    // everything the object holds, written out: the 1.4 MB it was sent with are not there
    assertThat(Serialization.asJson(report).length()).isLessThan(1_000);

    Statement statement = new TrivyInput().decode(report);
    assertThat(statement).isInstanceOf(Statement.Ready.class);
    assertThat(((Statement.Ready) statement).partial().results())
        .extracting(Result::rule)
        .containsExactly("KSV01010");
  }

  /**
   * A tenant's report as the API server would serve it: a valid scan, plus at its root a blob of
   * 1.4 MB ({@code [{},{},…]}), arrays nested as deep as the server stores ({@value
   * ApiServerJson#MAX_NESTING_DEPTH}, the object counted), objects nested as deep as the server
   * stores them (whose mirror in {@code managedFields}, four levels deeper, reaches that depth), a
   * field name longer than Jackson reads by default, a {@code spec} and a {@code status}; unknown
   * fields in {@code report} and a check; labels and annotations Tally does not read.
   */
  private static String tenantReport() {
    int depth = ApiServerJson.MAX_NESTING_DEPTH;
    return "{\"apiVersion\":\"aquasecurity.github.io/v1alpha1\",\"kind\":\"ConfigAuditReport\","
        + "\"metadata\":{\"name\":\"configmap-app-config\",\"namespace\":\"tenant\","
        + "\"uid\":\"report-uid\",\"resourceVersion\":\"7\","
        + "\"creationTimestamp\":\"2030-01-01T00:00:00Z\","
        + "\"labels\":{\"trivy-operator.resource.kind\":\"ConfigMap\"},"
        + "\"annotations\":{\"note\":\""
        + "n".repeat(100_000)
        + "\"},"
        + "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
        + "\"name\":\"app-config\",\"uid\":\"cm\",\"controller\":true}],"
        // metadata (2), managedFields (3), an entry (4), fieldsV1 (5): the mirror starts at 6
        + "\"managedFields\":[{\"manager\":\"tenant\",\"operation\":\"Update\","
        + "\"apiVersion\":\"aquasecurity.github.io/v1alpha1\",\"fieldsType\":\"FieldsV1\","
        + "\"fieldsV1\":{\"f:deepObjects\":"
        + objects(depth - 5)
        + "}}]},"
        + "\"report\":{\"updateTimestamp\":\"2030-01-01T00:00:00Z\","
        + "\"scanner\":{\"name\":\"Trivy\",\"vendor\":\"Aqua Security\",\"version\":\"0.29.0\"},"
        + "\"summary\":{\"criticalCount\":1,\"highCount\":0,\"mediumCount\":0,\"lowCount\":0},"
        + "\"checks\":[{\"checkID\":\"KSV01010\",\"title\":\"Runs as root\","
        + "\"description\":\""
        + "d".repeat(10_000)
        + "\",\"severity\":\"CRITICAL\","
        + "\"success\":false,\"category\":\"Kubernetes Security Check\","
        + "\"messages\":[\"configure it\"],\"remediation\":\"set runAsNonRoot\","
        + "\"scope\":{\"type\":\"Container\",\"value\":\"nginx\",\"more\":"
        + objects(50)
        + "},"
        + "\"notTrivys\":[[1,2],{\"x\":null}]}],"
        + "\"notTrivys\":"
        + objects(50)
        + "},"
        + "\"blob\":["
        + "{},".repeat(466_666)
        + "{}],"
        + "\"deepArrays\":"
        + "[".repeat(depth - 1)
        + "]".repeat(depth - 1)
        + ","
        // the object (1), its field (2): the deepest the server stores, as its mirror reaches it
        + "\"deepObjects\":"
        + objects(depth - 5)
        + ","
        + "\""
        + "k".repeat(60_000)
        + "\":1,"
        + "\"spec\":{\"x\":[{}]},\"status\":{\"phase\":[1]}}";
  }

  /** {@code levels} objects, each the only field of the one around it. */
  private static String objects(int levels) {
    return "{\"a\":".repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
  }

  private static ConfigAuditReportData.Check check(String id, List<String> messages) {
    return new ConfigAuditReportData.Check(
        id,
        "a title",
        "LOW",
        false,
        "Kubernetes Security Check",
        ConfigAuditReportData.Messages.of(messages),
        null);
  }

  private static ConfigAuditReportResource resource(
      List<ConfigAuditReportData.Check> checks, String updated) {
    ConfigAuditReportResource r = new ConfigAuditReportResource();
    r.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace("tenant")
            .withName("configmap-app-config")
            .withCreationTimestamp("2030-01-01T00:00:00Z")
            .addNewOwnerReference()
            .withApiVersion("v1")
            .withKind("ConfigMap")
            .withName("app-config")
            .withUid("cm")
            .withController(true)
            .endOwnerReference()
            .build());
    r.setReport(new ConfigAuditReportData(updated, ConfigAuditReportData.Checks.of(checks)));
    return r;
  }
}
