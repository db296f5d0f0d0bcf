package dev.tally.report.merge.names;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Subject;

/**
 * Which subjects the API server takes as the owner of a report. A grouping scoped to its subject
 * ({@link dev.tally.report.api.Grouping#scopedToSubject()}) gives each report an owner reference to
 * its subject; the server refuses such a write, every time, when the reference lacks its apiVersion
 * (or it is not a group/version), kind, name or uid, or names a kind that may not own objects (the
 * core {@code v1 Event}). A subject like that is refused when it is applied, naming the field, so
 * that a report no write could ever store is never made.
 */
public final class OwnerReferences {
  private OwnerReferences() {}

  /**
   * @throws InvalidReportException naming {@code subject.<field>} when the API server would refuse
   *     {@code subject} as an owner reference
   */
  public static void checkOwner(Subject subject) {
    // parsed as the API server parses it: "v1" and "/v1" are both the core group's v1
    String apiVersion = subject.apiVersion();
    int slash = apiVersion.indexOf('/');
    String group = KubernetesNames.apiGroup(apiVersion);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    if (version.isEmpty() || version.indexOf('/') >= 0) {
      throw refused("apiVersion", "is not a version or group/version");
    }
    if (subject.kind().isEmpty()) {
      throw refused("kind", "is required");
    }
    if (subject.name().isEmpty()) {
      throw refused("name", "is required");
    }
    if (subject.uid().isEmpty()) {
      throw refused("uid", "is required");
    }
    if (group.isEmpty() && version.equals("v1") && subject.kind().equals("Event")) {
      throw refused("kind", "v1 Event may not own objects");
    }
  }

  private static InvalidReportException refused(String field, String reason) {
    return new InvalidReportException(
        "subject." + field,
        reason
            + ": the API server would refuse it as the owner reference that this grouping gives"
            + " each subject's report");
  }
}
