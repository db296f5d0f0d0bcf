package dev.tally.examples.imagepolicy;

import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.josdk.TallyReports;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks every container image of each Deployment with {@link ImageRule} and reports one result per
 * container through Tally: {@code fail} for an unpinned image, {@code pass} otherwise. The
 * aggregator (run by {@link TallyReports} inside this operator) merges them into the namespace's
 * PolicyReport; fixing the image replaces the failure with a pass.
 */
@ControllerConfiguration(name = "image-policy")
public final class ImagePolicyReconciler implements Reconciler<Deployment> {
  static final String SOURCE = "image-policy-operator";
  static final String POLICY = "pinned-images";

  private final TallyReports reports;

  public ImagePolicyReconciler(TallyReports reports) {
    this.reports = reports;
  }

  /** The reports of this operator: producer {@code image-policy}, one policy, with aggregator. */
  public static TallyReports defaultReports() {
    return TallyReports.builder("image-policy").policy(SOURCE, POLICY).build();
  }

  @Override
  public List<EventSource<?, Deployment>> prepareEventSources(
      EventSourceContext<Deployment> context) {
    return List.of(reports.eventSource(context));
  }

  @Override
  public UpdateControl<Deployment> reconcile(Deployment deployment, Context<Deployment> context) {
    reports.report(deployment, evaluate(deployment));
    return UpdateControl.noUpdate();
  }

  static List<Result> evaluate(Deployment deployment) {
    List<Result> results = new ArrayList<>();
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    List<Container> containers = new ArrayList<>(pod.getInitContainers());
    containers.addAll(pod.getContainers());
    for (Container c : containers) {
      String image = c.getImage() == null ? "" : c.getImage();
      String violation = ImageRule.violation(image);
      results.add(
          Result.builder()
              .source(SOURCE)
              .policy(POLICY)
              .rule("container-" + c.getName())
              .status(violation == null ? ResultStatus.PASS : ResultStatus.FAIL)
              .severity(Severity.MEDIUM)
              .category("Supply chain")
              .message(violation == null ? "image '" + image + "' is pinned" : violation)
              .build());
    }
    return results;
  }
}
