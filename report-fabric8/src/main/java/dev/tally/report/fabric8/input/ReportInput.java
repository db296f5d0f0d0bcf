package dev.tally.report.fabric8.input;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Liveness;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.internal.PagedList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What an {@link dev.tally.report.fabric8.AggregatorController} reads: the kinds it watches and
 * lists ({@link #kinds}), what one object states ({@link #decode}, where a mapping in a pure module
 * decides), what becomes of the objects around the merge ({@link #services}) and which policies are
 * live ({@link #livenessWatch}). Reading only: what an object means is decided by report-merge or
 * the input's own pure mapping, never here.
 *
 * <p>An input also ships what a cluster admin needs to run it: the RBAC rules of the kinds it reads
 * (deploy/ and the chart, one file per input) and the metrics it feeds ({@link
 * dev.tally.report.fabric8.metrics.TallyMetrics}'s input-neutral callbacks). docs/DESIGN.md,
 * "Inputs", says how to add one.
 */
public interface ReportInput {
  /**
   * The input's name ({@code tally} for Tally's own partial reports, {@code kyverno}, {@code
   * trivy}; a user's own input names its own): what the aggregator it feeds names as its input
   * ({@link AggregatorConfig#input()}, which {@link
   * dev.tally.report.fabric8.AggregatorController.Builder#build} checks), and so, in Tally's
   * layout, what the aggregates of any input but {@link AggregatorConfig#DEFAULT_INPUT} carry in
   * their names and in the {@code tally.dev/input} label: aggregators of different inputs then
   * share a cluster without touching each other's aggregates. Runs of lowercase letters and digits
   * joined by single '-', at most 63 characters.
   */
  String name();

  /**
   * The kinds read, whose objects {@link #decode} reads; the first is the one {@link #checkAccess}
   * lists. Empty for an input whose statements all come from its {@link #statementSource}.
   */
  List<InputKind> kinds(KubernetesClient client);

  /**
   * What {@code object}, one of the kinds read, states.
   *
   * @throws dev.tally.report.api.InvalidReportException naming the field at fault
   */
  Statement decode(HasMetadata object);

  /**
   * The services this input adds around the merge, made once per controller: adoption of objects
   * about a subject whose uid is not known yet, retirement of objects once merged; {@link
   * InputServices#NONE} by default (objects stay and are the state).
   */
  default InputServices services(InputContext context) {
    return InputServices.NONE;
  }

  /**
   * Statements that come from elsewhere than the kinds read, such as files a producer writes, made
   * once per controller: none by default. An input with a source may read no kind at all ({@link
   * #kinds} empty); it then overrides {@link #checkAccess}.
   */
  default Optional<StatementSource> statementSource(InputContext context) {
    return Optional.empty();
  }

  /**
   * A watch on which policies are live, made once per controller; answers go to {@code live}. None
   * by default: every policy is live.
   */
  default Optional<LivenessWatch> livenessWatch(KubernetesClient client, Consumer<Liveness> live) {
    return Optional.empty();
  }

  /**
   * Refuses an aggregator this input cannot feed (say, a retirement that needs a layout).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  default void checkAggregator(AggregatorConfig config) {}

  /**
   * Makes, once, a LIST of one object of the first kind read (nothing when none is read).
   *
   * @throws RequestFailedException naming the LIST, if it failed for good
   */
  default void checkAccess(KubernetesClient client, Requests calls) {
    List<InputKind> kinds = kinds(client);
    if (kinds.isEmpty()) {
      return; // nothing read from the cluster: the input checks what it reads itself
    }
    InputKind first = kinds.get(0);
    String what = "list " + first.plural();
    try {
      calls.call(what, () -> first.page().apply(new ListOptionsBuilder().withLimit(1L).build()));
    } catch (KubernetesClientException e) {
      throw new RequestFailedException(what, e);
    }
  }

  /** Informers on every kind read; not started. */
  default List<SharedIndexInformer<? extends HasMetadata>> informers(KubernetesClient client) {
    return kinds(client).stream()
        .<SharedIndexInformer<? extends HasMetadata>>map(k -> k.informer().get())
        .toList();
  }

  /**
   * Every object of the kinds read, listed afresh and paged.
   *
   * @throws KubernetesClientException if a LIST failed
   */
  default List<HasMetadata> listAll(KubernetesClient client, Requests calls) {
    List<HasMetadata> listed = new ArrayList<>();
    for (InputKind kind : kinds(client)) {
      listed.addAll(PagedList.<HasMetadata>all(calls, "list " + kind.plural(), kind.page()));
    }
    return listed;
  }
}
