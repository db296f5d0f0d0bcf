package dev.tally.aggregator;

import static dev.tally.aggregator.ChartRender.deployment;
import static dev.tally.aggregator.ChartRender.objects;
import static dev.tally.aggregator.ChartRender.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's knobs a platform team sets (names, the ServiceAccount, the Pods' labels, security
 * contexts, spread, environment, history), each rendered by real Helm with and without it, each
 * misuse refused naming the value; and each value of values.yaml in the schema and in the chart's
 * README.
 */
class ChartValuesTest {
  private static final String ARGS_LEASE = "--lease-name=tally-aggregator";

  @TempDir Path dir;

  private String values(String yaml) throws IOException {
    return Files.writeString(Files.createTempFile(dir, "values", ".yaml"), yaml).toString();
  }

  private static Container aggregator(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  @Test
  void theDefaultsRenderTheSecurityOfBeforeAndTheChartsOwnServiceAccount() {
    Deployment deployment = deployment();
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(deployment.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    assertThat(pod.getSecurityContext().getRunAsGroup()).isEqualTo(65532L);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var container = aggregator(deployment).getSecurityContext();
    assertThat(container.getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(aggregator(deployment).getEnv())
        .extracting(EnvVar::getName)
        .containsExactly("POD_NAME");
    assertThat(pod.getTopologySpreadConstraints()).isEmpty();
    assertThat(pod.getServiceAccountName()).isEqualTo("tally-aggregator");
    assertThat(objects())
        .filteredOn(o -> o instanceof ServiceAccount)
        .singleElement()
        .satisfies(sa -> assertThat(sa.getMetadata().getName()).isEqualTo("tally-aggregator"));
  }

  @Test
  void theGatekeeperInputRendersOnlyItsRolesBoundToTheAuditsServiceAccount() {
    List<HasMetadata> objects =
        objects("--set", "input=gatekeeper", "--namespace", "gatekeeper-system");
    assertThat(objects)
        .extracting(o -> o.getKind() + " " + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "ClusterRole tally-gatekeeper-aggregator",
            "ClusterRole tally-gatekeeper-aggregator-lease",
            "ClusterRoleBinding tally-gatekeeper-aggregator",
            "RoleBinding tally-gatekeeper-aggregator-lease");
    assertThat(objects)
        .filteredOn(o -> o instanceof io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding)
        .singleElement()
        .satisfies(
            b -> {
              var binding = (io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding) b;
              assertThat(binding.getRoleRef().getName()).isEqualTo("tally-gatekeeper-aggregator");
              assertThat(binding.getSubjects())
                  .singleElement()
                  .satisfies(
                      s -> {
                        assertThat(s.getName()).isEqualTo("gatekeeper-admin");
                        assertThat(s.getNamespace()).isEqualTo("gatekeeper-system");
                      });
            });
    assertThat(
            objects("--set", "input=gatekeeper", "--set", "serviceAccount.name=audit").stream()
                .filter(o -> o instanceof io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding)
                .map(
                    o ->
                        ((io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding) o)
                            .getSubjects()
                            .get(0)
                            .getName()))
        .containsExactly("audit");
  }

  @Test
  void fullnameOverrideNamesEveryObjectButTheShippedRolesAndTheLease() {
    List<HasMetadata> objects =
        objects("--set", "fullnameOverride=platform-reports,nameOverride=reports");
    List<String> wrong = new ArrayList<>();
    for (HasMetadata o : objects) {
      String name = o.getMetadata().getName();
      boolean shipped = o.getKind().equals("ClusterRole");
      if (shipped ? !name.startsWith("tally-") : !name.startsWith("platform-reports")) {
        wrong.add(o.getKind() + " " + name);
      }
      if (!shipped) {
        assertThat(o.getMetadata().getLabels())
            .as(o.getKind())
            .containsEntry("app.kubernetes.io/name", "reports");
      }
    }
    assertThat(wrong).as("objects named against the overrides").isEmpty();
    for (HasMetadata o : objects) {
      if (o instanceof ClusterRoleBinding binding) {
        assertThat(binding.getRoleRef().getName()).isEqualTo("tally-aggregator");
        assertThat(binding.getSubjects())
            .extracting(Subject::getName)
            .containsExactly("platform-reports");
      }
      if (o instanceof RoleBinding binding) {
        assertThat(binding.getRoleRef().getName()).isEqualTo("tally-aggregator-lease");
      }
    }
    // the lease role grants the Lease of the fixed name only
    Deployment deployment =
        deployment("--set", "fullnameOverride=platform-reports,nameOverride=reports");
    assertThat(aggregator(deployment).getArgs()).contains(ARGS_LEASE);
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/name", "reports");

    // nameOverride alone names the objects too, as Helm charts do without a fullnameOverride
    assertThat(deployment("--set", "nameOverride=reports").getMetadata().getName())
        .isEqualTo("reports");
    assertThat(refusal("--set", "fullnameOverride=Not_A_Name")).contains("fullnameOverride");
  }

  @Test
  void theServiceAccountCarriesItsAnnotationsOrIsAnExistingOneNamed() throws IOException {
    String annotated =
        values(
            """
            serviceAccount:
              annotations:
                eks.amazonaws.com/role-arn: arn:aws:iam::111122223333:role/tally
            """);
    assertThat(objects("-f", annotated))
        .filteredOn(o -> o instanceof ServiceAccount)
        .singleElement()
        .satisfies(
            sa ->
                assertThat(sa.getMetadata().getAnnotations())
                    .containsEntry(
                        "eks.amazonaws.com/role-arn", "arn:aws:iam::111122223333:role/tally"));

    List<HasMetadata> existing =
        objects("--set", "serviceAccount.create=false,serviceAccount.name=platform-identity");
    assertThat(existing).noneMatch(o -> o instanceof ServiceAccount);
    for (HasMetadata o : existing) {
      List<Subject> subjects =
          o instanceof ClusterRoleBinding c
              ? c.getSubjects()
              : o instanceof RoleBinding r ? r.getSubjects() : List.of();
      assertThat(subjects).extracting(Subject::getName).allMatch("platform-identity"::equals);
      if (o instanceof Deployment d) {
        assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName())
            .isEqualTo("platform-identity");
      }
    }
    // not the namespace's default account: every Pod running as it would get the roles
    assertThat(refusal("--set", "serviceAccount.create=false")).contains("serviceAccount.name");
    assertThat(refusal("--set", "serviceAccount.annotations.a=1,serviceAccount.create=yes"))
        .contains("create");
  }

  @Test
  void podLabelsLabelThePodsButNeverTheirSelector() {
    Deployment deployment = deployment("--set", "podLabels.team=platform");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("team", "platform")
        .containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(deployment.getSpec().getSelector().getMatchLabels()).doesNotContainKey("team");
    assertThat(deployment.getMetadata().getLabels()).doesNotContainKey("team");
    assertThat(refusal("--set", "podLabels.app\\.kubernetes\\.io/instance=other"))
        .contains("podLabels.app.kubernetes.io/instance");
  }

  @Test
  void securityContextsMergeIntoTheDefaultsAndRefuseAMisspeltField() throws IOException {
    String file =
        values(
            """
            podSecurityContext:
              fsGroup: 65532
              runAsUser: null
            securityContext:
              capabilities:
                add: [NET_BIND_SERVICE]
            """);
    Deployment deployment = deployment("-f", file);
    var pod = deployment.getSpec().getTemplate().getSpec().getSecurityContext();
    assertThat(pod.getFsGroup()).isEqualTo(65532L);
    assertThat(pod.getRunAsUser()).as("removed by null").isNull();
    assertThat(pod.getRunAsNonRoot()).isTrue();
    var container = aggregator(deployment).getSecurityContext();
    assertThat(container.getCapabilities().getAdd()).containsExactly("NET_BIND_SERVICE");
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getReadOnlyRootFilesystem()).isTrue();

    assertThat(refusal("--set", "podSecurityContext.runAsUsr=1")).contains("runAsUsr");
    assertThat(refusal("--set", "securityContext.readOnlyRootFileSystem=false"))
        .contains("readOnlyRootFileSystem");
    assertThat(refusal("--set", "podSecurityContext.runAsUser=-1")).contains("runAsUser");
  }

  @Test
  void aSpreadConstraintWithoutSelectorSpreadsTheReleasesPods() throws IOException {
    String file =
        values(
            """
            topologySpreadConstraints:
              - maxSkew: 1
                topologyKey: topology.kubernetes.io/zone
                whenUnsatisfiable: ScheduleAnyway
              - maxSkew: 2
                topologyKey: kubernetes.io/hostname
                whenUnsatisfiable: DoNotSchedule
                labelSelector:
                  matchLabels:
                    team: platform
            """);
    Deployment deployment = deployment("-f", file);
    List<TopologySpreadConstraint> spread =
        deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints();
    assertThat(spread).hasSize(2);
    assertThat(spread.get(0).getTopologyKey()).isEqualTo("topology.kubernetes.io/zone");
    assertThat(spread.get(0).getWhenUnsatisfiable()).isEqualTo("ScheduleAnyway");
    assertThat(spread.get(0).getLabelSelector().getMatchLabels())
        .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(spread.get(1).getMaxSkew()).isEqualTo(2);
    assertThat(spread.get(1).getLabelSelector().getMatchLabels())
        .isEqualTo(Map.of("team", "platform"));

    assertThat(refusal("--set", "topologySpreadConstraints[0].maxSkew=1"))
        .contains("topologySpreadConstraints");
  }

  @Test
  void extraEnvFollowsThePodNameAndHistoryIsKeptAsAsked() throws IOException {
    String file =
        values(
            """
            extraEnv:
              - name: JAVA_TOOL_OPTIONS
                value: -Dtally.tls.cipher-order=client-default
              - name: REGION
                valueFrom:
                  configMapKeyRef: {name: cluster-info, key: region}
            revisionHistoryLimit: 3
            """);
    Deployment deployment = deployment("-f", file);
    List<EnvVar> env = aggregator(deployment).getEnv();
    assertThat(env)
        .extracting(EnvVar::getName)
        .containsExactly("POD_NAME", "JAVA_TOOL_OPTIONS", "REGION");
    assertThat(env.get(1).getValue()).isEqualTo("-Dtally.tls.cipher-order=client-default");
    assertThat(env.get(2).getValueFrom().getConfigMapKeyRef().getKey()).isEqualTo("region");
    assertThat(deployment.getSpec().getRevisionHistoryLimit()).isEqualTo(3);

    String both =
        values(
            """
            extraEnv:
              - name: A
                value: x
                valueFrom: {fieldRef: {fieldPath: metadata.name}}
            """);
    assertThat(refusal("-f", both)).contains("extraEnv");
    assertThat(refusal("--set", "extraEnv[0].value=x")).contains("name");
    assertThat(refusal("--set", "revisionHistoryLimit=-1")).contains("revisionHistoryLimit");
  }

  @Test
  void theLogsFormatAndLevelReachTheJarAndOthersAreRefused() {
    assertThat(aggregator(deployment()).getArgs())
        .contains("--log-format=text", "--log-level=info");
    assertThat(aggregator(deployment("--set", "log.format=json,log.level=debug")).getArgs())
        .contains("--log-format=json", "--log-level=debug");
    assertThat(refusal("--set", "log.format=yaml")).contains("format");
    assertThat(refusal("--set", "log.level=verbose")).contains("level");
  }

  @Test
  void thePrometheusRuleHoldsThePlainRuleFileWhenAskedFor() throws IOException {
    assertThat(objects()).noneMatch(o -> o.getKind().equals("PrometheusRule"));
    HasMetadata rule =
        objects("--set", "prometheusRule.enabled=true,prometheusRule.labels.release=kps").stream()
            .filter(o -> o.getKind().equals("PrometheusRule"))
            .findFirst()
            .orElseThrow();
    assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kps");
    Map<?, ?> spec =
        (Map<?, ?>) Serialization.unmarshal(Serialization.asJson(rule), Map.class).get("spec");
    Map<?, ?> plain = Serialization.unmarshal(Files.readString(PrometheusTools.RULES), Map.class);
    assertThat(spec).isEqualTo(plain);
    assertThat(refusal("--set", "prometheusRule.enable=true")).contains("enable");
  }

  @Test
  void theChartsIconIsAnSvgItCarries() throws IOException {
    Map<?, ?> chart =
        Serialization.unmarshal(
            Files.readString(ChartFilesTest.chartDir().resolve("Chart.yaml")), Map.class);
    String icon = (String) chart.get("icon");
    String prefix = "data:image/svg+xml;base64,";
    assertThat(icon).startsWith(prefix);
    String svg =
        new String(
            Base64.getDecoder().decode(icon.substring(prefix.length())), StandardCharsets.UTF_8);
    assertThat(svg).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"").endsWith("</svg>");
  }

  /**
   * Walks values.yaml beside the schema: a value the schema lacks goes to {@code notInSchema}; a
   * value the schema does not break down further (a leaf, or a free-form object such as {@code
   * resources}) goes to {@code settable} as a path such as {@code serviceAccount.create}.
   */
  private static void walk(
      Map<?, ?> values,
      Map<?, ?> schema,
      String prefix,
      List<String> notInSchema,
      List<String> settable) {
    Map<?, ?> properties = (Map<?, ?>) schema.get("properties");
    for (var e : values.entrySet()) {
      String path = prefix + e.getKey();
      Map<?, ?> node = properties == null ? null : (Map<?, ?>) properties.get(e.getKey());
      if (node == null) {
        notInSchema.add(path);
      } else if (e.getValue() instanceof Map<?, ?> nested && node.containsKey("properties")) {
        walk(nested, node, path + ".", notInSchema, settable);
      } else {
        settable.add(path);
      }
    }
  }

  @Test
  void everyValueIsInTheSchemaAndTheReadme() throws IOException {
    Path chart = ChartFilesTest.chartDir();
    Map<?, ?> values =
        Serialization.unmarshal(Files.readString(chart.resolve("values.yaml")), Map.class);
    Map<?, ?> schema =
        Serialization.unmarshal(Files.readString(chart.resolve("values.schema.json")), Map.class);
    String readme = Files.readString(chart.resolve("README.md"));
    List<String> notInSchema = new ArrayList<>();
    List<String> settable = new ArrayList<>();
    walk(values, schema, "", notInSchema, settable);
    List<String> notInReadme = new ArrayList<>();
    for (String path : settable) {
      // the README's table names a value whole (`serviceAccount.create`), by its last part after
      // its parent (`metrics.serviceMonitor.enabled`, `.interval`), or as a Kubernetes object
      // whole (`podSecurityContext` for `podSecurityContext.runAsUser`)
      String last = path.substring(path.lastIndexOf('.') + 1);
      boolean named = readme.contains("`." + last + "`");
      for (String part = path; !named; part = part.substring(0, part.lastIndexOf('.'))) {
        named = readme.contains("`" + part + "`");
        if (part.indexOf('.') < 0) {
          break;
        }
      }
      if (!named) {
        notInReadme.add(path);
      }
    }
    assertThat(notInSchema).as("values.yaml's values missing from values.schema.json").isEmpty();
    assertThat(notInReadme).as("values.yaml's values the chart's README does not name").isEmpty();
  }
}
