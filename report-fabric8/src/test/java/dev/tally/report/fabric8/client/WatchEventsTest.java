package dev.tally.report.fabric8.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * How {@link ApiServerJson#serialization()} reads watch events ({@link WatchEvents}), on the
 * fabric8 line the tests run on (8.x here, 7.x in compat/fabric8-7): an ADDED or MODIFIED event's
 * object is bound to its class once, from the parser; a DELETED event of an input's kind is read as
 * the object's identity, its body skipped unread; everything else as fabric8 reads it.
 */
class WatchEventsTest {
  private static final String PARTIAL =
      "\"apiVersion\":\"tally.dev/v1alpha1\",\"kind\":\"PartialReport\","
          + "\"metadata\":{\"name\":\"pod-a\",\"namespace\":\"shop\",\"uid\":\"u-1\","
          + "\"resourceVersion\":\"42\",\"generation\":3,\"labels\":{\"app\":\"a\"},"
          + "\"managedFields\":[{\"manager\":\"m\",\"fieldsV1\":{\"f:spec\":{}}}]},";

  private static final String SPEC =
      "\"spec\":{\"producer\":\"scanner\",\"subjectVersion\":\"7\",\"generation\":3,"
          + "\"results\":[{\"policy\":\"p\",\"rule\":\"r\",\"result\":\"fail\"}]}";

  /** A body the input's class cannot bind: reading it would fail. */
  private static final String UNBINDABLE = "\"spec\":{\"results\":\"not a list\"}";

  private static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":{" + object + "}}";
  }

  private static KubernetesSerialization reading() {
    KubernetesSerialization s = ApiServerJson.serialization();
    s.registerKubernetesResource(PartialReportResource.class);
    return s;
  }

  private static KubernetesSerialization fabric8s() {
    KubernetesSerialization s = new KubernetesSerialization();
    s.registerKubernetesResource(PartialReportResource.class);
    return s;
  }

  @Test
  void anAddedEventIsBoundToTheInputsClassAsFabric8BindsIt() {
    String added = event("ADDED", PARTIAL + SPEC);

    WatchEvent ours = reading().unmarshal(added, WatchEvent.class);
    WatchEvent theirs = fabric8s().unmarshal(added, WatchEvent.class);

    assertThat(ours.getType()).isEqualTo("ADDED");
    assertThat(ours.getObject()).isInstanceOf(PartialReportResource.class);
    var report = (PartialReportResource) ours.getObject();
    assertThat(InputResource.isIdentityOnly(report)).isFalse();
    assertThat(report.getSpec().producer()).isEqualTo("scanner");
    assertThat(report.getSpec().results()).hasSize(1);
    assertThat(report.getMetadata().getLabels()).containsEntry("app", "a");
    assertThat(report.getMetadata().getManagedFields()).isEmpty();
    assertThat(report.getApiVersion()).isEqualTo("tally.dev/v1alpha1");
    assertThat(report.getKind()).isEqualTo("PartialReport");
    assertThat(report).isEqualTo(theirs.getObject());
  }

  @Test
  void aDeletedEventOfAnInputsKindIsReadAsItsIdentityItsBodyUnread() {
    String deleted = event("DELETED", PARTIAL + UNBINDABLE);

    WatchEvent ours = reading().unmarshal(deleted, WatchEvent.class);

    assertThat(ours.getType()).isEqualTo("DELETED");
    var gone = (PartialReportResource) ours.getObject();
    assertThat(InputResource.isIdentityOnly(gone)).isTrue();
    assertThat(gone.getKind()).isEqualTo("PartialReport");
    assertThat(gone.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(gone.getMetadata().getName()).isEqualTo("pod-a");
    assertThat(gone.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(gone.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(gone.getMetadata().getGeneration()).isEqualTo(3L);
    assertThat(gone.getMetadata().getLabels()).isNullOrEmpty();
    assertThat(gone.getSpec()).isNull();
    // fabric8 binds the deleted object's body, and fails on it
    assertThatThrownBy(() -> fabric8s().unmarshal(deleted, WatchEvent.class))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void otherKindsAndOtherOrdersAreReadAsFabric8ReadsThem() {
    KubernetesSerialization reading = reading();
    String configMap =
        "\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
            + "\"metadata\":{\"name\":\"c\",\"namespace\":\"shop\",\"resourceVersion\":\"5\"},"
            + "\"data\":{\"k\":\"v\"}";
    // a kind no input reads: a user's informer on the same client may read its deletions whole
    var map =
        (ConfigMap) reading.unmarshal(event("DELETED", configMap), WatchEvent.class).getObject();
    assertThat(map.getData()).containsEntry("k", "v");
    assertThat(InputResource.isIdentityOnly(map)).isFalse();

    // an aggregate, which fabric8 binds through its own deserializer, and whose deletion a user's
    // informer reads whole
    String policyReport =
        "\"apiVersion\":\"wgpolicyk8s.io/v1alpha2\",\"kind\":\"PolicyReport\","
            + "\"metadata\":{\"name\":\"r\",\"namespace\":\"shop\",\"resourceVersion\":\"6\"},"
            + "\"results\":[{\"policy\":\"p\",\"result\":\"fail\"}]";
    for (String type : List.of("MODIFIED", "DELETED")) {
      var aggregate =
          (PolicyReportResource)
              reading.unmarshal(event(type, policyReport), WatchEvent.class).getObject();
      assertThat(aggregate.getMetadata().getName()).isEqualTo("r");
      assertThat(aggregate.getResults()).hasSize(1);
    }

    // an apiVersion that is not a string: the rest read as fabric8 does, the event's own fields
    // kept apart from the object's
    String odd =
        "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":[1],\"kind\":\"ConfigMap\","
            + "\"type\":\"inner\",\"metadata\":{\"name\":\"c\"}},\"x\":1}";
    assertThat(reading.unmarshal(odd, WatchEvent.class).getType()).isEqualTo("MODIFIED");

    // the object before the type, and apiVersion after the metadata: fabric8's reading
    String objectFirst = "{\"object\":{" + PARTIAL + UNBINDABLE + "},\"type\":\"DELETED\"}";
    assertThatThrownBy(() -> reading.unmarshal(objectFirst, WatchEvent.class))
        .isInstanceOf(RuntimeException.class);
    String late =
        event(
            "MODIFIED",
            "\"metadata\":{\"name\":\"pod-a\",\"namespace\":\"shop\"},"
                + SPEC
                + ",\"apiVersion\":\"tally.dev/v1alpha1\",\"kind\":\"PartialReport\"");
    var report = (PartialReportResource) reading.unmarshal(late, WatchEvent.class).getObject();
    assertThat(report.getSpec().producer()).isEqualTo("scanner");

    // an error event's Status and a bookmark
    String error =
        event(
            "ERROR", "\"apiVersion\":\"v1\",\"kind\":\"Status\",\"code\":410,\"reason\":\"Gone\"");
    assertThat(((Status) reading.unmarshal(error, WatchEvent.class).getObject()).getCode())
        .isEqualTo(410);
    String bookmark =
        event(
            "BOOKMARK",
            "\"apiVersion\":\"tally.dev/v1alpha1\",\"kind\":\"PartialReport\","
                + "\"metadata\":{\"resourceVersion\":\"77\","
                + "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}");
    var mark = (PartialReportResource) reading.unmarshal(bookmark, WatchEvent.class).getObject();
    assertThat(mark.getMetadata().getResourceVersion()).isEqualTo("77");
    assertThat(mark.getMetadata().getAnnotations()).containsKey("k8s.io/initial-events-end");
  }

  /**
   * What the reading asks of the parser: an ADDED event's object is bound once, straight from the
   * parser (no tree is read first), and of a DELETED event only the type, the kind and the
   * metadata's identity are read as text; its body and other metadata are skipped.
   */
  @Test
  void anAddedObjectIsBoundOnceAndADeletedBodyIsSkippedNotRead() throws IOException {
    Counting added = new Counting(event("ADDED", PARTIAL + SPEC));
    WatchEvent a = WatchEvents.read(added, (v, k) -> PartialReportResource.class);
    assertThat(a.getObject()).isInstanceOf(PartialReportResource.class);
    assertThat(added.binds).containsExactly(PartialReportResource.class);
    assertThat(added.trees).isZero();
    assertThat(added.texts).containsExactly("ADDED", "tally.dev/v1alpha1", "PartialReport");

    Counting deleted = new Counting(event("DELETED", PARTIAL + SPEC));
    WatchEvent d = WatchEvents.read(deleted, (v, k) -> PartialReportResource.class);
    assertThat(InputResource.isIdentityOnly((PartialReportResource) d.getObject())).isTrue();
    assertThat(deleted.binds).isEmpty();
    assertThat(deleted.trees).isZero();
    assertThat(deleted.texts)
        .containsExactly(
            "DELETED", "tally.dev/v1alpha1", "PartialReport", "pod-a", "shop", "u-1", "42", "3");
    assertThat(deleted.skipped).contains("spec", "labels", "managedFields");
  }

  /**
   * A parser over real JSON (Jackson 2's, on both lines) that records what the reading asks: the
   * scalars read as text, the fields skipped, the binds and the trees. A bind skips what it would
   * have bound and returns an empty object of the class.
   */
  private static final class Counting implements WatchEvents.Tokens {
    private final JsonParser p;
    final List<String> texts = new ArrayList<>();
    final List<String> skipped = new ArrayList<>();
    final List<Class<?>> binds = new ArrayList<>();
    int trees;
    private @Nullable String field;

    Counting(String json) throws IOException {
      this.p = new JsonFactory().createParser(json);
    }

    @Override
    public WatchEvents.Token next() throws IOException {
      JsonToken t = p.nextToken();
      if (t == null) {
        return WatchEvents.Token.END;
      }
      return switch (t) {
        case START_OBJECT -> WatchEvents.Token.START_OBJECT;
        case END_OBJECT -> WatchEvents.Token.END_OBJECT;
        case FIELD_NAME -> {
          field = p.currentName();
          yield WatchEvents.Token.FIELD;
        }
        case START_ARRAY -> WatchEvents.Token.START_ARRAY;
        case END_ARRAY -> WatchEvents.Token.END_ARRAY;
        case VALUE_NULL -> WatchEvents.Token.NULL;
        default -> WatchEvents.Token.SCALAR;
      };
    }

    @Override
    public String name() throws IOException {
      return p.currentName();
    }

    @Override
    public String text() throws IOException {
      texts.add(p.getText());
      return p.getText();
    }

    @Override
    public void skip() throws IOException {
      if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
        skipped.add(field);
      }
      p.skipChildren();
    }

    @Override
    public <T> T bindRest(Class<T> type) throws IOException {
      binds.add(type);
      while (p.currentToken() != JsonToken.END_OBJECT) {
        p.nextToken();
        p.skipChildren();
        p.nextToken();
      }
      try {
        return type.getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public @Nullable Object readWhole() {
      trees++;
      return null;
    }

    @Override
    public @Nullable Object readRest(@Nullable String apiVersion, @Nullable String kind) {
      trees++;
      return null;
    }
  }
}
