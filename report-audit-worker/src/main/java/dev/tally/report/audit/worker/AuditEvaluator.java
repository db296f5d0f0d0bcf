package dev.tally.report.audit.worker;

import dev.tally.report.api.Result;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;

/**
 * The user's policy evaluation of one object. Every result must belong to the audit's coverage (the
 * policies audited); an empty list says that none of them applies any more, which retracts earlier
 * results. Called on the member's audit thread; must not block for long.
 */
@FunctionalInterface
public interface AuditEvaluator {
  List<Result> evaluate(GenericKubernetesResource object);
}
