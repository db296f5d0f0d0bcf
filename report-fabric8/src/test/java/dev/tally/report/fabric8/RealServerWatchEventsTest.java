package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Watch events as the real API server writes them, read through {@link
 * ApiServerJson#serialization()} (docs/DESIGN.md, "Inputs"): the server writes an event's type
 * before its object and a custom resource's apiVersion and kind before its other fields, which the
 * one-pass reading relies on; an informer on an input's kind gets an ADDED object whole and a
 * DELETED one as its identity alone.
 */
@ExtendWith(RealKubernetes.class)
class RealServerWatchEventsTest {
  @Test
  void theServerWritesTypeThenKindFirstAndADeletionArrivesAsAnIdentity(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    RealServer.installCrds(admin);
    String ns = cluster.namespace();
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(admin.getConfiguration())
            .withKubernetesSerialization(ApiServerJson.serialization())
            .build()) {
      InputResource.register(client, PartialReportResource.class);
      List<PartialReportResource> added = new CopyOnWriteArrayList<>();
      List<PartialReportResource> deleted = new CopyOnWriteArrayList<>();
      String from =
          admin
              .resources(PartialReportResource.class)
              .inNamespace(ns)
              .list()
              .getMetadata()
              .getResourceVersion();
      try (var informer =
          client
              .resources(PartialReportResource.class)
              .inNamespace(ns)
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(PartialReportResource obj) {
                      added.add(obj);
                    }

                    @Override
                    public void onUpdate(PartialReportResource old, PartialReportResource obj) {}

                    @Override
                    public void onDelete(PartialReportResource obj, boolean unknownFinalState) {
                      deleted.add(obj);
                    }
                  })) {
        admin
            .resources(PartialReportResource.class)
            .resource(RefusedCopiesTest.valid(ns, "watched"))
            .create();
        Await.until("the informer saw the partial report", () -> added.size() == 1);
        admin.resources(PartialReportResource.class).inNamespace(ns).withName("watched").delete();
        Await.until("the informer saw its deletion", () -> deleted.size() == 1);
      }

      PartialReportResource whole = added.get(0);
      assertThat(InputResource.isIdentityOnly(whole)).isFalse();
      assertThat(whole.getSpec().results()).hasSize(1);
      PartialReportResource gone = deleted.get(0);
      assertThat(InputResource.isIdentityOnly(gone)).isTrue();
      assertThat(gone.getSpec()).isNull();
      assertThat(gone.getMetadata().getName()).isEqualTo("watched");
      assertThat(gone.getMetadata().getNamespace()).isEqualTo(ns);
      assertThat(gone.getMetadata().getUid()).isEqualTo(whole.getMetadata().getUid());

      // the same two events as the server writes them: type first, then apiVersion and kind
      HttpClient http = admin.getHttpClient();
      HttpRequest request =
          http.newHttpRequestBuilder()
              .uri(
                  URI.create(
                      admin.getMasterUrl()
                          + "apis/tally.dev/v1alpha1/namespaces/"
                          + ns
                          + "/partialreports?watch=true&timeoutSeconds=1&resourceVersion="
                          + from))
              .build();
      String stream = http.sendAsync(request, String.class).get(60, TimeUnit.SECONDS).body();
      List<String> events = stream.lines().filter(l -> !l.isBlank()).toList();
      assertThat(events).hasSize(2);
      assertThat(events.get(0))
          .startsWith(
              "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"tally.dev/v1alpha1\","
                  + "\"kind\":\"PartialReport\",");
      assertThat(events.get(1))
          .startsWith(
              "{\"type\":\"DELETED\",\"object\":{\"apiVersion\":\"tally.dev/v1alpha1\","
                  + "\"kind\":\"PartialReport\",");
    }
  }
}
