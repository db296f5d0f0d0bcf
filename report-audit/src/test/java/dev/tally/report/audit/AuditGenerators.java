package dev.tally.report.audit;

import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Generators of audit planning inputs, shared by the property tests of this package. */
final class AuditGenerators {
  private static final List<GroupVersionKind> KINDS =
      List.of(
          GroupVersionKind.of("", "v1", "Pod"),
          GroupVersionKind.of("", "v1", "ConfigMap"),
          GroupVersionKind.of("apps", "v1", "Deployment"),
          GroupVersionKind.of("networking.k8s.io", "v1", "Ingress"),
          GroupVersionKind.of("rbac.authorization.k8s.io", "v1", "ClusterRole"));

  private AuditGenerators() {}

  /** Mostly light units with an occasional heavy one, unique ids. */
  static Gen<List<WorkUnit>> units(int minSize, int maxSize) {
    Gen<Integer> weight = integers().between(1, 50).mix(integers().between(1, 2000), 10);
    return lists()
        .of(weight)
        .ofSizeBetween(minSize, maxSize)
        .map(
            weights -> {
              List<WorkUnit> units = new ArrayList<>();
              for (int i = 0; i < weights.size(); i++) {
                GroupVersionKind gvk = KINDS.get(i % KINDS.size());
                units.add(WorkUnit.ofNamespace(gvk, "ns-" + i, weights.get(i)));
              }
              return List.copyOf(units);
            });
  }

  /** Many light units: weights that allow the balance bound for up to a dozen members. */
  static Gen<List<WorkUnit>> lightUnits() {
    return lists()
        .of(integers().between(1, 20))
        .ofSizeBetween(150, 400)
        .map(
            weights -> {
              List<WorkUnit> units = new ArrayList<>();
              for (int i = 0; i < weights.size(); i++) {
                units.add(
                    WorkUnit.ofNamespace(KINDS.get(i % KINDS.size()), "ns-" + i, weights.get(i)));
              }
              return List.copyOf(units);
            });
  }

  /** One to twelve distinct member ids, sorted. */
  static Gen<List<String>> members() {
    return lists()
        .of(integers().between(0, 60))
        .ofSizeBetween(1, 12)
        .map(
            ids -> {
              TreeSet<String> names = new TreeSet<>();
              for (int id : ids) {
                names.add("member-" + id);
              }
              return List.copyOf(names);
            });
  }

  static Gen<UnitStatus> statuses() {
    Gen<UnitState> state = Generate.enumValues(UnitState.class);
    Gen<Integer> attempts = integers().between(1, 4);
    Gen<String> member = Generate.pick(List.of("a", "b", "c"));
    Gen<Integer> objects = integers().between(0, 3);
    return state.zip(
        attempts,
        member,
        objects,
        (s, n, m, o) ->
            switch (s) {
              case PENDING -> UnitStatus.pending(m, n);
              case FAILED -> UnitStatus.failed(m, n, o % 2 == 0 ? "HTTP 500" : "410 Gone");
              case DONE -> UnitStatus.done(m, n, o);
            });
  }

  static Gen<RunLedger> ledgers(RunId runId) {
    Gen<String> unit = Generate.pick(List.of("u0", "u1", "u2", "u3", "u4", "u5"));
    Gen<List<String>> units = lists().of(unit).ofSizeBetween(0, 8);
    Gen<List<UnitStatus>> statuses = lists().of(statuses()).ofSize(8);
    return units.zip(
        statuses,
        (us, ss) -> {
          RunLedger ledger = RunLedger.empty(runId);
          for (int i = 0; i < us.size(); i++) {
            ledger = ledger.with(us.get(i), ss.get(i));
          }
          return ledger;
        });
  }
}
