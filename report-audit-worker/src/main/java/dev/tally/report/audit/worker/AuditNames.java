package dev.tally.report.audit.worker;

import dev.tally.report.api.WireNames;
import dev.tally.report.merge.names.KubernetesNames;
import java.util.Map;

/** Names and labels of the objects the audit keeps: valid DNS names, stable for a member. */
final class AuditNames {

  private AuditNames() {}

  /** Checks a group or member id: a DNS label of at most 40 characters, so names fit. */
  static String checkId(String what, String id) {
    if (id.length() > 40 || !KubernetesNames.isDnsLabel(id)) {
      throw new IllegalArgumentException(
          what + " must be a DNS label of at most 40 characters, was '" + id + "'");
    }
    return id;
  }

  static String lease(String group, String member) {
    return KubernetesNames.fitName("tally-audit-" + group + "-" + member);
  }

  static String status(String group, String member) {
    return KubernetesNames.fitName("tally-audit-" + group + "-status-" + member);
  }

  static String manifest(String group, long epoch) {
    return KubernetesNames.fitName("tally-audit-" + group + "-run-" + epoch);
  }

  /** The labels of a member's own objects (its Lease, its status map). */
  static Map<String, String> memberLabels(String group, String member) {
    return Map.of(
        WireNames.AUDIT_GROUP_LABEL,
        group,
        WireNames.AUDIT_MEMBER_LABEL,
        member,
        WireNames.MANAGED_BY_LABEL,
        WireNames.MANAGED_BY_VALUE);
  }
}
