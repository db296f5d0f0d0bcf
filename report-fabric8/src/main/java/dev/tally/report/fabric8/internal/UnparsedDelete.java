package dev.tally.report.fabric8.internal;

import dev.tally.report.fabric8.client.ApiInterruptedException;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Deletes one object at the resource version read, without reading what the server answers.
 *
 * <p>The API server answers a DELETE with the object deleted, and fabric8's {@code delete()} parses
 * it whole; the aggregator deletes every intermediate report it merged and needs nothing of the
 * answer but its status. So the request asks for the object's metadata only ({@code
 * as=PartialObjectMetadata}, with plain JSON as the fallback a server without it picks), and a
 * success is not parsed at all. A failure becomes the {@link KubernetesClientException} fabric8
 * would throw: its code and the server's {@code Status}, with the {@code Retry-After} header as the
 * status's {@code retryAfterSeconds} when the status does not carry it, so that {@link ApiCalls}
 * retries and throttles as it does for every other request; no answer at all is code -1.
 */
public final class UnparsedDelete {
  static final String ACCEPT =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

  private UnparsedDelete() {}

  /**
   * Sends the DELETE of {@code name} in {@code namespace} ("" for a cluster-scoped kind) with a
   * precondition on {@code resourceVersion}.
   *
   * @throws KubernetesClientException the server's refusal (404, 409, 429, 5xx...), or code -1 when
   *     no answer came
   * @throws ApiInterruptedException if the thread is interrupted while waiting for the answer
   */
  public static void delete(
      KubernetesClient client,
      ResourceDefinitionContext type,
      String namespace,
      String name,
      String resourceVersion) {
    URL url = url(client, type, namespace, name);
    String body =
        client
            .getKubernetesSerialization()
            .asJson(
                new DeleteOptionsBuilder()
                    .withNewPreconditions()
                    .withResourceVersion(resourceVersion.isEmpty() ? null : resourceVersion)
                    .endPreconditions()
                    .build());
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .url(url)
            .header("Accept", ACCEPT)
            .delete("application/json", body)
            .build();
    HttpResponse<byte[]> response = await(http.sendAsync(request, byte[].class), client, url);
    if (!response.isSuccessful()) {
      throw failure(client, response, url);
    }
  }

  static URL url(
      KubernetesClient client, ResourceDefinitionContext type, String namespace, String name) {
    StringBuilder path = new StringBuilder(client.getMasterUrl().toString());
    if (path.charAt(path.length() - 1) != '/') {
      path.append('/');
    }
    if (type.getGroup() == null || type.getGroup().isEmpty()) {
      path.append("api/").append(type.getVersion());
    } else {
      path.append("apis/").append(type.getGroup()).append('/').append(type.getVersion());
    }
    if (!namespace.isEmpty()) {
      path.append("/namespaces/").append(namespace);
    }
    path.append('/').append(type.getPlural()).append('/').append(name);
    try {
      return new URL(path.toString());
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("not a URL: " + path, e);
    }
  }

  private static HttpResponse<byte[]> await(
      CompletableFuture<HttpResponse<byte[]>> answer, KubernetesClient client, URL url) {
    long timeout = client.getConfiguration().getRequestTimeout();
    try {
      return timeout > 0 ? answer.get(timeout, TimeUnit.MILLISECONDS) : answer.get();
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      throw new ApiInterruptedException("DELETE " + url, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof KubernetesClientException known) {
        throw known;
      }
      throw new KubernetesClientException("DELETE " + url + ": " + cause, -1, null);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw new KubernetesClientException(
          "DELETE " + url + ": no answer within " + timeout + " ms", -1, null);
    }
  }

  /** The exception fabric8 would throw for {@code response}: its code and the server's Status. */
  static KubernetesClientException failure(
      KubernetesClient client, HttpResponse<byte[]> response, URL url) {
    byte[] bytes = response.body() == null ? new byte[0] : response.body();
    String text = new String(bytes, StandardCharsets.UTF_8);
    Status status = null;
    try {
      if (!text.isBlank()) {
        Status parsed = client.getKubernetesSerialization().unmarshal(text, Status.class);
        status = "Status".equals(parsed.getKind()) ? parsed : null;
      }
    } catch (RuntimeException notAStatus) {
      status = null;
    }
    if (status == null) {
      status =
          new StatusBuilder()
              .withStatus("Failure")
              .withCode(response.code())
              .withMessage(text.isBlank() ? "HTTP " + response.code() : text)
              .build();
    }
    if (status.getCode() == null || status.getCode() == 0) {
      status.setCode(response.code());
    }
    String retryAfter = response.header("Retry-After");
    if (retryAfter != null
        && (status.getDetails() == null || status.getDetails().getRetryAfterSeconds() == null)) {
      try {
        int seconds = Integer.parseInt(retryAfter.trim());
        if (status.getDetails() == null) {
          status.setDetails(new StatusDetails());
        }
        status.getDetails().setRetryAfterSeconds(seconds);
      } catch (NumberFormatException httpDate) {
        // an HTTP date: left to the retry policy's own delay
      }
    }
    return new KubernetesClientException(
        "DELETE " + url + " failed: " + status.getCode() + " " + status.getMessage(),
        status.getCode(),
        status);
  }
}
