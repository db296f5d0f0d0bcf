package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The aggregator's own tables (open addressing instead of {@code HashMap}) answer what a map
 * answers, after any sequence of insertions and removals, collisions and growth included.
 */
class HeldRegistersProperties {

  @Test
  void byUidAnswersAsAMapDoes() {
    // an operation is (uid among 64, insert or remove): few uids, so runs collide and wrap
    Fixtures.theory()
        .forAll(lists().of(integers().between(0, 127)).ofSizeBetween(0, 300))
        .checkAssert(
            ops -> {
              HeldRegisters.ByUid table = new HeldRegisters.ByUid();
              Map<String, HeldRegisters> model = new HashMap<>();
              for (int op : ops) {
                String uid = "uid-" + (op >> 1);
                if ((op & 1) == 0) {
                  HeldRegisters h = new HeldRegisters(uid, "ns", 1);
                  table.put(h);
                  model.put(uid, h);
                } else {
                  table.remove(uid);
                  model.remove(uid);
                }
                for (int u = 0; u < 64; u++) {
                  String k = "uid-" + u;
                  assertThat(table.get(k)).as(k).isSameAs(model.get(k));
                }
              }
              Map<String, HeldRegisters> seen = new HashMap<>();
              table.forEach(h -> assertThat(seen.put(h.uid, h)).isNull());
              assertThat(seen).isEqualTo(model);
            });
  }

  @Test
  void internSetHoldsTheFirstInstanceOfEachValue() {
    Fixtures.theory()
        .forAll(lists().of(integers().between(0, 500)).ofSizeBetween(0, 400))
        .checkAssert(
            values -> {
              InternSet<String> set = new InternSet<>();
              Map<String, String> model = new HashMap<>();
              for (int v : values) {
                @SuppressWarnings("StringOperationCanBeSimplified")
                String s = new String("v" + v);
                assertThat(set.get(s)).isSameAs(model.get(s));
                String first = model.putIfAbsent(s, s);
                assertThat(set.intern(s)).isSameAs(first == null ? s : first);
                assertThat(set.size()).isEqualTo(model.size());
              }
              for (String s : List.copyOf(model.keySet())) {
                assertThat(set.get(new String(s))).isSameAs(model.get(s));
              }
            });
  }
}
