package dev.tally.report.files;

import dev.tally.report.api.ReportKind;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Trees of maps, lists and scalars to report-fabric8's aggregate resource classes and back, through
 * fabric8's {@link KubernetesSerialization}, so that the same class runs on fabric8 7.x (Jackson 2)
 * and 8.x (Jackson 3). {@link ReportReader} binds the trees it reads through {@link #bind}, and
 * {@link ReadReport} keeps objects as their JSON; report-fabric8's {@code AggregateCodec} only
 * writes and strictly decodes objects, and binds no trees.
 */
final class Binding {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private Binding() {}

  /**
   * Binds a tree to the resource class of {@code kind}. fabric8 picks the class by apiVersion and
   * kind, so what it binds names the class's own; the object keeps the apiVersion the tree has. The
   * tree is not changed.
   *
   * @throws IllegalArgumentException if the tree does not bind, with Jackson's exception (which
   *     names the path, see {@link Failure}) as its cause
   */
  static AggregateResource bind(Map<String, Object> tree, ReportKind kind) {
    Object apiVersion = tree.get("apiVersion");
    Map<String, Object> named = new LinkedHashMap<>(tree);
    named.put("apiVersion", kind.apiVersion());
    named.put("kind", kind.kind());
    AggregateResource res = SERIALIZATION.convertValue(named, ReportCodec.resourceClass(kind));
    res.setApiVersion(apiVersion instanceof String s ? s : kind.apiVersion());
    return res;
  }

  /** The JSON of an aggregate object. */
  static String toJson(AggregateResource res) {
    return SERIALIZATION.asJson(res);
  }

  /** An aggregate object from its {@link #toJson} form, whatever version it names. */
  @SuppressWarnings("unchecked")
  static AggregateResource fromJson(String json, ReportKind kind) {
    return bind(SERIALIZATION.unmarshal(json, Map.class), kind);
  }

  /**
   * What a binding failure of Jackson says: the path to the value, the type it expected (when the
   * value did not fit it) and the message. fabric8 7.x binds with Jackson 2 ({@code
   * com.fasterxml.jackson}), 8.x with Jackson 3 ({@code tools.jackson}); their exceptions have the
   * same shape under other names, so they are read by name and this class links against neither.
   */
  record Failure(List<Object> path, @Nullable Class<?> target, @Nullable String message) {
    static @Nullable Failure of(@Nullable Throwable t) {
      if (t == null) {
        return null;
      }
      String type = t.getClass().getName();
      if (!type.startsWith("tools.jackson.") && !type.startsWith("com.fasterxml.jackson.")) {
        return null;
      }
      try {
        List<Object> path = new ArrayList<>();
        for (Object ref : (List<?>) call(t, "getPath")) {
          // Jackson 3 calls it the property name, Jackson 2 the field name
          Object name =
              call(
                  ref, method(ref, "getPropertyName") != null ? "getPropertyName" : "getFieldName");
          int index = (Integer) call(ref, "getIndex");
          if (name != null) {
            path.add(name.toString());
          } else if (index >= 0) {
            path.add(index);
          }
        }
        Class<?> target =
            isA(t.getClass(), "MismatchedInputException")
                ? (Class<?>) call(t, "getTargetType")
                : null;
        return new Failure(path, target, (String) call(t, "getOriginalMessage"));
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    private static boolean isA(@Nullable Class<?> type, String simpleName) {
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        if (c.getSimpleName().equals(simpleName)) {
          return true;
        }
      }
      return false;
    }

    private static @Nullable Method method(Object target, String name) {
      try {
        return target.getClass().getMethod(name);
      } catch (NoSuchMethodException e) {
        return null;
      }
    }

    private static @Nullable Object call(Object target, String name)
        throws ReflectiveOperationException {
      return target.getClass().getMethod(name).invoke(target);
    }
  }
}
