package dev.tally.report.josdk;

import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.tally.report.fabric8.resource.AggregateResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The aggregate kinds on fabric8 7.x (Jackson 2). report-fabric8's {@link AggregateResource}
 * implements {@code HasMetadata} itself and is annotated for Jackson 3 only; Jackson 2 then
 * inherits fabric8's polymorphic {@code KubernetesDeserializer} from {@code KubernetesResource},
 * which calls itself for the concrete class until the stack overflows: every read of a PolicyReport
 * fails. While report-fabric8 does not carry the Jackson 2 annotation, the aggregator gets a client
 * whose mapper adds it as a mix-in.
 */
final class AggregateSerialization {
  private AggregateSerialization() {}

  /** What Jackson 2 needs on the aggregate kinds: their own bean deserializer. */
  @JsonDeserialize(using = JsonDeserializer.None.class)
  private interface PlainBean {}

  /** Whether report-fabric8's aggregate kinds lack the Jackson 2 annotation. */
  static boolean needed() {
    return AggregateResource.class.getAnnotation(JsonDeserialize.class) == null;
  }

  /** A serialization that reads the aggregate kinds with Jackson 2. */
  static KubernetesSerialization serialization() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.addMixIn(AggregateResource.class, PlainBean.class);
    return new KubernetesSerialization(mapper, true);
  }

  /**
   * A client for the aggregator: {@code client} itself when it can read the aggregate kinds,
   * otherwise a new one with {@code client}'s configuration and {@link #serialization()} (the
   * caller closes it).
   */
  static KubernetesClient forAggregator(KubernetesClient client) {
    if (!needed()) {
      return client;
    }
    return new KubernetesClientBuilder()
        .withConfig(client.getConfiguration())
        .withKubernetesSerialization(serialization())
        .build();
  }
}
