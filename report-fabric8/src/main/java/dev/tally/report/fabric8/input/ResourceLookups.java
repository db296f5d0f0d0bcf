package dev.tally.report.fabric8.input;

import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.ApiInterruptedException;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.Requests;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Adoption, the service every input whose producer names a resource without its uid shares: reads
 * the uid of the resource a statement names (Kyverno's admission reports, for adoption and for the
 * gone-check; Gatekeeper's audit export, which carries no uid). The names come from objects or
 * files a tenant may write, so it reads as little as it can: one GET by name, or one LIST of a
 * collection, of the metadata only ({@code PartialObjectMetadata}, asked for with the {@code
 * Accept} header; fabric8 7.x has no call for it, so the request is made on the client's own HTTP
 * client, with its authentication), and only of the resources the input was told its role may read
 * ({@code readable}). Anything else is never asked for. A failure is never "not found": only the
 * server's 404 for that object is.
 *
 * <p>The plural of a kind comes from the report's label when it names one, else from discovery (one
 * request per group/version and term, and only for a group some adoption kind is in). Confined to
 * the aggregator thread.
 */
public final class ResourceLookups {
  /**
   * The resources an input reads by default, as {@code <plural>} (the core group) or {@code
   * <plural>.<group>}: the kinds policies commonly match (Pods and the workloads that make them,
   * Services, ConfigMaps, Namespaces, ServiceAccounts, PersistentVolumeClaims, Ingresses and
   * NetworkPolicies). Never Secrets. The shipped ClusterRoles of the inputs that look resources up
   * grant exactly these.
   */
  public static final Set<String> DEFAULT_KINDS =
      Set.of(
          "pods",
          "services",
          "configmaps",
          "namespaces",
          "serviceaccounts",
          "persistentvolumeclaims",
          "replicationcontrollers",
          "deployments.apps",
          "replicasets.apps",
          "statefulsets.apps",
          "daemonsets.apps",
          "jobs.batch",
          "cronjobs.batch",
          "ingresses.networking.k8s.io",
          "networkpolicies.networking.k8s.io");

  /**
   * A resource as RBAC and {@code kubectl} name it: {@code <plural>} or {@code <plural>.<group>}.
   */
  private static final Pattern RESOURCE =
      Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*");

  /**
   * {@code kinds}, each trimmed and checked to be a resource name ({@code <plural>} or {@code
   * <plural>.<group>}, lower case, such as {@code pods} or {@code deployments.apps}).
   *
   * @param field the setting's name, for the message
   * @throws IllegalArgumentException naming {@code field} and the entry that is not a resource
   */
  public static Set<String> checkedKinds(String field, Set<String> kinds) {
    java.util.Objects.requireNonNull(kinds, field);
    Set<String> checked = new java.util.TreeSet<>();
    for (String k : kinds) {
      String kind = java.util.Objects.requireNonNull(k, field + " entry").trim();
      if (!RESOURCE.matcher(kind).matches()) {
        throw new IllegalArgumentException(
            field
                + ": '"
                + dev.tally.report.api.InvalidReportException.printable(k, 100)
                + "' is not a resource: expected <plural> or <plural>.<group>, lower case,"
                + " such as pods or deployments.apps");
      }
      checked.add(kind);
    }
    return Set.copyOf(checked);
  }

  /** The media type of a metadata-only answer. */
  public static final String METADATA_ONLY =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

  /** The media type of a metadata-only LIST. */
  public static final String METADATA_LIST =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** A name or namespace that is one path segment and nothing else. */
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]*");

  /** What a lookup found. */
  public sealed interface Outcome {
    /** The resource exists, with this uid. */
    record Found(String uid) implements Outcome {}

    /**
     * The object does not exist: a 404 for the object itself, or its kind is not served (discovery
     * answered without it).
     */
    record Absent() implements Outcome {}

    /** Not asked: {@code resource} is not among the adoption kinds. */
    record Skipped(String resource) implements Outcome {}

    /** The request failed (refused, retries exhausted): nothing is known. */
    record Failed(String resource, String cause) implements Outcome {}
  }

  private final KubernetesClient client;
  private final Requests calls;
  private final Set<String> readable;

  /**
   * Kind to plural, by group/version, as discovery answered in this term; at most {@link
   * #MAX_DISCOVERED} group/versions, since reports name them and a tenant can name many.
   */
  private final Map<String, Map<String, String>> discovered = new HashMap<>();

  /** Group/versions whose discovery is remembered; past it, all are forgotten and asked again. */
  public static final int MAX_DISCOVERED = 64;

  /**
   * @param client the controller's client
   * @param calls the controller's budgeted, retried calls
   * @param readable the resources that may be read, as {@code <plural>} (core group) or {@code
   *     <plural>.<group>}: the role's grants of {@code get} (and {@code list} for {@link #uidsOf})
   */
  public ResourceLookups(KubernetesClient client, Requests calls, Set<String> readable) {
    this.client = client;
    this.calls = calls;
    this.readable = Set.copyOf(readable);
  }

  /** Whether {@code plural} of {@code group} ("" for the core group) may be read. */
  public boolean mayRead(String group, String plural) {
    return readable.contains(group.isEmpty() ? plural : plural + "." + group);
  }

  /** Forgets what discovery said: a new term asks again. */
  public void clear() {
    discovered.clear();
  }

  /** Where the resources of a subject's kind are served: the collection's path and its name. */
  private record Collection(String path, String shown) {}

  /**
   * The collection {@code subject}'s resource belongs to, or what the lookup already knows without
   * asking for the object ({@link Outcome.Absent} when no object can have its name or its kind is
   * not served, {@link Outcome.Skipped}, {@link Outcome.Failed} when discovery failed).
   */
  private Object collection(Subject subject, @Nullable String plural) {
    String apiVersion = subject.apiVersion().isEmpty() ? "v1" : subject.apiVersion();
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    if (!SEGMENT.matcher(subject.name()).matches()
        || (!subject.namespace().isEmpty() && !SEGMENT.matcher(subject.namespace()).matches())
        || !SEGMENT.matcher(apiVersion.replace('/', '.')).matches()) {
      return new Outcome.Absent(); // no object can have that name
    }
    String resource;
    if (plural != null && !plural.isEmpty()) {
      resource = plural;
    } else {
      if (readable.stream().noneMatch(k -> groupOf(k).equals(group))) {
        return new Outcome.Skipped(
            display(subject.kind().toLowerCase(java.util.Locale.ROOT), group));
      }
      try {
        resource = discover(apiVersion, subject.kind()).orElse(null);
      } catch (KubernetesClientException e) {
        return new Outcome.Failed(
            display(subject.kind(), group),
            "discovery of " + apiVersion + ": " + RequestFailedException.rootCause(e));
      }
      if (resource == null) {
        // discovery answered: no object of a kind the server does not serve can exist, so the
        // report's grace runs out as for an object not found (before, a failure that kept the
        // report, held whole, for ever)
        return new Outcome.Absent();
      }
    }
    String shown = display(resource, group);
    if (!mayRead(group, resource)) {
      return new Outcome.Skipped(shown);
    }
    return new Collection(
        base(apiVersion)
            + (subject.namespace().isEmpty() ? "" : "/namespaces/" + subject.namespace())
            + "/"
            + resource,
        shown);
  }

  /**
   * The uid of the resource {@code subject} names.
   *
   * @param plural the resource's plural when the report names it, else null (then discovery)
   */
  public Outcome uidOf(Subject subject, @Nullable String plural) {
    Object found = collection(subject, plural);
    if (!(found instanceof Collection c)) {
      return (Outcome) found;
    }
    String what =
        "get metadata of "
            + c.shown()
            + " "
            + (subject.namespace().isEmpty() ? "" : subject.namespace() + "/")
            + subject.name();
    try {
      Optional<String> uid =
          calls.call(what, () -> readMetadata(what, c.path() + "/" + subject.name()));
      return uid.<Outcome>map(Outcome.Found::new).orElseGet(Outcome.Absent::new);
    } catch (KubernetesClientException e) {
      return new Outcome.Failed(c.shown(), RequestFailedException.rootCause(e));
    }
  }

  /** The page size of {@link #uidsOf}'s LIST. */
  public static final int LIST_PAGE = 500;

  /**
   * The uids of the resources {@code subjects} name, all of one namespace, apiVersion and kind, by
   * one LIST of their collection (metadata only, in pages of {@value #LIST_PAGE}) instead of one
   * GET each: what a gone-check of many reports that vanished at once (a delete-collection) costs.
   * Each subject's outcome is {@link Outcome.Found} or {@link Outcome.Absent} by name, or the same
   * {@link Outcome.Skipped} or {@link Outcome.Failed} for all.
   */
  public Map<Subject, Outcome> uidsOf(List<Subject> subjects) {
    Map<Subject, Outcome> out = new LinkedHashMap<>();
    Subject first =
        subjects.stream().filter(s -> SEGMENT.matcher(s.name()).matches()).findFirst().orElse(null);
    if (first == null) {
      subjects.forEach(s -> out.put(s, new Outcome.Absent())); // no object can have their names
      return out;
    }
    Object found = collection(first, null);
    if (!(found instanceof Collection c)) {
      for (Subject s : subjects) {
        // a name no object can have is absent whatever the collection
        Outcome shared = (Outcome) found;
        out.put(s, shared instanceof Outcome.Absent ? shared : uidOfNameOnly(s, shared));
      }
      return out;
    }
    String what =
        "list metadata of "
            + c.shown()
            + (first.namespace().isEmpty() ? "" : " in " + first.namespace());
    Map<String, String> uids;
    try {
      uids = calls.call(what, () -> listMetadata(what, c.path()));
    } catch (KubernetesClientException e) {
      Outcome failed = new Outcome.Failed(c.shown(), RequestFailedException.rootCause(e));
      subjects.forEach(s -> out.put(s, failed));
      return out;
    }
    for (Subject s : subjects) {
      String uid = uids.get(s.name());
      out.put(s, uid == null ? new Outcome.Absent() : new Outcome.Found(uid));
    }
    return out;
  }

  /** {@code shared}, unless no object can have {@code s}'s name: then absent. */
  private static Outcome uidOfNameOnly(Subject s, Outcome shared) {
    return SEGMENT.matcher(s.name()).matches() ? shared : new Outcome.Absent();
  }

  /** Name to uid of every object of the collection at {@code path}, page by page. */
  private Map<String, String> listMetadata(String what, String path) {
    Map<String, String> uids = new HashMap<>();
    String next = null;
    do {
      String page =
          path
              + "?limit="
              + LIST_PAGE
              + (next == null
                  ? ""
                  : "&continue="
                      + java.net.URLEncoder.encode(next, java.nio.charset.StandardCharsets.UTF_8));
      HttpResponse<String> response = get(what, page, METADATA_LIST);
      if (response.code() != HttpURLConnection.HTTP_OK) {
        throw failure(what, response, status(response));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> list = SERIALIZATION.unmarshal(response.body(), Map.class);
      Object items = list == null ? null : list.get("items");
      if (items instanceof List<?> l) {
        for (Object item : l) {
          Object metadata = item instanceof Map<?, ?> m ? m.get("metadata") : null;
          if (metadata instanceof Map<?, ?> meta
              && meta.get("name") instanceof String name
              && meta.get("uid") instanceof String uid) {
            uids.put(name, uid);
          }
        }
      }
      Object meta = list == null ? null : list.get("metadata");
      Object cont = meta instanceof Map<?, ?> m ? m.get("continue") : null;
      next = cont instanceof String c && !c.isEmpty() ? c : null;
    } while (next != null);
    return uids;
  }

  /**
   * {@code <plural>} or {@code <plural>.<group>}, for log lines and metrics' messages: a kind is a
   * tenant's claim, so control characters are escaped.
   */
  public static String display(String plural, String group) {
    return dev.tally.report.api.InvalidReportException.printable(
        group.isEmpty() ? plural : plural + "." + group, 300);
  }

  private static String groupOf(String kind) {
    int dot = kind.indexOf('.');
    return dot < 0 ? "" : kind.substring(dot + 1);
  }

  private static String base(String apiVersion) {
    return apiVersion.contains("/") ? "apis/" + apiVersion : "api/" + apiVersion;
  }

  /** The uid in a metadata-only answer; empty for the server's 404 about the object itself. */
  private Optional<String> readMetadata(String what, String path) {
    HttpResponse<String> response = get(what, path, METADATA_ONLY);
    if (response.code() == HttpURLConnection.HTTP_NOT_FOUND) {
      Status status = status(response);
      if (status != null
          && status.getDetails() != null
          && status.getDetails().getName() != null
          && !status.getDetails().getName().isEmpty()) {
        return Optional.empty();
      }
      // no object named: the path itself is not served (a kind whose CRD is gone)
      throw failure(what, response, status);
    }
    if (response.code() != HttpURLConnection.HTTP_OK) {
      throw failure(what, response, status(response));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> object = SERIALIZATION.unmarshal(response.body(), Map.class);
    Object metadata = object == null ? null : object.get("metadata");
    Object uid = metadata instanceof Map<?, ?> m ? m.get("uid") : null;
    return uid instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty();
  }

  /** The plural of {@code kind} at {@code apiVersion}, from discovery (cached for the term). */
  private Optional<String> discover(String apiVersion, String kind) {
    Map<String, String> kinds = discovered.get(apiVersion);
    if (kinds == null) {
      String what = "discover " + apiVersion;
      kinds =
          calls.call(
              what,
              () -> {
                HttpResponse<String> response = get(what, base(apiVersion), "application/json");
                Map<String, String> found = new HashMap<>();
                if (response.code() == HttpURLConnection.HTTP_NOT_FOUND) {
                  return found; // the group/version is not served
                }
                if (response.code() != HttpURLConnection.HTTP_OK) {
                  throw failure(what, response, status(response));
                }
                APIResourceList list =
                    SERIALIZATION.unmarshal(response.body(), APIResourceList.class);
                for (APIResource r : list.getResources()) {
                  if (r.getName() != null && !r.getName().contains("/")) {
                    found.putIfAbsent(r.getKind(), r.getName());
                  }
                }
                return found;
              });
      if (discovered.size() >= MAX_DISCOVERED) {
        discovered.clear();
      }
      discovered.put(apiVersion, kinds);
    }
    return Optional.ofNullable(kinds.get(kind));
  }

  private HttpResponse<String> get(String what, String path, String accept) {
    HttpClient http = client.getHttpClient();
    String master = client.getMasterUrl().toString();
    String url = (master.endsWith("/") ? master : master + "/") + path;
    var request = http.newHttpRequestBuilder().uri(url).setHeader("Accept", accept).build();
    long timeout = client.getConfiguration().getRequestTimeout();
    try {
      return http.sendAsync(request, String.class)
          .get(timeout > 0 ? timeout : 10_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiInterruptedException(what, e);
    } catch (ExecutionException e) {
      // no answer: a connection error, retried like any other
      throw new KubernetesClientException(what + ": " + RequestFailedException.rootCause(e), e);
    } catch (TimeoutException e) {
      throw new KubernetesClientException(what + ": no answer within " + timeout + " ms", e);
    }
  }

  private static @Nullable Status status(HttpResponse<String> response) {
    try {
      String body = response.body();
      return body == null || body.isBlank() ? null : SERIALIZATION.unmarshal(body, Status.class);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static KubernetesClientException failure(
      String what, HttpResponse<String> response, @Nullable Status status) {
    String reason =
        status != null && status.getMessage() != null
            ? status.getMessage()
            : "HTTP " + response.code();
    return new KubernetesClientException(what + ": " + reason, response.code(), status);
  }
}
