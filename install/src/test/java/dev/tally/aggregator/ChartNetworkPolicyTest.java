package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.Helm;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's NetworkPolicy, rendered by real Helm (built from kube-testenv's module, cached per
 * machine): absent unless asked for; when asked for, ingress to the HTTP port only, only from the
 * peers and CIDRs listed, and none at all when none is; malformed peers and CIDRs refused by the
 * schema.
 */
class ChartNetworkPolicyTest {
  private static final Path ROOT = ChartRender.ROOT;
  private static final String CHART = ChartRender.CHART;
  private static final String NAME = ChartRender.NAME;
  private static final String POLICY = "templates/networkpolicy.yaml";

  private static Helm helm() {
    return ChartRender.helm();
  }

  @TempDir Path dir;

  private Path values(String name, String yaml) throws IOException {
    return Files.writeString(dir.resolve(name), yaml);
  }

  @Test
  void noNetworkPolicyByDefault() {
    assertThat(helm().ok(ROOT, "template", NAME, CHART)).doesNotContain("kind: NetworkPolicy");
    assertThat(
            helm()
                .ok(
                    ROOT,
                    "template",
                    "tally-kyverno-aggregator",
                    CHART,
                    "-f",
                    CHART + "/values-kyverno.yaml"))
        .doesNotContain("kind: NetworkPolicy");
  }

  @Test
  void onlyTheListedPeersMayConnectAndOnlyToTheHttpPort() throws IOException {
    Path file =
        values(
            "listed.yaml",
            """
            networkPolicy:
              enabled: true
              metricsFrom:
                - namespaceSelector:
                    matchLabels:
                      kubernetes.io/metadata.name: monitoring
                  podSelector:
                    matchLabels:
                      app.kubernetes.io/name: prometheus
                - ipBlock:
                    cidr: 192.168.10.0/24
              probeFrom: [10.0.0.0/16, "fd00:10::/64"]
            """);
    NetworkPolicy policy = policy("-f", file.toString());

    assertThat(policy.getMetadata().getName()).isEqualTo(NAME);
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .as("the policy selects the aggregator's Pods")
        .isEqualTo(podLabelsSelected("-f", file.toString()));
    List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
    assertThat(rules).hasSize(2);
    for (NetworkPolicyIngressRule rule : rules) {
      assertThat(rule.getPorts())
          .as("only the HTTP port")
          .singleElement()
          .satisfies(
              port -> {
                assertThat(port.getPort().getIntVal()).isEqualTo(8080);
                assertThat(port.getProtocol()).isEqualTo("TCP");
              });
      assertThat(rule.getFrom()).as("a rule without peers would admit everyone").isNotEmpty();
    }
    List<NetworkPolicyPeer> scrapers = rules.get(0).getFrom();
    assertThat(scrapers).hasSize(2);
    assertThat(scrapers.get(0).getNamespaceSelector().getMatchLabels())
        .isEqualTo(Map.of("kubernetes.io/metadata.name", "monitoring"));
    assertThat(scrapers.get(0).getPodSelector().getMatchLabels())
        .as("namespace and pod selector in one peer: both must match")
        .isEqualTo(Map.of("app.kubernetes.io/name", "prometheus"));
    assertThat(scrapers.get(1).getIpBlock().getCidr()).isEqualTo("192.168.10.0/24");
    assertThat(rules.get(1).getFrom())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("10.0.0.0/16", "fd00:10::/64");
    assertThat(rules.get(1).getFrom())
        .allSatisfy(
            peer -> {
              assertThat(peer.getPodSelector()).isNull();
              assertThat(peer.getNamespaceSelector()).isNull();
            });

    assertThat(helm().ok(ROOT, "lint", "--strict", CHART, "-f", file.toString()))
        .contains("0 chart(s) failed");
  }

  @Test
  void scrapersAloneOrProbesAloneMakeOneRule() throws IOException {
    NetworkPolicy scrapers =
        policy(
            "--set",
            "networkPolicy.enabled=true,"
                + "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus");
    assertThat(scrapers.getSpec().getIngress())
        .singleElement()
        .satisfies(
            rule ->
                assertThat(rule.getFrom())
                    .singleElement()
                    .satisfies(
                        peer ->
                            assertThat(peer.getPodSelector().getMatchLabels())
                                .isEqualTo(Map.of("app", "prometheus"))));

    NetworkPolicy probes =
        policy("--set", "networkPolicy.enabled=true,networkPolicy.probeFrom[0]=10.0.0.0/8");
    assertThat(probes.getSpec().getIngress())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getFrom())
                  .singleElement()
                  .satisfies(
                      peer -> assertThat(peer.getIpBlock().getCidr()).isEqualTo("10.0.0.0/8"));
              assertThat(rule.getPorts())
                  .extracting(port -> port.getPort().getIntVal())
                  .containsExactly(8080);
            });
  }

  @Test
  void withNoPeerListedNoIngressIsAdmitted() {
    NetworkPolicy policy = policy("--set", "networkPolicy.enabled=true");

    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(policy.getSpec().getIngress()).isEmpty();
  }

  @Test
  void malformedPeersAndCidrsAreRefusedNamingTheValue() throws IOException {
    List<String[]> refused =
        List.of(
            new String[] {
              "networkPolicy.enabled=true,networkPolicy.probeFrom[0]=10.0.0.0", "probeFrom"
            },
            new String[] {
              "networkPolicy.enabled=true,networkPolicy.metricsFrom[0].namespaceSelektor.x=y",
              "namespaceSelektor"
            },
            new String[] {"networkPolicy.enabled=yes", "enabled"},
            new String[] {"networkPolicy.allowFrom[0]=x", "allowFrom"});
    List<String> wrong = new ArrayList<>();
    for (String[] value : refused) {
      Helm.Run run = helm().run(ROOT, "template", NAME, CHART, "--set", value[0]);
      if (run.ok() || !run.err().contains(value[1])) {
        wrong.add(value[0] + ": exit " + run.exit() + ", " + run.err());
      }
    }
    // an ipBlock is a peer alone: with a selector beside it the API server would refuse the policy
    Path mixed =
        values(
            "mixed.yaml",
            """
            networkPolicy:
              enabled: true
              metricsFrom:
                - ipBlock:
                    cidr: 10.0.0.0/8
                  namespaceSelector: {}
            """);
    Helm.Run run = helm().run(ROOT, "template", NAME, CHART, "-f", mixed.toString());
    if (run.ok() || !run.err().contains("metricsFrom")) {
      wrong.add("ipBlock beside namespaceSelector: exit " + run.exit() + ", " + run.err());
    }
    assertThat(wrong).as("values that should have been refused, naming the value").isEmpty();
  }

  /** The NetworkPolicy rendered with {@code args}. */
  private static NetworkPolicy policy(String... args) {
    return Serialization.unmarshal(render(POLICY, args), NetworkPolicy.class);
  }

  /** The labels of the Pods of the Deployment rendered with {@code args}. */
  private static Map<String, String> podLabelsSelected(String... args) {
    Deployment deployment = ChartRender.deployment(args);
    Map<String, String> pod = deployment.getSpec().getTemplate().getMetadata().getLabels();
    Map<String, String> selector = deployment.getSpec().getSelector().getMatchLabels();
    assertThat(pod).containsAllEntriesOf(selector);
    return selector;
  }

  private static String render(String template, String... args) {
    return ChartRender.render(template, args);
  }
}
