package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.schema.FailsafeSchema;

/**
 * Checks that what was published is all in what the codec writes back. The trees are plain maps,
 * lists and scalars, read without Jackson's own types, so that the check runs on fabric8 7.x
 * (Jackson 2) and 8.x (Jackson 3) alike.
 */
public final class CarriedFields {
  /** Every scalar as the text it was written as: the failsafe schema resolves no types. */
  private static final LoadSettings TEXT =
      LoadSettings.builder()
          .setSchema(new FailsafeSchema())
          .setCodePointLimit(Integer.MAX_VALUE)
          .build();

  private CarriedFields() {}

  /** The documents of a YAML text, each a tree of maps, lists and scalar text. */
  public static List<Object> published(String yaml) {
    List<Object> out = new java.util.ArrayList<>();
    new Load(TEXT).loadAllFromString(yaml).forEach(out::add);
    return out;
  }

  /** What fabric8 writes of an object, as a tree of maps, lists and scalars. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> written(Object resource) {
    return Serialization.unmarshal(Serialization.asJson(resource), Map.class);
  }

  /**
   * Every value of the published object is in the written one, at the same path: lists have the
   * same length, maps may gain fields (a summary writes all five counts), scalars have the same
   * text. Paths a warning names are left out: the warning says what was read instead.
   */
  public static void assertCarried(
      String what, Object published, Object written, Set<String> warned) {
    assertCarried(what, "", published, written, warned);
  }

  private static void assertCarried(
      String what, String path, Object published, Object written, Set<String> warned) {
    if (warned.contains(path)) {
      return;
    }
    assertThat(written).as(what + ": " + path).isNotNull();
    if (published instanceof Map<?, ?> p) {
      assertThat(written).as(what + ": " + path + " is a map").isInstanceOf(Map.class);
      Map<?, ?> w = (Map<?, ?>) written;
      for (var e : p.entrySet()) {
        String name = String.valueOf(e.getKey());
        String child = path.isEmpty() ? name : path + "." + name;
        assertCarried(what, child, e.getValue(), w.get(name), warned);
      }
    } else if (published instanceof List<?> p) {
      assertThat(written).as(what + ": " + path + " is a list").isInstanceOf(List.class);
      List<?> w = (List<?>) written;
      assertThat(w.size()).as(what + ": " + path + " size").isEqualTo(p.size());
      for (int i = 0; i < p.size(); i++) {
        assertCarried(what, path + "[" + i + "]", p.get(i), w.get(i), warned);
      }
    } else {
      assertThat(String.valueOf(written))
          .as(what + ": " + path)
          .isEqualTo(String.valueOf(published));
    }
  }
}
