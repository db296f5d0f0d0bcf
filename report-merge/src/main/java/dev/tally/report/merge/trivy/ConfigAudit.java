package dev.tally.report.merge.trivy;

import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Optional;

/**
 * One trivy-operator {@code ConfigAuditReport} ({@code aquasecurity.github.io/v1alpha1}) as read
 * from the cluster, before any meaning is given to it: what {@link TrivyMapping} needs, and nothing
 * of the wire format.
 *
 * @param namespace the report's namespace, which is its resource's
 * @param name the report's name
 * @param owners the report's owner references, in order
 * @param updated {@code report.updateTimestamp}, when the scan finished
 * @param created {@code metadata.creationTimestamp}
 * @param checks {@code report.checks}, in order
 */
public record ConfigAudit(
    String namespace,
    String name,
    List<Owner> owners,
    Optional<Timestamp> updated,
    Optional<Timestamp> created,
    List<Check> checks) {
  public ConfigAudit {
    owners = List.copyOf(owners);
    checks = List.copyOf(checks);
  }

  /** An owner reference; {@code controller} when it is marked the managing controller. */
  public record Owner(
      String apiVersion, String kind, String name, String uid, boolean controller) {}

  /**
   * One entry of {@code report.checks}.
   *
   * @param checkId {@code checkID}, such as {@code KSV001}
   * @param title {@code title}, may be empty
   * @param severity {@code severity} as written: {@code CRITICAL}, {@code HIGH}, {@code MEDIUM},
   *     {@code LOW} or {@code UNKNOWN}
   * @param success {@code success}
   * @param category {@code category}, may be empty
   * @param messages {@code messages}
   * @param scopeType {@code scope.type} ({@code Container}), empty without a scope
   * @param scopeValue {@code scope.value} (the container's name), empty without a scope
   */
  public record Check(
      String checkId,
      String title,
      String severity,
      boolean success,
      String category,
      List<String> messages,
      String scopeType,
      String scopeValue) {
    public Check {
      messages = List.copyOf(messages);
    }
  }
}
