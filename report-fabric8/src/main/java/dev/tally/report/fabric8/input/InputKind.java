package dev.tally.report.fabric8.input;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
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
    Supplier<SharedIndexInformer<? extends HasMetadata>> informer) {}
