package dev.tally.report.api;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Kubernetes label selector, as results ({@code resourceSelector}) and reports ({@code
 * scopeSelector}) carry it.
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
  public LabelSelector {
    matchLabels = Checks.stringMap("matchLabels", Checks.nonNull("matchLabels", matchLabels), 63);
    matchExpressions = Checks.listOf("matchExpressions", matchExpressions);
    if (matchLabels.isEmpty() && matchExpressions.isEmpty()) {
      throw new InvalidReportException("matchLabels", "a selector needs labels or expressions");
    }
  }

  public static LabelSelector matching(Map<String, String> labels) {
    return new LabelSelector(labels, List.of());
  }

  /** One {@code matchExpressions} entry. */
  public record Requirement(String key, String operator, List<String> values) {
    private static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");

    public Requirement {
      Checks.required("key", Checks.nonNull("key", key), Checks.MAX_IDENTIFIER);
      Checks.nonNull("operator", operator);
      if (!OPERATORS.contains(operator)) {
        throw new InvalidReportException(
            "operator",
            "unknown operator '" + operator + "', expected In, NotIn, Exists or DoesNotExist");
      }
      values = Checks.listOf("values", values);
      for (int i = 0; i < values.size(); i++) {
        Checks.text("values[" + i + "]", values.get(i));
      }
    }
  }
}
