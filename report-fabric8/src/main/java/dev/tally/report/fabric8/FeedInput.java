package dev.tally.report.fabric8;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;

/**
 * What the controller reads: which objects ({@link PartialReportFeed} watches and lists them) and
 * what one of them states ({@link PartialReportLedger} applies it). Tally's own partial reports
 * ({@link TallyPartialsInput}) or Kyverno's intermediate reports ({@link KyvernoReportsInput}).
 * Reading only: the decision of what an object means is report-merge's.
 */
interface FeedInput {
  /**
   * Makes, once, a LIST of one object of the kind read first.
   *
   * @throws RequestFailedException naming the LIST, if it failed for good
   */
  void checkAccess(KubernetesClient client, ApiCalls calls);

  /** Informers on every kind read, in all namespaces; not started. */
  List<SharedIndexInformer<? extends HasMetadata>> informers(KubernetesClient client);

  /**
   * Every object of the kinds read, listed afresh and paged.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if a LIST failed
   */
  List<HasMetadata> listAll(KubernetesClient client, ApiCalls calls);

  /**
   * What {@code object} states.
   *
   * @throws dev.tally.report.api.InvalidReportException naming the field at fault
   */
  Statement decode(HasMetadata object);

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
