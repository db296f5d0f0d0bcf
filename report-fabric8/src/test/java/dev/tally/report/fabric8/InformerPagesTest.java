package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.fabric8.resource.PartialReportResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An input's informers list their kind in pages of {@link InputKind#INFORMER_PAGE}: at 50,000 Pods
 * a LIST of every Kyverno report at once timed out on a busy API server, again and again, and the
 * aggregator never synced (README, "Performance"). The mock API server records the requests.
 */
@EnableKubernetesMockClient(crud = true)
class InformerPagesTest {
  KubernetesMockServer server;

  private KubernetesClient client;
  private final List<io.fabric8.kubernetes.client.informers.SharedIndexInformer<?>> started =
      new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(i -> i.close());
    if (client != null) {
      MockCluster.close(client);
    }
  }

  @Test
  void anInputsInformersListInPages() throws Exception {
    client = MockCluster.client(server);
    for (int i = 0; i < 3; i++) {
      client
          .resources(PartialReportResource.class)
          .resource(RefusedCopiesTest.valid("t", "r-" + i))
          .create();
    }
    while (server.takeRequest(0, TimeUnit.SECONDS) != null) {
      // the creates: not what is looked at
    }

    for (var informer : new PartialReportsInput().informers(client)) {
      started.add(informer);
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    List<String> lists = new ArrayList<>();
    for (var r = server.takeRequest(0, TimeUnit.SECONDS);
        r != null;
        r = server.takeRequest(0, TimeUnit.SECONDS)) {
      String path = r.getPath();
      if ("GET".equals(r.getMethod()) && !path.contains("watch=true")) {
        lists.add(path);
      }
    }
    assertThat(lists)
        .as("the informers' LISTs of partialreports and clusterpartialreports")
        .hasSize(2)
        .allSatisfy(p -> assertThat(p).contains("limit=" + InputKind.INFORMER_PAGE));
    assertThat(started.get(0).getStore().list())
        .extracting(o -> ((HasMetadata) o).getMetadata().getName())
        .containsExactlyInAnyOrder("r-0", "r-1", "r-2");
  }
}
