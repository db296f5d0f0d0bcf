package dev.tally.report.fabric8.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiServerJson#serialization()}, on the fabric8 line the tests run on (8.x here, 7.x in
 * compat/fabric8-7): it reads JSON as deeply nested and with names as long as the API server stores
 * them, where fabric8's default serialization does not, and otherwise writes and reads as fabric8's
 * default does.
 */
class ApiServerJsonTest {
  @Test
  void itReadsWhatTheApiServerStoresWhereFabric8sDefaultDoesNot() {
    KubernetesSerialization reading = ApiServerJson.serialization();
    KubernetesSerialization fabric8s = new KubernetesSerialization();

    assertThat(ApiServerJson.probe(reading)).isTrue();
    assertThat(ApiServerJson.readsEveryObject(reading)).isTrue();
    assertThat(ApiServerJson.probe(fabric8s)).isFalse();
    assertThat(ApiServerJson.readsEveryObject(fabric8s)).isFalse();
  }

  @Test
  void otherwiseItWritesAndReadsAsFabric8sDefaultDoes() {
    KubernetesSerialization reading = ApiServerJson.serialization();
    KubernetesSerialization fabric8s = new KubernetesSerialization();
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("web-0")
            .withNamespace("shop")
            .withCreationTimestamp("2030-01-01T00:00:00Z")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("nginx")
            .withNewResources()
            .addToLimits("memory", new Quantity("64Mi"))
            .endResources()
            .addNewPort()
            .withContainerPort(8080)
            .endPort()
            .withNewReadinessProbe()
            .withNewHttpGet()
            .withPort(new IntOrString("http"))
            .endHttpGet()
            .endReadinessProbe()
            .endContainer()
            .endSpec()
            .build();
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName("e")
            .endMetadata()
            .withEventTime(new MicroTime("2030-01-01T00:00:00.123456Z"))
            .withNote("n")
            .build();
    ConfigMap map = new ConfigMapBuilder().withNewMetadata().withName("m").endMetadata().build();
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("kept", null);
    withNull.put("list", List.of(1, 2.5, "three", true));
    GenericKubernetesResource generic = new GenericKubernetesResource();
    generic.setApiVersion("example.com/v1");
    generic.setKind("Widget");
    generic.setAdditionalProperty("spec", withNull);

    for (Object o : List.of(pod, event, map, generic)) {
      String json = fabric8s.asJson(o);
      assertThat(reading.asJson(o)).isEqualTo(json);
      assertThat(reading.asYaml(o)).isEqualTo(fabric8s.asYaml(o));
      Object ours = reading.unmarshal(json, o.getClass());
      assertThat(ours).isEqualTo(fabric8s.unmarshal(json, o.getClass())).isEqualTo(o);
    }
    // a typeless document is resolved by its kind, as fabric8's default does
    Object typeless = reading.unmarshal(fabric8s.asJson(pod));
    assertThat(typeless).isEqualTo(pod);
  }
}
