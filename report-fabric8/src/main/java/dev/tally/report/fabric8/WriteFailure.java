package dev.tally.report.fabric8;

import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.client.RequestFailedException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/**
 * Why the API server did not take one object's write: its HTTP status (0 or less when no answer
 * came) and the server's reason, cut to {@link #MAX_REASON} characters so that a log line or an
 * Event about it stays small whatever the object held.
 *
 * @param ref the object not written
 * @param code the HTTP status of the last answer; 0 or less when there was none
 * @param reason the server's message (or the failure's), at most {@link #MAX_REASON} characters
 */
record WriteFailure(ReportRef ref, int code, String reason) {
  /** The longest reason kept. */
  static final int MAX_REASON = 300;

  static WriteFailure of(ReportRef ref, KubernetesClientException e) {
    String message =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : RequestFailedException.rootCause(e);
    return new WriteFailure(ref, e.getCode(), bounded(message));
  }

  /**
   * Whether writing the same content again can never succeed: the server refused the content itself
   * (400 bad request, 413 too large, 422 invalid). Anything else (403 forbidden, a namespace being
   * deleted or not there yet, 429 and 5xx past their retries, no answer) may heal by itself.
   */
  boolean permanent() {
    return code == HttpURLConnection.HTTP_BAD_REQUEST
        || code == HttpURLConnection.HTTP_ENTITY_TOO_LARGE
        || code == 422;
  }

  private static String bounded(String s) {
    String oneLine = s.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= MAX_REASON ? oneLine : oneLine.substring(0, MAX_REASON - 1) + "…";
  }
}
