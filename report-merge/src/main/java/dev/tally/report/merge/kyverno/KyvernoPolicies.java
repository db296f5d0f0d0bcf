package dev.tally.report.merge.kyverno;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.merge.names.KubernetesNames;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of Kyverno's policies exist, as a {@link Liveness}: Kyverno's reports controller drops the
 * results of policies that no longer exist from every per-resource report, and brings none back;
 * Tally hides them and shows them again if the policy comes back. Pure: the policies that exist in,
 * the liveness out.
 *
 * <p>Only the sources of the {@linkplain Kind kinds} being watched are governed: when a kind's API
 * is not served, nothing watches it and the results naming its source stay, as do the results of
 * every other scanner. A source shared by two kinds ({@code kyverno} for {@code ClusterPolicy} and
 * {@code Policy}, and each CEL source for its cluster-wide and namespaced kinds) is governed when
 * either kind is watched; a policy of the other kind cannot exist then, so none of its results is
 * live.
 */
public final class KyvernoPolicies {
  /** The longest policy name a {@link CoverageKey} holds. */
  private static final int MAX_POLICY = 253;

  private KyvernoPolicies() {}

  /**
   * A kind of policy whose results Kyverno writes into reports, the {@code source} it gives them
   * ({@code pkg/utils/report/source.go} and {@code ToPolicyReportResult} in {@code
   * pkg/utils/report/results.go}, kyverno/kyverno) and the versions its API is served at, newest
   * first. The {@code policy} of a result is the policy's name, {@code <namespace>/<name>} for a
   * namespaced kind.
   */
  public enum Kind {
    CLUSTER_POLICY("kyverno.io", "ClusterPolicy", false, "kyverno", "v1", "v2beta1"),
    POLICY("kyverno.io", "Policy", true, "kyverno", "v1", "v2beta1"),
    VALIDATING_POLICY(
        "policies.kyverno.io",
        "ValidatingPolicy",
        false,
        "KyvernoValidatingPolicy",
        "v1",
        "v1beta1",
        "v1alpha1"),
    NAMESPACED_VALIDATING_POLICY(
        "policies.kyverno.io",
        "NamespacedValidatingPolicy",
        true,
        "KyvernoValidatingPolicy",
        "v1",
        "v1beta1"),
    IMAGE_VALIDATING_POLICY(
        "policies.kyverno.io",
        "ImageValidatingPolicy",
        false,
        "KyvernoImageValidatingPolicy",
        "v1",
        "v1beta1",
        "v1alpha1"),
    NAMESPACED_IMAGE_VALIDATING_POLICY(
        "policies.kyverno.io",
        "NamespacedImageValidatingPolicy",
        true,
        "KyvernoImageValidatingPolicy",
        "v1",
        "v1beta1"),
    GENERATING_POLICY(
        "policies.kyverno.io",
        "GeneratingPolicy",
        false,
        "KyvernoGeneratingPolicy",
        "v1",
        "v1beta1",
        "v1alpha1"),
    NAMESPACED_GENERATING_POLICY(
        "policies.kyverno.io",
        "NamespacedGeneratingPolicy",
        true,
        "KyvernoGeneratingPolicy",
        "v1",
        "v1beta1"),
    MUTATING_POLICY(
        "policies.kyverno.io",
        "MutatingPolicy",
        false,
        "KyvernoMutatingPolicy",
        "v1",
        "v1beta1",
        "v1alpha1"),
    NAMESPACED_MUTATING_POLICY(
        "policies.kyverno.io",
        "NamespacedMutatingPolicy",
        true,
        "KyvernoMutatingPolicy",
        "v1",
        "v1beta1"),
    VALIDATING_ADMISSION_POLICY(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        false,
        "ValidatingAdmissionPolicy",
        "v1"),
    MUTATING_ADMISSION_POLICY(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        false,
        "MutatingAdmissionPolicy",
        "v1",
        "v1beta1",
        "v1alpha1");

    private final String group;
    private final String kind;
    private final boolean namespaced;
    private final String source;
    private final List<String> versions;

    Kind(String group, String kind, boolean namespaced, String source, String... versions) {
      this.group = group;
      this.kind = kind;
      this.namespaced = namespaced;
      this.source = source;
      this.versions = List.of(versions);
    }

    /** The API group. */
    public String group() {
      return group;
    }

    /** The kind, as in an object's {@code kind}. */
    public String kind() {
      return kind;
    }

    /** Whether its objects live in a namespace. */
    public boolean namespaced() {
      return namespaced;
    }

    /** The {@code source} of the results of its policies. */
    public String source() {
      return source;
    }

    /** The versions of {@link #group} that serve it, the one to prefer first. */
    public List<String> versions() {
      return versions;
    }

    /** The kind of an object of this apiVersion and kind, if it is one of these. */
    public static Optional<Kind> of(String apiVersion, String kind) {
      InvalidReportException.requireNonNull("apiVersion", apiVersion);
      InvalidReportException.requireNonNull("kind", kind);
      String group = KubernetesNames.apiGroup(apiVersion);
      for (Kind k : values()) {
        if (k.group.equals(group) && k.kind.equals(kind)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * One policy that exists.
   *
   * @param apiVersion the object's {@code apiVersion} ({@code kyverno.io/v1}, ...); any served
   *     version names the same object
   * @param kind the object's {@code kind}
   * @param namespace its namespace; empty for a cluster-wide kind
   * @param name its name
   */
  public record Policy(String apiVersion, String kind, String namespace, String name) {
    public Policy {
      InvalidReportException.requireNonNull("apiVersion", apiVersion);
      InvalidReportException.requireNonNull("kind", kind);
      InvalidReportException.requireNonNull("namespace", namespace);
      InvalidReportException.requireNonNull("name", name);
      if (name.isBlank()) {
        throw new InvalidReportException("name", "is required");
      }
    }

    public static Policy of(String apiVersion, String kind, String namespace, String name) {
      return new Policy(apiVersion, kind, namespace, name);
    }
  }

  /** The sources {@code watched} govern. */
  public static Set<String> sources(Set<Kind> watched) {
    InvalidReportException.requireNoNulls("watched", watched);
    Set<String> sources = new HashSet<>();
    for (Kind k : watched) {
      sources.add(k.source());
    }
    return Set.copyOf(sources);
  }

  /**
   * The liveness Kyverno's reports controller applies when the policies of the {@code watched}
   * kinds are {@code existing}: a result of a watched kind's source is live exactly when a policy
   * of that source and key exists; a result of any other source is live.
   *
   * <p>A policy whose key is longer than a {@link CoverageKey}'s policy can be (a namespaced policy
   * with a long name) is left out: no result Tally holds can name it.
   *
   * @throws InvalidReportException naming {@code existing[i]} for a policy that is not of a watched
   *     kind, or whose namespace does not fit its kind's scope
   */
  public static Liveness liveness(Set<Kind> watched, Collection<Policy> existing) {
    Set<String> sources = sources(watched);
    InvalidReportException.requireNoNulls("existing", existing);
    Set<CoverageKey> live = new HashSet<>();
    int i = 0;
    for (Policy p : existing) {
      String field = "existing[" + i++ + "]";
      Kind kind =
          Kind.of(p.apiVersion(), p.kind())
              .filter(watched::contains)
              .orElseThrow(
                  () ->
                      new InvalidReportException(
                          field + ".kind",
                          p.apiVersion()
                              + " "
                              + p.kind()
                              + " is not among the watched kinds "
                              + new TreeSet<>(watched)));
      if (kind.namespaced() == p.namespace().isEmpty()) {
        throw new InvalidReportException(
            field + ".namespace",
            kind.kind() + (kind.namespaced() ? " is namespaced" : " is cluster-wide"));
      }
      String key = kind.namespaced() ? p.namespace() + "/" + p.name() : p.name();
      if (key.length() <= MAX_POLICY) {
        live.add(CoverageKey.of(kind.source(), key));
      }
    }
    return Liveness.onlyAmong(sources, live);
  }
}
