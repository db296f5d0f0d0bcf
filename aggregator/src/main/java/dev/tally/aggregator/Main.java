package dev.tally.aggregator;

import dev.tally.aggregator.log.Logging;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.LeaderElectionSettings;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.metrics.Freshness;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar tally-aggregator.jar [FLAGS]}: report-fabric8's {@link AggregatorController} as
 * a program (flags in {@link Options#usage()}).
 *
 * <p>Readiness ({@code /readyz}): not ready until the first requests succeeded (the controller's
 * {@code start()}: a GET of the Lease, a LIST of partial reports); then a standby replica is ready
 * (it campaigns for the Lease and has nothing else to do: only the leader runs informers), and a
 * leader is ready once it has rebuilt (informers synced, caches applied, owned aggregates re-read
 * and the difference written: {@link AggregatorController#isRebuilt()}). Not ready from the moment
 * it is asked to stop. A leader that has rebuilt is not ready either while it is stale ({@code
 * --max-staleness}, see {@link #staleness}).
 *
 * <p>Liveness ({@code /healthz}): alive unless the controller says its aggregator thread or its
 * periodic work is not ({@link AggregatorController#stalled()}, bounded by {@code --stall-bound}),
 * so that the kubelet restarts a process whose controller froze. An {@link Error} on the aggregator
 * thread ends the process at once with status 1 ({@link AggregatorController#failure()}), after the
 * controller released the Lease, so that the standby takes over; the Deployment also sets {@code
 * -XX:+ExitOnOutOfMemoryError} for an OutOfMemoryError on any other thread.
 *
 * <p>On SIGTERM (a JVM shutdown hook): not ready at once; a leader writes what is pending, within
 * {@code --shutdown-timeout} (a flush that does not finish in time is abandoned between two object
 * writes: each write is whole, and the next leader rebuilds from the partial reports); then the
 * controller stops, releasing the Lease, and the process exits 0.
 */
public final class Main {
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private volatile boolean started;
  private volatile boolean stopping;
  private @Nullable AggregatorController controller;
  private @Nullable Options options;

  private Main() {}

  public static void main(String[] args) {
    int code = new Main().run(args, System.out, System.err);
    System.out.flush();
    System.err.flush();
    System.exit(code);
  }

  /** Runs until SIGTERM (when the shutdown hook ends the process); returns only to fail. */
  private int run(String[] args, PrintStream out, PrintStream err) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (Options.UsageException e) {
      err.println("tally-aggregator: " + e.getMessage());
      return EXIT_USAGE;
    }
    if (options.help) {
      out.print(Options.usage());
      return 0;
    }
    Logging.configure(options.logFormat, options.logLevel);

    CipherOrder cipherOrder;
    try {
      cipherOrder = CipherOrder.forThisJvm();
    } catch (IllegalArgumentException e) {
      err.println("tally-aggregator: " + e.getMessage());
      return EXIT_USAGE;
    }
    Config config;
    KubernetesClient client;
    try {
      config =
          options.kubeconfig != null
              ? Config.fromKubeconfig(options.context, options.kubeconfig.toFile())
              : Config.autoConfigure(options.context);
      // Tally retries what fails (RetryPolicy, within the ApiBudget); fabric8's own retries would
      // retry under each of Tally's attempts
      config.setRequestRetryBackoffLimit(0);
      // a reader of every object the API server stores: an input whose CRD keeps unknown fields
      // (trivy's) may hold some nested deeper, or named longer, than Jackson reads by default
      client =
          new KubernetesClientBuilder()
              .withConfig(config)
              .withHttpClientFactory(cipherOrder.httpClientFactory())
              .withKubernetesSerialization(ApiServerJson.serialization())
              .build();
    } catch (RuntimeException e) {
      err.println(
          "tally-aggregator: "
              + (options.kubeconfig != null ? "--kubeconfig " + options.kubeconfig : "kubeconfig")
              + ": cannot be used: "
              + RequestFailedException.rootCause(e));
      return EXIT_FAILED;
    }
    String server = config.getMasterUrl();
    PrometheusMetrics metrics = new PrometheusMetrics();

    LeaderElectionSettings election = null;
    if (options.leaderElection) {
      String namespace = options.leaseNamespace;
      if (namespace == null) {
        namespace = config.getNamespace() != null ? config.getNamespace() : "default";
      }
      election =
          new LeaderElectionSettings(
              namespace,
              options.leaseName,
              options.identity != null ? options.identity : defaultIdentity(),
              options.leaseDuration,
              options.renewDeadline,
              options.retryPeriod);
    }
    AggregatorController.Builder builder =
        AggregatorController.builder(client)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(options.grouping)
                        .format(options.format)
                        .caps(options.caps)
                        // its aggregates are its input's: releases of other inputs keep theirs
                        .input(options.reportInput.name())
                        .build())
            .budget(ApiBudget.adaptive(options.qps, options.maxQps, options.burst))
            .metrics(metrics.tally())
            .flushWindow(options.flushWindow)
            .resyncPeriod(options.resyncPeriod)
            .maxClockSkew(options.maxClockSkew)
            .minResyncInterval(options.minResyncInterval)
            .stallBound(options.stallBound)
            .maxRefusedCopies(options.maxRefusedCopiesPerNamespace, options.maxRefusedCopies)
            .serverSideApply(options.serverSideApply)
            .writeConcurrency(options.writeConcurrency);
    builder.input(options.reportInput);
    if (election != null) {
      builder.leaderElection(election);
    }
    AggregatorController c = builder.build();
    controller = c;
    this.options = options;
    c.failure()
        .whenComplete(
            (ignored, failure) -> {
              if (failure != null) {
                stopping = true;
                LOG.error("the controller stopped after a fatal error; exiting", failure);
                err.println("tally-aggregator: stopped after a fatal error: " + failure);
                out.flush();
                err.flush();
                // not exit(): the shutdown hook would report a clean stop; the Lease is released
                Runtime.getRuntime().halt(EXIT_FAILED);
              }
            });
    metrics
        .gauge("tally.leader", "1 while this replica holds the Lease and writes.", () -> lead())
        .gauge("tally.ready", "1 while /readyz answers 200.", () -> readiness() == null ? 1 : 0)
        // what the alert on re-lists that fail compares tally_resync_last_age_seconds with
        .gauge(
            "tally.resync.period.seconds",
            "--resync-period: how often the leader re-lists its input and re-diffs (0: never).",
            () -> options.resyncPeriod.toNanos() / 1e9);

    HealthServer http = null;
    if (options.httpPort > 0) {
      try {
        http =
            HealthServer.of(
                options.httpPort,
                this::liveness,
                this::readiness,
                metrics,
                options.httpRequestTimeout);
      } catch (IOException e) {
        err.println(
            "tally-aggregator: --http-port "
                + options.httpPort
                + ": cannot listen: "
                + RequestFailedException.rootCause(e));
        c.close();
        client.close();
        return EXIT_FAILED;
      }
    }

    LOG.info(
        "starting against {} (TLS suites {}): input {}, grouping {}, format {}, {}",
        server,
        cipherOrder.describe(),
        options.inputDescription,
        options.groupingName,
        options.format.name().toLowerCase(java.util.Locale.ROOT),
        election == null
            ? "no leader election"
            : "lease "
                + election.namespace()
                + "/"
                + election.leaseName()
                + " as "
                + election.identity());
    try {
      c.start();
    } catch (RequestFailedException e) {
      err.println(
          "tally-aggregator: cannot start against the API server at "
              + server
              + ": "
              + e.getMessage());
      c.close();
      if (http != null) {
        http.close();
      }
      client.close();
      return EXIT_FAILED;
    }
    started = true;
    HealthServer httpServer = http;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> stop(c, options, httpServer, metrics, client, out, err),
                "tally-aggregator-stop"));
    LOG.info(
        "started{}", http == null ? "" : "; /healthz, /readyz and /metrics on port " + http.port());
    try {
      new CountDownLatch(1).await(); // the shutdown hook ends the process
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return EXIT_FAILED;
  }

  /** The shutdown hook: stop accepting work, write what is pending, release the Lease, exit 0. */
  private void stop(
      AggregatorController c,
      Options options,
      @Nullable HealthServer http,
      PrometheusMetrics metrics,
      KubernetesClient client,
      PrintStream out,
      PrintStream err) {
    stopping = true;
    LOG.info("stopping");
    if (c.isLeading()) {
      try {
        c.flushNow().get(options.shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("the last flush is written");
      } catch (TimeoutException e) {
        LOG.warn(
            "the last flush did not finish within {}: abandoned between two writes; the next"
                + " leader rebuilds from the partial reports",
            options.shutdownTimeout);
      } catch (ExecutionException e) {
        LOG.warn("the last flush failed: {}", RequestFailedException.rootCause(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    c.close(); // stops writing, stops the informers, releases the Lease if held
    if (http != null) {
      http.close();
    }
    metrics.close();
    client.close();
    LOG.info("stopped");
    out.flush();
    err.flush();
    // a SIGTERM ends the JVM with status 143; a stop that went as planned is a success
    Runtime.getRuntime().halt(0);
  }

  private @Nullable String readiness() {
    AggregatorController c = controller;
    if (stopping) {
      return "stopping";
    }
    if (!started || c == null) {
      return "starting: the first requests to the API server have not succeeded yet";
    }
    if (c.isLeading() && !c.isRebuilt()) {
      return "leading; rebuilding from the partial reports";
    }
    Options o = options;
    if (c.isLeading() && o != null) {
      return staleness(c.freshness(), o.maxStaleness, o.resyncPeriod);
    }
    return null;
  }

  /** Null while the controller's thread and periodic work are alive, else why not. */
  private @Nullable String liveness() {
    AggregatorController c = controller;
    return c == null ? null : c.stalled().orElse(null);
  }

  /**
   * Why a leader's aggregates are stale, or null: an input has waited longer than {@code
   * maxStaleness} without being written, or (with a periodic resync) no resync succeeded for its
   * period plus {@code maxStaleness}. A zero {@code maxStaleness} bounds nothing. The time since
   * the last flush is not bounded: a quiet cluster has nothing to flush, and a flush that fails
   * leaves its inputs waiting, which the first bound sees.
   */
  static @Nullable String staleness(
      Freshness freshness, Duration maxStaleness, Duration resyncPeriod) {
    if (maxStaleness.isZero()) {
      return null;
    }
    if (freshness.oldestUnmergedInput().compareTo(maxStaleness) > 0) {
      return "stale: an input has waited "
          + freshness.oldestUnmergedInput()
          + " without being written (--max-staleness "
          + maxStaleness
          + ")";
    }
    if (!resyncPeriod.isZero()
        && freshness.sinceLastResync().compareTo(resyncPeriod.plus(maxStaleness)) > 0) {
      return "stale: no resync succeeded for "
          + freshness.sinceLastResync()
          + " (--resync-period "
          + resyncPeriod
          + " plus --max-staleness "
          + maxStaleness
          + ")";
    }
    return null;
  }

  private int lead() {
    AggregatorController c = controller;
    return c != null && c.isLeading() ? 1 : 0;
  }

  /** The pod's name ({@code $POD_NAME}, else {@code $HOSTNAME}, which a pod sets to it). */
  private static String defaultIdentity() {
    for (String variable : new String[] {"POD_NAME", "HOSTNAME"}) {
      String value = System.getenv(variable);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "tally-aggregator-" + ProcessHandle.current().pid();
    }
  }
}
