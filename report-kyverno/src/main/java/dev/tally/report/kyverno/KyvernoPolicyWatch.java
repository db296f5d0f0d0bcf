package dev.tally.report.kyverno;

import dev.tally.report.api.Liveness;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.report.merge.kyverno.KyvernoPolicies;
import dev.tally.report.merge.kyverno.KyvernoPolicies.Kind;
import dev.tally.report.merge.kyverno.KyvernoPolicies.Policy;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches which of Kyverno's policies exist and hands the {@link Liveness} that follows ({@link
 * KyvernoPolicies#liveness}) to a consumer: once the informers hold a full list, then every time a
 * policy appears or disappears and the answer changes. It decides nothing itself.
 *
 * <p>On {@link #start} it asks the server which of the {@linkplain Kind kinds} it serves, one
 * discovery request per group/version, preferred versions first and no further once a kind is
 * found; a group/version the server does not serve is a kind not installed, whose source is not
 * governed. Kinds installed after the start are not picked up until the watch is made again.
 *
 * <p>The consumer is called from the thread that calls {@code start} (the first answer) and from
 * informer threads, one call at a time, in the order the answers were computed.
 */
final class KyvernoPolicyWatch implements LivenessWatch {
  private static final Logger LOG = LoggerFactory.getLogger(KyvernoPolicyWatch.class);

  private final KubernetesClient client;
  private final Consumer<Liveness> onChange;
  private final Map<Kind, Watched> watched = new EnumMap<>(Kind.class);
  private final Object lock = new Object();
  private boolean synced;
  private boolean closed;
  private @Nullable Liveness last;

  /** One watched kind: the version it is read at and its informer. */
  private record Watched(
      String apiVersion, SharedIndexInformer<GenericKubernetesResource> informer) {}

  KyvernoPolicyWatch(KubernetesClient client, Consumer<Liveness> onChange) {
    this.client = Objects.requireNonNull(client, "client");
    this.onChange = Objects.requireNonNull(onChange, "onChange");
  }

  /**
   * Discovers the kinds served, starts an informer on each and waits until all of them hold a full
   * list; then hands the first answer to the consumer.
   *
   * @throws TimeoutException if an informer has not synced within {@code syncTimeout}; the watch is
   *     closed then
   */
  @Override
  public void start(Duration syncTimeout) throws InterruptedException, TimeoutException {
    Objects.requireNonNull(syncTimeout, "syncTimeout");
    synchronized (lock) {
      if (closed || !watched.isEmpty() || synced) {
        throw new IllegalStateException("a KyvernoPolicyWatch starts once");
      }
      for (var e : discover().entrySet()) {
        Kind kind = e.getKey();
        APIResource resource = e.getValue().resource();
        String apiVersion = e.getValue().apiVersion();
        var context =
            new ResourceDefinitionContext.Builder()
                .withGroup(kind.group())
                .withVersion(apiVersion.substring(apiVersion.indexOf('/') + 1))
                .withKind(kind.kind())
                .withPlural(resource.getName())
                .withNamespaced(kind.namespaced())
                .build();
        var resources = client.genericKubernetesResources(context);
        SharedIndexInformer<GenericKubernetesResource> informer =
            kind.namespaced()
                ? resources.inAnyNamespace().runnableInformer(0)
                : resources.runnableInformer(0);
        informer.addEventHandler(handler());
        watched.put(kind, new Watched(apiVersion, informer));
      }
    }
    LOG.info("watching Kyverno policy kinds {}", watched.keySet());
    try {
      for (Watched w : List.copyOf(watched.values())) {
        try {
          w.informer()
              .start()
              .toCompletableFuture()
              .get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          throw new IllegalStateException("policy informer failed to start", e.getCause());
        }
      }
    } catch (InterruptedException | TimeoutException | RuntimeException e) {
      close();
      throw e;
    }
    synchronized (lock) {
      synced = true;
      recompute();
    }
  }

  /** A served kind: the apiVersion to read it at and the resource discovery named. */
  private record Served(String apiVersion, APIResource resource) {}

  /** The kinds the server serves, each at the first of its versions that serves it. */
  private Map<Kind, Served> discover() {
    Map<String, Optional<APIResourceList>> asked = new HashMap<>();
    Map<Kind, Served> served = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      for (String version : kind.versions()) {
        String groupVersion = kind.group() + "/" + version;
        Optional<APIResourceList> list =
            asked.computeIfAbsent(
                groupVersion, gv -> Optional.ofNullable(client.getApiResources(gv)));
        Optional<APIResource> resource =
            list.stream()
                .flatMap(l -> l.getResources().stream())
                .filter(r -> kind.kind().equals(r.getKind()) && !r.getName().contains("/"))
                .findFirst();
        if (resource.isEmpty()) {
          continue;
        }
        if (!Boolean.valueOf(kind.namespaced()).equals(resource.get().getNamespaced())) {
          LOG.warn(
              "{} {} is served {} but Kyverno's is {}; not watching it",
              groupVersion,
              kind.kind(),
              Boolean.TRUE.equals(resource.get().getNamespaced()) ? "namespaced" : "cluster-wide",
              kind.namespaced() ? "namespaced" : "cluster-wide");
          break;
        }
        served.put(kind, new Served(groupVersion, resource.get()));
        break;
      }
    }
    return served;
  }

  private ResourceEventHandler<GenericKubernetesResource> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        changed();
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        // a policy's namespace and name never change: neither does the answer
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
        changed();
      }
    };
  }

  private void changed() {
    synchronized (lock) {
      if (synced && !closed) {
        recompute();
      }
    }
  }

  /** Computes the answer from the informers' caches and hands it on if it changed. */
  private void recompute() {
    List<Policy> existing = new ArrayList<>();
    for (var e : watched.entrySet()) {
      Kind kind = e.getKey();
      for (GenericKubernetesResource p : e.getValue().informer().getStore().list()) {
        String namespace = p.getMetadata().getNamespace();
        existing.add(
            Policy.of(
                e.getValue().apiVersion(),
                kind.kind(),
                namespace == null ? "" : namespace,
                p.getMetadata().getName()));
      }
    }
    Liveness next = KyvernoPolicies.liveness(watched.keySet(), existing);
    if (!next.equals(last)) {
      last = next;
      onChange.accept(next);
    }
  }

  @Override
  public String what() {
    return "Kyverno's policies";
  }

  /** Stops the informers; no answer is handed on after this returns. */
  @Override
  public void close() {
    List<Watched> stopping;
    synchronized (lock) {
      closed = true;
      stopping = List.copyOf(watched.values());
    }
    for (Watched w : stopping) {
      w.informer().close();
    }
  }
}
