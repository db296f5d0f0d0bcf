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
  public Subject {
    Checks.optional("apiVersion", Checks.nonNull("apiVersion", apiVersion), Checks.MAX_IDENTIFIER);
    Checks.optional("kind", Checks.nonNull("kind", kind), Checks.MAX_IDENTIFIER);
    Checks.optional("namespace", Checks.nonNull("namespace", namespace), 63);
    Checks.optional("name", Checks.nonNull("name", name), Checks.MAX_IDENTIFIER);
    Checks.optional("uid", Checks.nonNull("uid", uid), 128);
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

  /** {@code kind namespace/name}, for messages. */
  public String display() {
    return kind + " " + (namespace.isEmpty() ? name : namespace + "/" + name);
  }
}
