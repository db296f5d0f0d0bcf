package dev.tally.report.fabric8.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Constructor;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * What JSON the API server can hand a client, and a fabric8 serialization that reads all of it.
 *
 * <p>fabric8 parses a LIST or a watch event whole, so one object its JSON reader refuses fails the
 * LIST of every object of its kind, and an informer on them never syncs. Jackson's reader refuses,
 * by default, nesting deeper than 500 (Jackson 3, fabric8 8.x) or 1,000 (Jackson 2, fabric8 7.x)
 * arrays and objects and field names longer than 50,000 characters, even inside a field it skips;
 * the API server stores deeper and longer, wherever a CRD keeps unknown fields ({@code
 * x-kubernetes-preserve-unknown-fields}, as trivy-operator's does at the root of its reports):
 *
 * <ul>
 *   <li>Nesting: {@value #MAX_NESTING_DEPTH} arrays and objects, the object itself counted. The API
 *       server decodes what it stores with the JSON decoder of {@code sigs.k8s.io/json} (a fork of
 *       Go's {@code encoding/json}), whose scanner refuses deeper nesting ({@code maxNestingDepth =
 *       10000}, {@code internal/golang/encoding/json/scanner.go}), as Go's own does; {@code
 *       k8s.io/apimachinery/pkg/util/json} bounds its number conversion at the same depth, and its
 *       CBOR decoder at the same value ("the same value used in the JSON implementation"). Since
 *       the server decodes every object it reads back from etcd, none it serves is deeper: on
 *       kube-apiserver 1.37.2, 10,000 nested arrays in an unknown field of a ConfigAuditReport are
 *       stored and 10,001 refused ({@code TrivyInputRealServerTest}). Nested objects, unlike
 *       arrays, are mirrored in {@code metadata.managedFields} four levels deeper than the field
 *       itself: there too the deepest path the server serves is 10,000 (objects nested deeper are
 *       written to etcd, but the server cannot read them back: docs/DESIGN.md, "Inputs").
 *   <li>Names: a field name is at most as long as the request that carried it, {@value
 *       #MAX_REQUEST_BYTES} bytes ({@code MaxRequestBodyBytes} of {@code k8s.io/apiserver}'s {@code
 *       server.Config}, also a CRD's handler's).
 * </ul>
 *
 * Numbers cannot be longer than Jackson's 1,000 digits: the server stores each as an int64 or a
 * float64 it encodes again; strings are bounded by Jackson's default, far above the request size.
 *
 * <p>{@link #serialization()} is fabric8's default serialization with its reader's nesting raised
 * to {@value #MAX_NESTING_DEPTH} plus the two levels a LIST wraps around its items, and its names
 * to {@value #MAX_REQUEST_BYTES}: build the client an input reads through with it ({@code new
 * KubernetesClientBuilder().withKubernetesSerialization(ApiServerJson.serialization())}), as the
 * aggregator program does. Nothing is held for a field skipped: the nesting only costs the reader a
 * counter. fabric8 7.x and 8.x build their serializations from Jackson 2 and Jackson 3, whose types
 * differ; this class makes the one of the line on the class path, found from the type fabric8's
 * constructor takes.
 *
 * <p>Its reader keeps Jackson's table of field names, as fabric8's default does, although every
 * object the API server serves brings a name the table lacks ({@code metadata.managedFields} names
 * each owner reference by its uid, {@code k:{"uid":"…"}}) and the table copies itself to add it:
 * read without the table, where each name is a new string, Kyverno's reports took 1.26× as long to
 * bind and 1.34× as long to skip ({@code WatchEventDecodeBenchmark}, benchmarks/README.md, "Field
 * names kept").
 *
 * <p>Its watch events are read in one pass ({@link WatchEvents}): an object is bound to its class
 * as it is read, not read into a tree and bound again, and a DELETED event of an input's kind
 * ({@link dev.tally.report.fabric8.resource.InputResource}) yields the object's identity alone, the
 * rest skipped unread.
 */
public final class ApiServerJson {
  /**
   * The deepest nesting of arrays and objects of an object the API server stores, the object itself
   * counted.
   */
  public static final int MAX_NESTING_DEPTH = 10_000;

  /** The largest request body the API server takes: no field name it stores is longer. */
  public static final int MAX_REQUEST_BYTES = 3 * 1024 * 1024;

  /** A LIST wraps its items in two levels: the list object and its {@code items} array. */
  static final int READ_NESTING_DEPTH = MAX_NESTING_DEPTH + 2;

  /** The serializations made here: they read everything, without a probe. */
  private static final Set<KubernetesSerialization> MADE =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private ApiServerJson() {}

  /**
   * A new serialization, as fabric8 makes it by default, whose reader reads every object the API
   * server can serve, inside a LIST or a watch event.
   */
  public static KubernetesSerialization serialization() {
    return serialization(true);
  }

  /**
   * {@link #serialization()} ({@code canonicalizeNames}), or with a reader that keeps no table of
   * field names: the way measured against it by {@code WatchEventDecodeBenchmark}.
   */
  static KubernetesSerialization serialization(boolean canonicalizeNames) {
    KubernetesSerialization made =
        jackson3()
            ? Jackson3Reader.serialization(canonicalizeNames)
            : Jackson2Reader.serialization(canonicalizeNames);
    MADE.add(made);
    return made;
  }

  /**
   * Whether {@code serialization} reads every object the API server can serve: one made by {@link
   * #serialization()}, or one that reads, inside a LIST's two levels, nesting of {@value
   * #MAX_NESTING_DEPTH} and a field name of {@value #MAX_REQUEST_BYTES} characters (tried, at each
   * call, on documents of that depth and length).
   */
  public static boolean readsEveryObject(KubernetesSerialization serialization) {
    return MADE.contains(serialization) || probe(serialization);
  }

  /**
   * Whether {@code serialization} reads, inside a LIST's two levels, nesting of {@value
   * #MAX_NESTING_DEPTH} and a field name of {@value #MAX_REQUEST_BYTES} characters.
   */
  static boolean probe(KubernetesSerialization serialization) {
    String deep =
        "{\"items\":[{\"a\":"
            + "[".repeat(READ_NESTING_DEPTH - 3)
            + "]".repeat(READ_NESTING_DEPTH - 3)
            + "}]}";
    String longName = "{\"" + "a".repeat(MAX_REQUEST_BYTES) + "\":0}";
    try {
      serialization.unmarshal(deep, Probe.class);
      serialization.unmarshal(longName, Probe.class);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Whether fabric8 on the class path is the 8.x line, on Jackson 3. */
  private static boolean jackson3() {
    for (Constructor<?> c : KubernetesSerialization.class.getConstructors()) {
      Class<?>[] parameters = c.getParameterTypes();
      if (parameters.length == 2 && parameters[1] == boolean.class) {
        return parameters[0].getName().startsWith("tools.jackson.");
      }
    }
    throw new IllegalStateException(
        "fabric8's KubernetesSerialization has no (ObjectMapper, boolean) constructor");
  }

  /** A document whose every field is skipped. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Probe() {}

  /**
   * fabric8 8.x: its default mapper ({@code KubernetesSerialization()}: Jackson 3 with Jackson 2's
   * defaults and fabric8's module for the JDK types), on a JSON factory with the limits raised.
   * Loaded only on that line.
   */
  private static final class Jackson3Reader {
    static KubernetesSerialization serialization(boolean canonicalizeNames) {
      tools.jackson.core.StreamReadConstraints limits =
          tools.jackson.core.StreamReadConstraints.defaults()
              .rebuild()
              .maxNestingDepth(READ_NESTING_DEPTH)
              .maxNameLength(MAX_REQUEST_BYTES)
              .build();
      tools.jackson.core.json.JsonFactory factory =
          tools.jackson.core.json.JsonFactory.builderWithJackson2Defaults()
              .streamReadConstraints(limits)
              .configure(
                  tools.jackson.core.TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES,
                  canonicalizeNames)
              .build();
      AtomicReference<@Nullable KubernetesSerialization> made = new AtomicReference<>();
      tools.jackson.databind.json.JsonMapper mapper =
          tools.jackson.databind.json.JsonMapper.builder(factory)
              .configureForJackson2()
              .addModule(new io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule())
              .addModule(
                  new tools.jackson.databind.module.SimpleModule("tally-watch-events")
                      .addDeserializer(WatchEvent.class, new WatchEvents.Jackson3(made::get)))
              .build();
      made.set(new KubernetesSerialization(mapper, true));
      return made.get();
    }
  }

  /**
   * fabric8 7.x: its default mapper (a new Jackson 2 {@code ObjectMapper}) with the limits of its
   * factory raised, passed to the constructor that takes a Jackson 2 mapper, which this jar,
   * compiled against 8.x, reaches by reflection. Loaded only on that line.
   */
  private static final class Jackson2Reader {
    @SuppressWarnings("deprecation") // JsonFactory.configure(Feature, boolean): 2.x's only setter
    static KubernetesSerialization serialization(boolean canonicalizeNames) {
      com.fasterxml.jackson.databind.ObjectMapper mapper =
          new com.fasterxml.jackson.databind.ObjectMapper();
      mapper
          .getFactory()
          .configure(
              com.fasterxml.jackson.core.JsonFactory.Feature.CANONICALIZE_FIELD_NAMES,
              canonicalizeNames)
          .setStreamReadConstraints(
              com.fasterxml.jackson.core.StreamReadConstraints.defaults()
                  .rebuild()
                  .maxNestingDepth(READ_NESTING_DEPTH)
                  .maxNameLength(MAX_REQUEST_BYTES)
                  .build());
      AtomicReference<@Nullable KubernetesSerialization> made = new AtomicReference<>();
      mapper.registerModule(
          new com.fasterxml.jackson.databind.module.SimpleModule("tally-watch-events")
              .addDeserializer(WatchEvent.class, new WatchEvents.Jackson2(made::get)));
      try {
        made.set(
            KubernetesSerialization.class
                .getConstructor(com.fasterxml.jackson.databind.ObjectMapper.class, boolean.class)
                .newInstance(mapper, true));
        return made.get();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(
            "fabric8's KubernetesSerialization(ObjectMapper, boolean) cannot be called", e);
      }
    }
  }
}
