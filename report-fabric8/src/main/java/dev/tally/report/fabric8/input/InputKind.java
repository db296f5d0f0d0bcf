package dev.tally.report.fabric8.input;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One kind an input reads, in every namespace.
 *
 * @param plural its plural, which names its requests ({@code list <plural>})
 * @param page one page of its objects
 * @param informer a new informer on its objects, not started
 */
public record InputKind(
    String plural,
    Function<ListOptions, ? extends KubernetesResourceList<? extends HasMetadata>> page,
    Supplier<SharedIndexInformer<? extends HasMetadata>> informer) {

  /**
   * Objects an informer of {@link #of} lists per request. An informer lists every object of its
   * kind when it starts and after its watch dropped; in one request that is a response of every
   * report at once, which a busy API server does not send within the client's request timeout past
   * some tens of thousands of reports (130,000 Kyverno reports at 50,000 Pods: README,
   * "Performance"), and which the client parses whole. In pages, each request is bounded.
   */
  public static final long INFORMER_PAGE = 500;

  /**
   * The kind {@code plural}, read a page at a time by {@code page}, with informers on {@code
   * objects} that list it in pages of {@value #INFORMER_PAGE} and never resync.
   */
  public static <T extends HasMetadata> InputKind of(
      String plural,
      Function<ListOptions, ? extends KubernetesResourceList<? extends HasMetadata>> page,
      Informable<T> objects) {
    return new InputKind(plural, page, () -> objects.withLimit(INFORMER_PAGE).runnableInformer(0));
  }
}
