package dev.tally.report.fabric8.audit;

import dev.tally.report.merge.audit.StableHash;
import java.util.regex.Pattern;

/** Names and labels of the objects the audit keeps: valid DNS names, stable for a member. */
final class AuditNames {
  static final String GROUP_LABEL = "tally.dev/audit-group";
  static final String MEMBER_LABEL = "tally.dev/audit-member";
  static final String KIND_LABEL = "tally.dev/audit-object";
  static final String STALE_LABEL = "tally.dev/stale";
  static final String STALE_REASON_ANNOTATION = "tally.dev/stale-reason";

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private AuditNames() {}

  /** Checks a group or member id: a DNS label of at most 40 characters, so names fit. */
  static String checkId(String what, String id) {
    if (id.length() > 40 || !DNS_LABEL.matcher(id).matches()) {
      throw new IllegalArgumentException(
          what + " must be a DNS label of at most 40 characters, was '" + id + "'");
    }
    return id;
  }

  static String lease(String group, String member) {
    return name("tally-audit-" + group + "-" + member);
  }

  static String status(String group, String member) {
    return name("tally-audit-" + group + "-status-" + member);
  }

  static String manifest(String group, long epoch) {
    return name("tally-audit-" + group + "-run-" + epoch);
  }

  /** Short enough for any object name; a hash suffix keeps long names distinct. */
  private static String name(String raw) {
    if (raw.length() <= 63) {
      return raw;
    }
    return raw.substring(0, 46) + "-" + StableHash.hex(StableHash.of(raw));
  }
}
