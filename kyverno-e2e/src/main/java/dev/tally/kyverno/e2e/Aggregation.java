package dev.tally.kyverno.e2e;

import dev.tally.testenv.Await;
import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.KubeTestEnv;
import dev.tally.testenv.RealKyverno;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Kyverno's admission controller and reports controller on a real control plane, with the
 * aggregation of their intermediate reports done either by Kyverno's reports controller ({@link
 * Mode#KYVERNO}, {@code --aggregateReports=true}, Kyverno's default) or by Tally's aggregator
 * beside it ({@link Mode#TALLY}: {@code --aggregateReports=false} and {@code deploy/kyverno/}).
 */
public final class Aggregation implements AutoCloseable {
  /** Who merges Kyverno's intermediate reports into PolicyReports. */
  public enum Mode {
    KYVERNO,
    TALLY
  }

  private static final Duration READY = Duration.ofMinutes(3);

  private final KubeTestEnv env;
  private final RealKyverno kyverno;
  private final Duration scanInterval;
  private final Path work;
  private final List<String> reportsControllerArgs;
  private Mode mode;
  private @Nullable ChildProcess admission;
  private @Nullable ChildProcess reports;
  private @Nullable TallyBeside tally;
  private int starts;
  private boolean scans = true;

  private Aggregation(
      KubeTestEnv env, Mode mode, Duration scanInterval, List<String> reportsControllerArgs) {
    this.env = env;
    this.kyverno = RealKyverno.install(env);
    this.mode = mode;
    this.scanInterval = scanInterval;
    this.reportsControllerArgs = List.copyOf(reportsControllerArgs);
    this.work = Path.of(System.getProperty("user.dir"), "target", "kyverno");
  }

  /**
   * Starts Kyverno (and Tally in {@link Mode#TALLY}) and waits until each is ready: the admission
   * controller's webhook server answers and its webhooks are registered, Tally's {@code /readyz}.
   */
  public static Aggregation start(KubeTestEnv env, Mode mode, Duration scanInterval) {
    return start(env, mode, scanInterval, List.of());
  }

  /**
   * As {@link #start(KubeTestEnv, Mode, Duration)}, with {@code reportsControllerArgs} added to the
   * reports controller's arguments at each of its starts (e.g. {@code --profile}).
   */
  public static Aggregation start(
      KubeTestEnv env, Mode mode, Duration scanInterval, List<String> reportsControllerArgs) {
    Aggregation a = new Aggregation(env, mode, scanInterval, reportsControllerArgs);
    a.startAdmission();
    a.startAggregation();
    return a;
  }

  public Mode mode() {
    return mode;
  }

  public RealKyverno kyverno() {
    return kyverno;
  }

  /** The process that merges the intermediate reports: Kyverno's reports controller or Tally. */
  public ChildProcess aggregator() {
    return mode == Mode.TALLY ? tally().process() : reportsController();
  }

  public ChildProcess reportsController() {
    if (reports == null) {
      throw new IllegalStateException("the reports controller is not running");
    }
    return reports;
  }

  public ChildProcess admissionController() {
    if (admission == null) {
      throw new IllegalStateException("the admission controller is not running");
    }
    return admission;
  }

  public TallyBeside tally() {
    if (tally == null) {
      throw new IllegalStateException("Tally's aggregator is not running (mode " + mode + ")");
    }
    return tally;
  }

  /**
   * The value of a counter or gauge of Tally's {@code /metrics} (Prometheus names, e.g. {@code
   * tally_resyncs_total}), summed over its labels; 0 when absent.
   */
  public double tallyMetric(String name) {
    double sum = 0;
    for (String line : tally().metrics().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** Stops every process and starts them again, as a rollout of each Deployment would. */
  public void restart() {
    stopAggregation();
    if (admission != null) {
      admission.stop();
    }
    startAdmission();
    startAggregation();
  }

  /**
   * Switches who aggregates: the reports controller restarts with the other {@code
   * --aggregateReports}, and Tally's aggregator starts (to Tally) or stops (to Kyverno), as the
   * steps of deploy/kyverno/README.md do. Background scans stay as they were (on, or paused).
   */
  public void switchTo(Mode next) {
    stopAggregation();
    mode = next;
    startAggregation();
  }

  /**
   * Restarts the reports controller with its background scan off ({@code --backgroundScan=false}):
   * no new evaluation arrives until {@link #resumeScans}, so what the reports say stays put.
   */
  public void pauseScans() {
    scans = false;
    restartReportsController();
  }

  /** Restarts the reports controller with its background scan on again. */
  public void resumeScans() {
    scans = true;
    restartReportsController();
  }

  private void restartReportsController() {
    if (reports != null) {
      reports.stop();
    }
    reports = startReportsController();
  }

  private ChildProcess startReportsController() {
    List<String> args = new ArrayList<>();
    args.add("--backgroundScan=" + scans);
    args.addAll(reportsControllerArgs);
    return kyverno.startReportsController(
        mode == Mode.KYVERNO, scanInterval, args.toArray(String[]::new));
  }

  private void startAdmission() {
    admission = kyverno.startAdmissionController();
    ChildProcess started = admission;
    Await.until(
        "Kyverno's admission controller is ready (" + started.log() + ")",
        () -> {
          if (!started.isAlive()) {
            throw new AssertionError("Kyverno's admission controller exited:\n" + started.tail(40));
          }
          return started.ready();
        },
        READY);
  }

  private void startAggregation() {
    starts++;
    reports = startReportsController();
    if (mode == Mode.TALLY) {
      tally = TallyBeside.start(env, work, "tally-" + starts);
      TallyBeside started = tally;
      Await.until(
          "Tally's aggregator is ready (" + started.process().log() + ")",
          () -> {
            if (!started.process().isAlive()) {
              throw new AssertionError("Tally's aggregator exited:\n" + started.process().tail(40));
            }
            return started.ready();
          },
          READY);
    }
  }

  private void stopAggregation() {
    if (tally != null) {
      tally.close();
      tally = null;
    }
    if (reports != null) {
      reports.stop();
      reports = null;
    }
  }

  /**
   * Stops every process and removes the webhook configurations Kyverno registered (label {@code
   * webhook.kyverno.io/managed-by=kyverno}), as uninstalling Kyverno does: left behind, a webhook
   * with failurePolicy Fail pointing at a stopped process refuses every request it matches (a
   * namespace's deletion among them).
   */
  @Override
  public void close() {
    stopAggregation();
    stopAdmission();
  }

  /**
   * Stops the admission controller and removes the webhook configurations it registered, as {@link
   * #close} does, leaving the reports controller (and Tally) running: what is created from then on
   * passes no Kyverno webhook.
   */
  public void stopAdmission() {
    if (admission != null) {
      admission.stop();
      admission = null;
    }
    try (KubernetesClient admin = env.adminClient()) {
      admin
          .admissionRegistration()
          .v1()
          .validatingWebhookConfigurations()
          .withLabel("webhook.kyverno.io/managed-by", "kyverno")
          .delete();
      admin
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withLabel("webhook.kyverno.io/managed-by", "kyverno")
          .delete();
    }
  }
}
