package dev.tally.report.micrometer;

/** The values of {@link TallyMeterNames#TAG_CODE}: what a retried request met. */
enum RetryCode {
  TOO_MANY_REQUESTS("429"),
  SERVER_ERROR("5xx"),
  CONNECTION("connection"),
  OTHER("other");

  final String tag;

  RetryCode(String tag) {
    this.tag = tag;
  }

  /** A status code of 0 or less is no answer at all: the connection failed. */
  static RetryCode of(int statusCode) {
    if (statusCode == 429) {
      return TOO_MANY_REQUESTS;
    }
    if (statusCode >= 500 && statusCode < 600) {
      return SERVER_ERROR;
    }
    if (statusCode <= 0) {
      return CONNECTION;
    }
    return OTHER;
  }
}
