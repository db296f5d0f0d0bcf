package dev.tally.kyverno.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Writes what Kyverno's background scan writes, for Pods created without Kyverno's webhook: per Pod
 * an intermediate report (EphemeralReport) cloned from a template, a background-scan report Kyverno
 * v1.19.1 itself wrote about a Pod with the same labels ({@link Template}), made that Pod's as
 * Kyverno would make it: {@code generateName} {@code <pod uid>-}, the resource's uid, name and hash
 * in its labels, annotations and ownerReferences, the policies' current resourceVersions in their
 * labels, the scan's time in its results' timestamps and its last-scan-time annotation.
 *
 * <p>A "scan" writes a new report for every Pod; the Pods a deterministic fraction picks have the
 * verdict of one rule ({@code tally-e2e-labels/check-team}) toggled (pass and fail, with the
 * message, properties and summary that go with each, taken from the templates), and keep it until
 * toggled again. Every create (Pod or report) is paced to a rate, from a pool of threads.
 */
final class ReportProducer {
  static final String RESOURCE_HASH = "audit.kyverno.io/resource.hash";
  static final String LAST_SCAN_TIME = "audit.kyverno.io/last-scan-time";
  static final String RESOURCE_NAME = "audit.kyverno.io/resource.name";
  static final String TOGGLED_RULE = "check-team";

  /** Labels naming a policy, by prefix: the kind whose resourceVersion the label holds. */
  private static final Map<String, String[]> POLICY_LABELS =
      Map.of(
          "cpol.kyverno.io/", new String[] {"kyverno.io/v1", "ClusterPolicy", ""},
          "pol.kyverno.io/", new String[] {"kyverno.io/v1", "Policy", "namespaced"},
          "vpol.kyverno.io/", new String[] {"policies.kyverno.io/v1", "ValidatingPolicy", ""});

  /**
   * A background-scan report Kyverno wrote about {@code podName} (uid {@code podUid}), stripped of
   * what the API server sets (name, uid, resourceVersion, creationTimestamp, managedFields).
   */
  record Template(Map<String, Object> report, String podName, String podUid) {}

  /** What one pass of the producer did. */
  record Produced(
      int pods,
      int reports,
      int changed,
      int failures,
      @Nullable String firstFailure,
      long startNanos,
      long lastCreatedNanos) {
    double seconds() {
      return (lastCreatedNanos - startNanos) / 1e9;
    }
  }

  private final KubernetesClient client;
  private final KubernetesSerialization json;
  private final String namespace;
  private final List<Template> templates;
  private final boolean computeHash;
  private final Map<String, Object> passResult;
  private final Map<String, Object> failResult;
  private final Map<String, String> policyLabels = new ConcurrentHashMap<>();
  private final Pacer pacer;
  private final int threads;
  private final IntFunction<Pod> pods;

  private @Nullable String[] uids = new String[0];
  private @Nullable String[] names = new String[0];
  private @Nullable String[] hashes = new String[0];
  private boolean[] toggled = new boolean[0];

  /**
   * A producer for {@code namespace}: {@code templates} by label combination (Pod i's is {@link
   * #combination}), {@code pods} the Pods to create, {@code rate} creates per second. With {@code
   * computeHash} each report's resource hash is computed from its Pod as Kyverno computes it (the
   * templates showed the computation gives Kyverno's value), otherwise the template's is kept.
   */
  ReportProducer(
      KubernetesClient client,
      String namespace,
      List<Template> templates,
      boolean computeHash,
      IntFunction<Pod> pods,
      double rate) {
    this.client = client;
    this.json = client.getKubernetesSerialization();
    this.namespace = namespace;
    this.templates = List.copyOf(templates);
    this.computeHash = computeHash;
    this.pods = pods;
    this.pacer = new Pacer(rate);
    // enough requests in flight for the rate when each takes up to 100 ms or more (a loaded API
    // server on two cores), no more than a client should open
    this.threads = (int) Math.max(24, Math.min(128, rate / 5));
    Map<String, Object> pass = null;
    Map<String, Object> fail = null;
    for (Template t : templates) {
      for (Map<String, Object> r : results(t.report())) {
        if (isToggled(r) && "pass".equals(r.get("result")) && pass == null) {
          pass = r;
        } else if (isToggled(r) && "fail".equals(r.get("result")) && fail == null) {
          fail = r;
        }
      }
    }
    if (pass == null || fail == null) {
      throw new IllegalStateException(
          "the templates hold no pass and fail of " + Policies.LABELS + "/" + TOGGLED_RULE);
    }
    this.passResult = pass;
    this.failResult = fail;
  }

  /** Pod i's label combination: the index of the template Pod (0 to 3) with the same labels. */
  static int combination(int i) {
    boolean team = i % 2 == 0;
    boolean owner = i % 3 == 0;
    return team ? (owner ? 0 : 2) : (owner ? 3 : 1);
  }

  /** A template from the report Kyverno wrote (as served) about Pod {@code podName}. */
  static Template template(
      KubernetesSerialization json, GenericKubernetesResource written, String podName) {
    Map<String, Object> report = toMap(json, written);
    Map<String, Object> metadata = map(report, "metadata");
    String uid = String.valueOf(map(metadata, "labels").get(ScanWatch.RESOURCE_UID));
    for (String field :
        List.of(
            "name",
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "generation",
            "selfLink")) {
      metadata.remove(field);
    }
    return new Template(report, podName, uid);
  }

  /** The policies' current resourceVersions, for the policy labels of the reports from now on. */
  Map<String, String> refreshPolicyLabels(KubernetesClient admin) {
    Map<String, String> changed = new LinkedHashMap<>();
    for (Template t : templates) {
      for (String key : map(map(t.report(), "metadata"), "labels").keySet()) {
        POLICY_LABELS.forEach(
            (prefix, kind) -> {
              if (!key.startsWith(prefix)) {
                return;
              }
              var resources = admin.genericKubernetesResources(kind[0], kind[1]);
              GenericKubernetesResource policy =
                  kind[2].isEmpty()
                      ? resources.withName(key.substring(prefix.length())).get()
                      : resources
                          .inNamespace(namespace)
                          .withName(key.substring(prefix.length()))
                          .get();
              if (policy != null) {
                String version = policy.getMetadata().getResourceVersion();
                String before = policyLabels.put(key, version);
                String template =
                    String.valueOf(map(map(t.report(), "metadata"), "labels").get(key));
                if (!version.equals(before == null ? template : before)) {
                  changed.put(key, (before == null ? template : before) + " -> " + version);
                }
              }
            });
      }
    }
    return changed;
  }

  /**
   * Creates Pods 0 to {@code count - 1} (no webhook in the way) and, for each once created, its
   * intermediate report; two creates per Pod, paced.
   */
  Produced burst(int count) {
    expect(count);
    long now = OffsetDateTime.now(ZoneOffset.UTC).toEpochSecond();
    Produced p =
        run(
            count,
            i -> {
              pacer.acquire();
              GenericKubernetesResource pod =
                  client
                      .genericKubernetesResources("v1", "Pod")
                      .inNamespace(namespace)
                      .resource(json.convertValue(pods.apply(i), GenericKubernetesResource.class))
                      .create();
              created(i, pod);
              pacer.acquire();
              createReport(i, now);
            });
    int created = 0;
    for (String uid : uids) {
      created += uid == null ? 0 : 1;
    }
    return new Produced(
        created,
        p.reports(),
        0,
        p.failures(),
        p.firstFailure(),
        p.startNanos(),
        p.lastCreatedNanos());
  }

  /** Room for {@code count} Pods, none created yet. */
  void expect(int count) {
    uids = new String[count];
    names = new String[count];
    hashes = new String[count];
    toggled = new boolean[count];
  }

  /** Pod i, as the API server answered its creation. */
  void created(int i, GenericKubernetesResource pod) {
    names[i] = pod.getMetadata().getName();
    uids[i] = pod.getMetadata().getUid();
    hashes[i] = computeHash ? hash(pod) : null;
  }

  /** Toggles Pod i's verdict of {@code tally-e2e-labels/check-team}, from now on. */
  void toggle(int i) {
    toggled[i] = !toggled[i];
  }

  /**
   * Scan {@code scan} (from 1): a new intermediate report for every Pod created, the verdicts of a
   * fraction {@code changed} (0 to 1) of them toggled.
   */
  Produced scan(int scan, double changed) {
    long now = OffsetDateTime.now(ZoneOffset.UTC).toEpochSecond();
    AtomicInteger toggledNow = new AtomicInteger();
    Produced p =
        run(
            uids.length,
            i -> {
              if (uids[i] == null) {
                throw new IllegalStateException("Pod " + i + " was not created");
              }
              if (picked(i, scan, changed)) {
                toggle(i);
                toggledNow.incrementAndGet();
              }
              pacer.acquire();
              createReport(i, now);
            });
    return new Produced(
        0,
        p.reports(),
        toggledNow.get(),
        p.failures(),
        p.firstFailure(),
        p.startNanos(),
        p.lastCreatedNanos());
  }

  /** Whether Pod i's verdict changes in scan {@code scan}: a hash of both below {@code p}. */
  static boolean picked(int i, int scan, double p) {
    long z = ((long) scan << 32) + i + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return (z >>> 11) * 0x1.0p-53 < p;
  }

  /** The first report the producer would write about Pod i now, for the log. */
  Map<String, Object> sample(int i) {
    return report(i, OffsetDateTime.now(ZoneOffset.UTC).toEpochSecond());
  }

  private Produced run(int count, Task task) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger reports = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    AtomicReference<String> firstFailure = new AtomicReference<>();
    AtomicLong last = new AtomicLong();
    long start = System.nanoTime();
    last.set(start);
    List<Future<?>> done = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      int i = n;
      done.add(
          pool.submit(
              () -> {
                try {
                  task.run(i);
                  reports.incrementAndGet();
                  last.accumulateAndGet(System.nanoTime(), Math::max);
                } catch (RuntimeException e) {
                  failures.incrementAndGet();
                  firstFailure.compareAndSet(null, "Pod " + i + ": " + e);
                }
              }));
    }
    for (Future<?> f : done) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      }
    }
    pool.shutdown();
    try {
      pool.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new Produced(0, reports.get(), 0, failures.get(), firstFailure.get(), start, last.get());
  }

  private void createReport(int i, long now) {
    client
        .genericKubernetesResources(Reports.EPHEMERAL_REPORTS)
        .inNamespace(namespace)
        .resource(json.convertValue(report(i, now), GenericKubernetesResource.class))
        .create();
  }

  /** Pod i's intermediate report at {@code now} (epoch seconds), as Kyverno's scan would write. */
  Map<String, Object> report(int i, long now) {
    Template t = templates.get(combination(i));
    String uid = uids[i];
    String name = names[i];
    // the template Pods' uids and names, wherever they are, become Pod i's
    Map<String, String> replace = new LinkedHashMap<>();
    for (Template any : templates) {
      replace.put(any.podUid(), uid);
      replace.put(any.podName(), name);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> report = (Map<String, Object>) replaced(t.report(), replace);
    Map<String, Object> metadata = map(report, "metadata");
    metadata.put("generateName", uid + "-");
    Map<String, Object> labels = map(metadata, "labels");
    labels.put(ScanWatch.RESOURCE_UID, uid);
    if (hashes[i] != null && labels.containsKey(RESOURCE_HASH)) {
      labels.put(RESOURCE_HASH, hashes[i]);
    }
    policyLabels.forEach(
        (k, v) -> {
          if (labels.containsKey(k)) {
            labels.put(k, v);
          }
        });
    Map<String, Object> annotations = map(metadata, "annotations");
    annotations.put(RESOURCE_NAME, name);
    if (annotations.containsKey(LAST_SCAN_TIME)) {
      annotations.put(
          LAST_SCAN_TIME,
          OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(now), ZoneOffset.UTC)
              .truncatedTo(ChronoUnit.SECONDS)
              .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    }
    Map<String, Object> spec = map(report, "spec");
    List<Map<String, Object>> results = new ArrayList<>();
    for (Map<String, Object> r : results(report)) {
      Map<String, Object> result = r;
      if (toggled[i] && isToggled(r)) {
        @SuppressWarnings("unchecked")
        Map<String, Object> opposite =
            (Map<String, Object>)
                replaced("pass".equals(r.get("result")) ? failResult : passResult, replace);
        result = opposite;
      }
      Map<String, Object> timestamp = map(result, "timestamp");
      timestamp.put("seconds", now);
      results.add(result);
    }
    spec.put("results", results);
    if (spec.get("summary") instanceof Map<?, ?>) {
      spec.put("summary", summary(results));
    }
    return report;
  }

  /** pass, fail, warn, error and skip counted over {@code results}, as Kyverno's summary. */
  static Map<String, Object> summary(List<Map<String, Object>> results) {
    Map<String, Object> summary = new LinkedHashMap<>();
    for (String key : List.of("error", "fail", "pass", "skip", "warn")) {
      summary.put(key, results.stream().filter(r -> key.equals(r.get("result"))).count());
    }
    return summary;
  }

  private static boolean isToggled(Map<String, Object> result) {
    return Policies.LABELS.equals(result.get("policy")) && TOGGLED_RULE.equals(result.get("rule"));
  }

  /** Kyverno's resource hash of a Pod as the API server served it. */
  static String hash(GenericKubernetesResource pod) {
    ObjectMeta m = pod.getMetadata();
    Map<String, Object> object = new LinkedHashMap<>(pod.getAdditionalProperties());
    object.put("apiVersion", pod.getApiVersion());
    object.put("kind", pod.getKind());
    return ResourceHash.of(
        m.getLabels() == null || m.getLabels().isEmpty() ? null : m.getLabels(),
        m.getAnnotations() == null || m.getAnnotations().isEmpty() ? null : m.getAnnotations(),
        object);
  }

  /** A deep copy of {@code value} with every string equal to a key of {@code replace} replaced. */
  static Object replaced(Object value, Map<String, String> replace) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> copy = new LinkedHashMap<>();
      m.forEach((k, v) -> copy.put(String.valueOf(k), replaced(v, replace)));
      return copy;
    }
    if (value instanceof List<?> l) {
      List<Object> copy = new ArrayList<>(l.size());
      l.forEach(v -> copy.add(replaced(v, replace)));
      return copy;
    }
    if (value instanceof String s) {
      return replace.getOrDefault(s, s);
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> toMap(KubernetesSerialization json, Object resource) {
    return json.unmarshal(json.asJson(resource), Map.class);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> parent, String key) {
    Object v = parent.get(key);
    if (v instanceof Map<?, ?>) {
      return (Map<String, Object>) v;
    }
    Map<String, Object> created = new LinkedHashMap<>();
    parent.put(key, created);
    return created;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> results(Map<String, Object> report) {
    Object spec = report.get("spec");
    if (spec instanceof Map<?, ?> s && s.get("results") instanceof List<?> l) {
      return (List<Map<String, Object>>) l;
    }
    return List.of();
  }

  /** One unit of work for Pod i, which creates its intermediate report. */
  private interface Task {
    void run(int i);
  }

  /** Creates spaced evenly at a rate, whatever thread asks: each waits for its slot. */
  static final class Pacer {
    private final long intervalNanos;
    private long next;

    Pacer(double perSecond) {
      this.intervalNanos = (long) (1e9 / perSecond);
      this.next = System.nanoTime();
    }

    private synchronized long slot() {
      long now = System.nanoTime();
      if (next < now) {
        next = now; // a slot missed is not made up for later: no catching up in a rush
      }
      long slot = next;
      next += intervalNanos;
      return slot;
    }

    void acquire() {
      long wait = slot() - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
