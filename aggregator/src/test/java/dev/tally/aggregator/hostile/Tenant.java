package dev.tally.aggregator.hostile;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What an attack step may use: the tenant's client (a ServiceAccount bound in its own namespace
 * only to a namespace admin's rights under Kyverno's and trivy-operator's default roles), its
 * namespace, the input's dialect, the victim's Pods as subjects to claim (the worst case: a tenant
 * that learnt them), the aggregator's health port on loopback, and the run's request budget. Every
 * request is counted, and every answer by its HTTP status, per kind of attack.
 */
final class Tenant implements AutoCloseable {
  /** At most this many flood connections are held open at once, across steps. */
  static final int MAX_HELD_CONNECTIONS = 1_000;

  final KubernetesClient client;
  final String ns;
  final String victimNs;
  final Dialect dialect;
  final int healthPort;
  private final Supplier<List<Subject>> victims;
  private final long maxRequests;
  private long requests;
  private String kind = "";
  private final Map<String, Map<String, Long>> answers = new TreeMap<>();
  private final Deque<Socket> held = new ArrayDeque<>();

  /**
   * A second namespace of the tenant's, which the platform deletes when the tenant asks
   * (terminating-namespace): its client (bound there as in the first), its name, and the delete.
   */
  record Leaving(KubernetesClient client, String ns, Runnable deleteNamespace) {}

  /** The tenant's second namespace, deleted at most once a run. */
  final Leaving leaving;

  final java.util.concurrent.atomic.AtomicBoolean left =
      new java.util.concurrent.atomic.AtomicBoolean();

  Tenant(
      KubernetesClient client,
      String ns,
      String victimNs,
      Dialect dialect,
      int healthPort,
      Supplier<List<Subject>> victims,
      long maxRequests,
      Leaving leaving) {
    this.leaving = leaving;
    this.client = client;
    this.ns = ns;
    this.victimNs = victimNs;
    this.dialect = dialect;
    this.healthPort = healthPort;
    this.victims = victims;
    this.maxRequests = maxRequests;
  }

  /** Thrown when the run's request budget is spent: the attacker stops. */
  static final class BudgetSpent extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BudgetSpent(long max) {
      super("the tenant's request budget of " + max + " is spent");
    }
  }

  /** The kind whose step runs now, for the counts. */
  void stepOf(String name) {
    kind = name;
  }

  /** Answers by kind of attack and outcome ({@code 201}, {@code 422}, {@code conn}…), counted. */
  synchronized Map<String, Map<String, Long>> answers() {
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    answers.forEach((k, v) -> copy.put(k, new TreeMap<>(v)));
    return copy;
  }

  synchronized long requests() {
    return requests;
  }

  synchronized void count(String outcome) {
    answers.computeIfAbsent(kind, k -> new TreeMap<>()).merge(outcome, 1L, Long::sum);
  }

  private synchronized void spend() {
    if (requests >= maxRequests) {
      throw new BudgetSpent(maxRequests);
    }
    requests++;
  }

  /** Writes {@code object} in the tenant's namespace: created, or replaced when it exists. */
  void write(GenericKubernetesResource object) {
    write(client, object);
  }

  /** Writes {@code object} through {@code as}: created, or replaced when it exists. */
  void write(KubernetesClient as, HasMetadata object) {
    spend();
    try {
      as.resource(object).createOr(existing -> existing.update());
      count("written");
    } catch (KubernetesClientException e) {
      count(Integer.toString(e.getCode()));
    }
  }

  /** Deletes the input object {@code name} of the tenant's namespace; counts it. */
  void delete(String name) {
    spend();
    try {
      client.genericKubernetesResources(dialect.kind()).inNamespace(ns).withName(name).delete();
      count("deleted");
    } catch (KubernetesClientException e) {
      count(Integer.toString(e.getCode()));
    }
  }

  /** Any other request through the tenant's client, counted; its failure is counted by code. */
  void request(Runnable call) {
    spend();
    try {
      call.run();
      count("ok");
    } catch (KubernetesClientException e) {
      count(Integer.toString(e.getCode()));
    }
  }

  /**
   * POSTs {@code json} as is to {@code path} of the API server (for bodies the client's own JSON
   * writer refuses to make, such as nesting past its depth limit); counts the answer's status.
   */
  void post(String path, String json) throws Exception {
    spend();
    HttpClient http = client.getHttpClient();
    String url = client.getMasterUrl().toString().replaceAll("/$", "") + path;
    HttpResponse<String> answer =
        http.sendAsync(
                http.newHttpRequestBuilder().uri(url).post("application/json", json).build(),
                String.class)
            .get(120, TimeUnit.SECONDS);
    count(Integer.toString(answer.code()));
  }

  /** The path of the input's collection in the tenant's namespace. */
  String collectionPath() {
    var k = dialect.kind();
    return "/apis/"
        + k.getGroup()
        + "/"
        + k.getVersion()
        + "/namespaces/"
        + ns
        + "/"
        + k.getPlural();
  }

  /** The victim's Pods now. */
  List<Subject> victims() {
    return victims.get();
  }

  /** A victim's Pod, or a made-up one when the victim has none at the moment. */
  Subject aVictim(SplittableRandom r) {
    List<Subject> now = victims();
    return now.isEmpty()
        ? Subject.of("v1", "Pod", victimNs, "victim-0", uid(r))
        : now.get(r.nextInt(now.size()));
  }

  /**
   * The tenant's Pod {@code name}, created when it is missing, as a subject with its uid; {@code
   * null} when the server refused (counted).
   */
  @Nullable Subject pod(String name) {
    spend();
    try {
      var resource = client.pods().inNamespace(ns).withName(name);
      Pod pod = resource.get();
      if (pod == null) {
        pod =
            client
                .pods()
                .inNamespace(ns)
                .resource(
                    new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("app")
                        .withImage("registry.invalid/tenant:1")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
      }
      count("ok");
      return Subject.of("v1", "Pod", ns, name, pod.getMetadata().getUid());
    } catch (KubernetesClientException e) {
      count(Integer.toString(e.getCode()));
      return null;
    }
  }

  /** How many fill-caps objects (and Pods) the tenant has made. */
  final java.util.concurrent.atomic.AtomicInteger filled =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * The results the tenant's own aggregates hold, as the aggregator last wrote them (one LIST,
   * counted); -1 when the server refused.
   */
  long heldResults() {
    spend();
    try {
      long n = 0;
      for (PolicyReportResource report :
          client.resources(PolicyReportResource.class).inNamespace(ns).list().getItems()) {
        try {
          n += ReportCodec.decode(report).results().size();
        } catch (RuntimeException e) {
          // one of its own squats or edits: it holds nothing
        }
      }
      count("ok");
      return n;
    } catch (RuntimeException e) {
      count(
          e instanceof KubernetesClientException k ? Integer.toString(k.getCode()) : "undecodable");
      return -1;
    }
  }

  /** A subject of the tenant's own namespace that does not exist. */
  Subject ghost(SplittableRandom r) {
    return Subject.of("v1", "Pod", ns, "ghost-" + r.nextInt(40), uid(r));
  }

  /** An evaluation of {@code subject} with a few findings, at {@code at}. */
  static Evaluation evaluation(Subject subject, SplittableRandom r, Timestamp at) {
    TreeSet<String> policies = new TreeSet<>();
    List<Evaluation.Finding> findings = new ArrayList<>();
    int n = 1 + r.nextInt(4);
    for (int i = 0; i < n; i++) {
      String policy =
          r.nextBoolean()
              ? Victim.POLICIES.get(r.nextInt(Victim.POLICIES.size()))
              : "tenant-" + r.nextInt(20);
      policies.add(policy);
      ResultStatus status = ResultStatus.values()[r.nextInt(ResultStatus.values().length)];
      findings.add(new Evaluation.Finding(policy, "rule-" + r.nextInt(5), status, "forged"));
    }
    return new Evaluation(subject, policies, findings, at);
  }

  /** Now, as the tenant's evaluations say it (within the aggregator's allowed clock skew). */
  static Timestamp now() {
    return Timestamp.ofSeconds(java.time.Instant.now().getEpochSecond());
  }

  /** The input's object of the tenant's namespace stating {@code e}, or null when not encodable. */
  GenericKubernetesResource encode(String name, Evaluation e, String producer) {
    try {
      return dialect.encode(ns, name, e, producer);
    } catch (InvalidReportException refused) {
      count("unencodable");
      return null;
    }
  }

  static String uid(SplittableRandom r) {
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }

  /** Opens a loopback connection to the aggregator's health port, held until released. */
  Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", healthPort), 2_000);
    synchronized (held) {
      held.addLast(s);
      while (held.size() > MAX_HELD_CONNECTIONS) {
        closeQuietly(held.removeFirst(), false);
      }
    }
    return s;
  }

  /** Closes the oldest held connection, with a reset when {@code reset}; false when none. */
  boolean release(boolean reset) {
    Socket s;
    synchronized (held) {
      s = held.pollFirst();
    }
    if (s == null) {
      return false;
    }
    closeQuietly(s, reset);
    return true;
  }

  int heldConnections() {
    synchronized (held) {
      return held.size();
    }
  }

  private static void closeQuietly(Socket s, boolean reset) {
    try {
      if (reset) {
        s.setSoLinger(true, 0);
      }
      s.close();
    } catch (IOException ignored) {
      // already closed by the server
    }
  }

  @Override
  public void close() {
    while (release(false)) {
      // every held connection closed
    }
  }
}
