package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.util.regex.Pattern;

/**
 * One LIST-sized piece of an audit: the objects of a kind, in one namespace or (when {@link
 * #namespace()} is empty) in all of them. The weight estimates the cost, the object count of the
 * last run; it is at least 1 because even an empty LIST costs a request.
 *
 * <p>Identity is {@link #id()}, which leaves the weight out: the same unit keeps its status in the
 * ledger when its estimate changes.
 *
 * @param gvk the kind
 * @param namespace one namespace, or empty for the whole kind (cluster-scoped or all namespaces)
 * @param weight the estimated cost, at least 1
 */
public record WorkUnit(GroupVersionKind gvk, String namespace, long weight) {
  /** Upper bound on one weight, so that sums and products in the planner cannot overflow. */
  public static final long MAX_WEIGHT = 1L << 36;

  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  public WorkUnit {
    if (!namespace.isEmpty()
        && (namespace.length() > 63 || !NAMESPACE.matcher(namespace).matches())) {
      throw new InvalidReportException("namespace", "'" + namespace + "' is not a DNS label");
    }
    if (weight < 1 || weight > MAX_WEIGHT) {
      throw new InvalidReportException(
          "weight", "must be in [1, " + MAX_WEIGHT + "], was " + weight);
    }
  }

  /** The whole kind: cluster-scoped, or every namespace in one LIST. */
  public static WorkUnit ofKind(GroupVersionKind gvk, long weight) {
    return new WorkUnit(gvk, "", weight);
  }

  public static WorkUnit ofNamespace(GroupVersionKind gvk, String namespace, long weight) {
    return new WorkUnit(gvk, namespace, weight);
  }

  /**
   * A stable identity that is also a valid ConfigMap key ({@code [-._a-zA-Z0-9]+}): {@code
   * Kind.version.group} ({@code core} for the core group), then {@code _namespace} for a namespace
   * unit. Neither kinds, versions, groups nor namespaces contain {@code _}, so it is unambiguous.
   */
  public String id() {
    String base =
        gvk.kind() + "." + gvk.version() + "." + (gvk.group().isEmpty() ? "core" : gvk.group());
    return namespace.isEmpty() ? base : base + "_" + namespace;
  }

  /**
   * The unit with this {@link #id()} and weight.
   *
   * @throws InvalidReportException if {@code id} is not of the form {@link #id()} writes
   */
  public static WorkUnit fromId(String id, long weight) {
    int underscore = id.indexOf('_');
    String base = underscore < 0 ? id : id.substring(0, underscore);
    String namespace = underscore < 0 ? "" : id.substring(underscore + 1);
    String[] parts = base.split("\\.", 3);
    if (parts.length != 3) {
      throw new InvalidReportException(
          "unit", "'" + id + "' is not Kind.version.group[_namespace]");
    }
    String group = parts[2].equals("core") ? "" : parts[2];
    try {
      return new WorkUnit(new GroupVersionKind(group, parts[1], parts[0]), namespace, weight);
    } catch (InvalidReportException e) {
      throw e.under("unit");
    }
  }

  /** Whether this unit covers the whole kind rather than one namespace. */
  public boolean wholeKind() {
    return namespace.isEmpty();
  }

  /** The same unit with another weight estimate. */
  public WorkUnit withWeight(long newWeight) {
    return new WorkUnit(gvk, namespace, newWeight);
  }

  @Override
  public String toString() {
    return id() + "(" + weight + ")";
  }
}
