package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import tools.jackson.databind.JsonNode;

/** Checks that what was published is all in what the codec writes back. */
final class CarriedFields {
  private CarriedFields() {}

  /**
   * Every value of the published object is in the written one, at the same path: lists have the
   * same length, maps may gain fields (a summary writes all five counts), scalars have the same
   * text. Paths a warning names are left out: the warning says what was read instead.
   */
  static void assertCarried(String what, JsonNode published, JsonNode written, Set<String> warned) {
    assertCarried(what, "", published, written, warned);
  }

  private static void assertCarried(
      String what, String path, JsonNode published, JsonNode written, Set<String> warned) {
    if (warned.contains(path)) {
      return;
    }
    assertThat(written).as(what + ": " + path).isNotNull();
    if (published.isObject()) {
      assertThat(written.isObject()).as(what + ": " + path + " is a map").isTrue();
      for (String name : published.propertyNames()) {
        String child = path.isEmpty() ? name : path + "." + name;
        assertCarried(what, child, published.get(name), written.get(name), warned);
      }
    } else if (published.isArray()) {
      assertThat(written.size()).as(what + ": " + path + " size").isEqualTo(published.size());
      for (int i = 0; i < published.size(); i++) {
        assertCarried(what, path + "[" + i + "]", published.get(i), written.get(i), warned);
      }
    } else {
      assertThat(written.asString()).as(what + ": " + path).isEqualTo(published.asString());
    }
  }
}
