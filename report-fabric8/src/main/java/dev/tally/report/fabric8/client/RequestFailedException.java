package dev.tally.report.fabric8.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A request to the API server failed for good: it was not retryable, or its retries ran out. The
 * message names the request and the root cause, such as {@code list partialreports failed:
 * Connection refused: /127.0.0.1:6443 (AnnotatedConnectException)} or the server's own reason for a
 * 403; fabric8 alone would often say only "An error has occurred.". The original exception is the
 * {@linkplain #getCause() cause}.
 */
public final class RequestFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;

  /**
   * @param what the request or the operation that failed, such as {@code get lease ns/name}
   * @param cause what the client threw
   */
  public RequestFailedException(String what, Throwable cause) {
    super(what + " failed: " + rootCause(cause), cause);
    this.code = codeOf(cause);
  }

  /** The HTTP status of the failed response; 0 when there was none (refused, reset, timed out). */
  public int code() {
    return code;
  }

  /**
   * The message of the innermost cause of {@code failure}, with its class: what actually went wrong
   * under the layers of wrapping.
   */
  public static String rootCause(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable root = failure;
    while (root.getCause() != null && seen.put(root, Boolean.TRUE) == null) {
      root = root.getCause();
    }
    String message = root.getMessage();
    String type = root.getClass().getSimpleName();
    return message == null || message.isBlank() ? type : message + " (" + type + ")";
  }

  private static int codeOf(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof KubernetesClientException e && e.getCode() > 0) {
        return e.getCode();
      }
    }
    return 0;
  }
}
