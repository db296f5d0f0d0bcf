package dev.tally.report.api;

import java.util.function.BiFunction;

/**
 * Which aggregate a register's results go to. A group always lives in its subject's namespace (the
 * cluster scope for cluster-scoped subjects): a grouping only names the group within it, so no
 * grouping can move results across namespaces.
 *
 * <p>Implementations must be pure and deterministic: the same subject and key give the same name.
 */
public interface Grouping {

  /**
   * The name of the group, within the subject's namespace, that results of {@code key} about {@code
   * subject} belong to. Any non-empty string; Tally turns it into a valid object name.
   */
  String groupOf(Subject subject, CoverageKey key);

  /**
   * A stable identifier of this grouping, written into names and labels so that two groupings never
   * collide: a lowercase DNS-1123 label (letters, digits and '-', at most 63 characters), checked
   * when an aggregator is built.
   */
  String id();

  /**
   * Whether each group is exactly one subject: the aggregate then has the subject as its {@code
   * scope} and is owned by it, so garbage collection removes it with the subject.
   */
  default boolean scopedToSubject() {
    return false;
  }

  /**
   * How the aggregates are named, labelled and recognised: Tally's own layout unless the grouping
   * says otherwise. {@link ReportLayout#KYVERNO} needs {@link #scopedToSubject()}, and its readers
   * expect each group to be named by the subject's uid, as {@link #kyvernoPerResource()} does.
   */
  default ReportLayout layout() {
    return ReportLayout.TALLY;
  }

  /**
   * One report per resource, scoped to and owned by it, in Kyverno's layout: named the resource's
   * uid and labelled only {@code app.kubernetes.io/managed-by: kyverno}, as Kyverno's reports
   * controller writes them, so that Tally replaces that controller and takes over its reports.
   */
  static Grouping kyvernoPerResource() {
    return byUid("kyverno", ReportLayout.KYVERNO, "Grouping.kyvernoPerResource()");
  }

  /**
   * One report per resource, scoped to and owned by it (what Kyverno does since 1.12), in Tally's
   * layout.
   */
  static Grouping perSubject() {
    return byUid("subject", ReportLayout.TALLY, "Grouping.perSubject()");
  }

  /** One group per subject uid, scoped to its subject: the two built-in per-resource groupings. */
  private static Grouping byUid(String id, ReportLayout layout, String name) {
    return new Grouping() {
      @Override
      public String groupOf(Subject subject, CoverageKey key) {
        return subject.uid();
      }

      @Override
      public String id() {
        return id;
      }

      @Override
      public boolean scopedToSubject() {
        return true;
      }

      @Override
      public ReportLayout layout() {
        return layout;
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /** One report per namespace (and one cluster-scoped report). */
  static Grouping perNamespace() {
    return custom("namespace", (subject, key) -> "all");
  }

  /** One report per namespace and policy. */
  static Grouping perNamespaceAndPolicy() {
    return custom(
        "policy",
        (subject, key) ->
            key.source().isEmpty() ? key.policy() : key.source() + "-" + key.policy());
  }

  /** A user function from subject and (source, policy) to a group name within the namespace. */
  static Grouping custom(String id, BiFunction<Subject, CoverageKey, String> function) {
    Checks.groupingId("grouping.id", Checks.nonNull("grouping.id", id));
    Checks.nonNull("grouping.function", function);
    return new Grouping() {
      @Override
      public String groupOf(Subject subject, CoverageKey key) {
        return function.apply(subject, key);
      }

      @Override
      public String id() {
        return id;
      }

      @Override
      public String toString() {
        return "Grouping(" + id + ")";
      }
    };
  }
}
