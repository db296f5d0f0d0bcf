package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The aggregator's own tables (open addressing instead of {@code HashMap}, a subject's registers in
 * an array while they are few) answer what a map answers, after any sequence of insertions and
 * removals, collisions, growth and the change between an array and an index included.
 */
class HeldRegistersProperties {
  private static final Subject SUBJECT = Subject.of("v1", "Pod", "ns", "pod", "uid-1");
  private static final int KEYS = 3 * HeldRegisters.ARRAY_MAX;
  private static final List<String> PRODUCERS = List.of("kyverno", "trivy", "audit");

  /**
   * A subject's registers against a {@code LinkedHashMap} by key, which keeps the order registers
   * must keep: a key's first insertion, a replacement in its place, a removal leaving the rest in
   * order. Operations come in phases of growth and of shrinking, so that every sequence of more
   * than a few dozen crosses {@link HeldRegisters#ARRAY_MAX} upwards and {@link
   * HeldRegisters#ARRAY_MIN} downwards, replacing and removing on both sides of each.
   */
  @Test
  void heldRegistersAnswerAsAnInsertionOrderedMapDoes() {
    Fixtures.theory()
        .forAll(lists().of(integers().between(0, Integer.MAX_VALUE)).ofSizeBetween(0, 400))
        .checkAssert(
            ops -> {
              HeldRegisters held = new HeldRegisters(SUBJECT.uid(), SUBJECT.namespace(), 4);
              Map<CoverageKey, Register> model = new LinkedHashMap<>();
              boolean wasIndexed = false;
              for (int i = 0; i < ops.size(); i++) {
                int op = ops.get(i);
                boolean growing = (i / 60) % 2 == 0;
                int choice = op & 7;
                int arg = op >>> 3;
                if (choice < (growing ? 6 : 2)) {
                  Register r = register(key(arg % KEYS), PRODUCERS.get((arg / KEYS) % 3), i);
                  held.put(r);
                  model.put(r.key, r);
                } else if (!model.isEmpty() && arg % 5 != 0) {
                  CoverageKey key = new ArrayList<>(model.keySet()).get(arg % model.size());
                  held.remove(key);
                  model.remove(key);
                } else {
                  CoverageKey absent = key(arg % KEYS);
                  held.remove(absent); // held or not: both are what a removal may be asked
                  model.remove(absent);
                }
                assertAnswersAs(held, model);
                // indexed one past the upper mark, back in an array at the lower one
                if (held.isIndexed()) {
                  assertThat(held.size())
                      .isGreaterThan(
                          wasIndexed ? HeldRegisters.ARRAY_MIN : HeldRegisters.ARRAY_MAX);
                } else {
                  assertThat(held.size())
                      .isLessThanOrEqualTo(
                          wasIndexed ? HeldRegisters.ARRAY_MIN : HeldRegisters.ARRAY_MAX);
                }
                wasIndexed = held.isIndexed();
              }
            });
  }

  /** Up past the upper mark and down past the lower one, removing from the middle. */
  @Test
  void registersAreIndexedPastTheUpperMarkAndInAnArrayAgainAtTheLowerOne() {
    HeldRegisters held = new HeldRegisters(SUBJECT.uid(), SUBJECT.namespace(), 4);
    Map<CoverageKey, Register> model = new LinkedHashMap<>();
    for (int k = 0; k < KEYS; k++) {
      Register r = register(key(k), PRODUCERS.get(k % 3), k);
      held.put(r);
      model.put(r.key, r);
      assertThat(held.isIndexed()).as("%d held", k + 1).isEqualTo(k + 1 > HeldRegisters.ARRAY_MAX);
      // a replacement on either side of the mark keeps its place and changes nothing else
      Register again = register(key(k / 2), PRODUCERS.get((k + 1) % 3), KEYS + k);
      held.put(again);
      model.put(again.key, again);
      assertAnswersAs(held, model);
    }
    while (!model.isEmpty()) {
      CoverageKey middle = new ArrayList<>(model.keySet()).get(model.size() / 2);
      held.remove(middle);
      model.remove(middle);
      assertThat(held.isIndexed())
          .as("%d held", model.size())
          .isEqualTo(model.size() > HeldRegisters.ARRAY_MIN);
      assertAnswersAs(held, model);
    }
  }

  private static void assertAnswersAs(HeldRegisters held, Map<CoverageKey, Register> model) {
    assertThat(held.size()).isEqualTo(model.size());
    assertThat(held.isEmpty()).isEqualTo(model.isEmpty());
    List<Register> inOrder = new ArrayList<>();
    held.forEach(inOrder::add);
    assertThat(inOrder).containsExactlyElementsOf(model.values());
    for (int k = 0; k < KEYS; k++) {
      // an equal key of another instance: registers are found by value, not by identity
      CoverageKey key = key(k);
      assertThat(held.get(key)).as("%s", key).isSameAs(model.get(key));
    }
    for (String producer : PRODUCERS) {
      assertThat(held.holds(producer))
          .as(producer)
          .isEqualTo(model.values().stream().anyMatch(r -> r.order.producer().equals(producer)));
    }
  }

  private static CoverageKey key(int k) {
    return CoverageKey.of("source-" + (k % 3), "policy-" + k);
  }

  private static Register register(CoverageKey key, String producer, int at) {
    EvaluationOrder order = new EvaluationOrder(Timestamp.ofSeconds(at), 0, producer, at);
    return new Register(SUBJECT, key, order, new Result[0]);
  }

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
