package dev.tally.report.fabric8.client;

/** The thread was interrupted while waiting for the API budget or a retry; nothing was written. */
public final class ApiInterruptedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ApiInterruptedException(String what, InterruptedException cause) {
    super(what + " interrupted", cause);
  }
}
