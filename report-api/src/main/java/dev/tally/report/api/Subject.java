package dev.tally.report.api;

/**
 * The Kubernetes object a result is about: an object reference as both formats write it. Absent
 * values are empty strings.
 *
 * @param apiVersion such as {@code v1} or {@code apps/v1}
 * @param kind such as {@code Pod}
 * @param namespace empty for a cluster-scoped object
 * @param name the object's name
 * @param uid the object's uid; empty while it is not known yet (admission on CREATE)
 */
public record Subject(String apiVersion, String kind, String namespace, String name, String uid) {
  /** The most chars of {@code apiVersion}, {@code kind} and {@code name}. */
  public static final int MAX_FIELD = Checks.MAX_IDENTIFIER;

  /** The most chars of {@code namespace}: a DNS-1123 label. */
  public static final int MAX_NAMESPACE = 63;

  /** The most chars of {@code uid}. */
  public static final int MAX_UID = 128;

  public Subject {
    Checks.optional("apiVersion", Checks.nonNull("apiVersion", apiVersion), MAX_FIELD);
    Checks.optional("kind", Checks.nonNull("kind", kind), MAX_FIELD);
    Checks.optional("namespace", Checks.nonNull("namespace", namespace), MAX_NAMESPACE);
    Checks.optional("name", Checks.nonNull("name", name), MAX_FIELD);
    Checks.optional("uid", Checks.nonNull("uid", uid), MAX_UID);
  }

  public static Subject of(
      String apiVersion, String kind, String namespace, String name, String uid) {
    return new Subject(apiVersion, kind, namespace, name, uid);
  }

  /** Whether this is a cluster-scoped object (no namespace). */
  public boolean clusterScoped() {
    return namespace.isEmpty();
  }

  /** The same reference with a uid, once the object exists. */
  public Subject withUid(String newUid) {
    return new Subject(apiVersion, kind, namespace, name, newUid);
  }

  /**
   * {@code kind namespace/name}, for messages: a tenant's claim may hold control characters, which
   * are escaped, so a log line naming a subject stays one line (at most 600 characters).
   */
  public String display() {
    return InvalidReportException.printable(
        kind + " " + (namespace.isEmpty() ? name : namespace + "/" + name), 600);
  }
}
