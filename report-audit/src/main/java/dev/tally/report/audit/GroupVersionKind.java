package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * A kind of Kubernetes object to audit. The core group is the empty string.
 *
 * @param group such as {@code apps}, empty for the core group
 * @param version such as {@code v1}
 * @param kind such as {@code Deployment}
 */
public record GroupVersionKind(String group, String version, String kind)
    implements Comparable<GroupVersionKind> {
  private static final Pattern GROUP = Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?\\.?)*");
  private static final Pattern VERSION = Pattern.compile("[a-z0-9]+");
  private static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z0-9]*");
  private static final Comparator<GroupVersionKind> ORDER =
      Comparator.comparing(GroupVersionKind::group)
          .thenComparing(GroupVersionKind::version)
          .thenComparing(GroupVersionKind::kind);

  public GroupVersionKind {
    if (group.length() > 253 || !GROUP.matcher(group).matches() || group.endsWith(".")) {
      throw new InvalidReportException("group", "'" + group + "' is not a DNS subdomain");
    }
    if (version.length() > 63 || !VERSION.matcher(version).matches()) {
      throw new InvalidReportException("version", "'" + version + "' is not a version");
    }
    if (kind.length() > 63 || !KIND.matcher(kind).matches()) {
      throw new InvalidReportException("kind", "'" + kind + "' is not a kind name");
    }
  }

  public static GroupVersionKind of(String group, String version, String kind) {
    return new GroupVersionKind(group, version, kind);
  }

  /** The {@code apiVersion} field: {@code v1} for the core group, {@code group/version} else. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  @Override
  public int compareTo(GroupVersionKind o) {
    return ORDER.compare(this, o);
  }

  @Override
  public String toString() {
    return apiVersion() + "/" + kind;
  }
}
