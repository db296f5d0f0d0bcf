package dev.tally.report.fabric8;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.PagedList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the controller reads: which objects ({@link PartialReportFeed} watches and lists them) and
 * what one of them states ({@link PartialReportLedger} applies it). Tally's own partial reports
 * ({@link TallyPartialsInput}) or Kyverno's intermediate reports ({@link KyvernoReportsInput}).
 * Reading only: the decision of what an object means is report-merge's.
 */
interface FeedInput {
  /**
   * One kind read, in every namespace.
   *
   * @param plural its plural, which names its requests ({@code list <plural>})
   * @param page one page of its objects
   * @param informer a new informer on its objects, not started
   */
  record Kind(
      String plural,
      Function<ListOptions, ? extends KubernetesResourceList<? extends HasMetadata>> page,
      Supplier<SharedIndexInformer<? extends HasMetadata>> informer) {}

  /** The kinds read; the first is the one {@link #checkAccess} lists. */
  List<Kind> kinds(KubernetesClient client);

  /**
   * What {@code object} states.
   *
   * @throws dev.tally.report.api.InvalidReportException naming the field at fault
   */
  Statement decode(HasMetadata object);

  /**
   * Makes, once, a LIST of one object of the first kind read.
   *
   * @throws RequestFailedException naming the LIST, if it failed for good
   */
  default void checkAccess(KubernetesClient client, ApiCalls calls) {
    Kind first = kinds(client).get(0);
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
  default List<HasMetadata> listAll(KubernetesClient client, ApiCalls calls) {
    List<HasMetadata> listed = new ArrayList<>();
    for (Kind kind : kinds(client)) {
      listed.addAll(PagedList.<HasMetadata>all(calls, "list " + kind.plural(), kind.page()));
    }
    return listed;
  }

  /** What one object states. */
  sealed interface Statement {
    /** A partial report for the aggregator. */
    record Ready(PartialReport partial) implements Statement {}

    /** An evaluation about a subject whose uid is not known yet: adoption finds it. */
    record AwaitsAdoption(Subject subject) implements Statement {}

    /** Nothing: no result and no coverage. */
    record Silent() implements Statement {}
  }
}
