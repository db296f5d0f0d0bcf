package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A custom resource an input reads, as its informer holds it: what the input reads and nothing else
 * (docs/DESIGN.md, "Inputs"). A field it does not read is skipped while the object is parsed, never
 * held, whatever the CRD keeps: a CRD that keeps unknown fields ({@code
 * x-kubernetes-preserve-unknown-fields}) hands them to every client, and one installed by someone
 * else may keep them where the input's own would not.
 *
 * <ul>
 *   <li>Unknown top-level fields, and {@code status}, which no input reads, are skipped (without
 *       this, a Jackson 2 mapper as fabric8 7.x makes it would refuse the object, and with it the
 *       whole LIST).
 *   <li>The spec's class skips what it does not name ({@code @JsonIgnoreProperties(ignoreUnknown =
 *       true)} on it and every class below it that Tally defines).
 *   <li>The metadata is the API server's, which keeps none of its own unknown fields, without
 *       {@code managedFields}: no input reads it, and it mirrors the object's fields, unknown ones
 *       included, in nested objects four levels deeper than the fields themselves.
 * </ul>
 *
 * <p>An input registers its classes with the client's serialization ({@link #register}) before it
 * lists or watches: fabric8 binds a LIST's items to the class asked for, but a watch event's object
 * to the class registered for its kind, and one of a kind not registered is bound whole, as a
 * generic resource, then converted, which holds everything first and fails on an object nested as
 * deep as the API server stores. The client's own reads of that kind through its typeless paths (a
 * generic watch's events, {@code load}) then get the input's class too: the controller's client is
 * best its own.
 *
 * <p>Tally never writes an input object back as it read it (a Kyverno adoption sends a merge patch
 * of two metadata fields; a producer writes its partial report anew), so nothing skipped is lost.
 *
 * @param <S> the spec, as the input reads it
 */
@JsonIgnoreProperties(value = "status", ignoreUnknown = true)
public abstract class InputResource<S> extends CustomResource<S, Void> {
  protected InputResource() {}

  /**
   * Registers {@code type} with {@code client}'s serialization, so that a watch event's object of
   * its kind is bound to it directly.
   */
  public static void register(KubernetesClient client, Class<? extends InputResource<?>> type) {
    client.getKubernetesSerialization().registerKubernetesResource(type);
  }

  /**
   * Marks, in an object's metadata, that it holds its identity alone: the API server drops unknown
   * metadata fields, so no object read from the cluster carries it.
   */
  private static final String IDENTITY_ONLY = "tally.dev/identity-only";

  /**
   * {@code meta}, marked as the metadata of an object that holds its identity alone (apiVersion,
   * kind, namespace, name, uid, resourceVersion, generation): what a watch's DELETED event of an
   * input's kind is read as ({@code ApiServerJson}), whose last state is the one its last ADDED or
   * MODIFIED event carried, delivered before; and what the controller's informers keep of an object
   * whose version it handled, applied or refused (a stripped copy).
   */
  public static ObjectMeta identityOnly(ObjectMeta meta) {
    meta.setAdditionalProperty(IDENTITY_ONLY, Boolean.TRUE);
    return meta;
  }

  /** Whether {@code resource} holds its identity alone ({@link #identityOnly}). */
  public static boolean isIdentityOnly(HasMetadata resource) {
    var meta = resource.getMetadata();
    return meta != null && meta.getAdditionalProperties().containsKey(IDENTITY_ONLY);
  }

  /** The metadata as read: the server's, without {@code managedFields}. */
  @Override
  @JsonIgnoreProperties("managedFields")
  public void setMetadata(ObjectMeta metadata) {
    super.setMetadata(metadata);
  }
}
