package dev.tally.report.api;

/**
 * The identity of one written aggregate object. Ordered by (kind, namespace, name).
 *
 * @param namespace empty for the cluster-scoped kinds
 */
public record ReportRef(ReportKind kind, String namespace, String name)
    implements Comparable<ReportRef> {
  public ReportRef {
    Checks.nonNull("kind", kind);
    Checks.required("name", Checks.nonNull("name", name), Checks.MAX_IDENTIFIER);
    Checks.text("namespace", namespace);
    if (kind.namespaced() == namespace.isEmpty()) {
      throw new InvalidReportException(
          "namespace",
          kind.kind() + (kind.namespaced() ? " needs a namespace" : " is cluster-scoped"));
    }
  }

  @Override
  public int compareTo(ReportRef o) {
    int c = kind.compareTo(o.kind);
    if (c == 0) {
      c = namespace.compareTo(o.namespace);
    }
    return c != 0 ? c : name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return kind.kind() + " " + (namespace.isEmpty() ? name : namespace + "/" + name);
  }
}
