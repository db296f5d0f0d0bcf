package dev.tally.report.bench;

/** How intermediate reports (what producers write before the merge) live in the cluster. */
enum Lifecycle {
  /**
   * Kyverno's: every evaluation creates a short-lived report, which the aggregating controller
   * deletes once it has merged it.
   */
  EPHEMERAL("ephemeral"),
  /**
   * Tally's: one partial report per producer and subject, updated in place, owned by the subject.
   */
  IN_PLACE("in place");

  private final String label;

  Lifecycle(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }
}
