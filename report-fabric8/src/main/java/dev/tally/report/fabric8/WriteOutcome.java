package dev.tally.report.fabric8;

import dev.tally.report.api.ReportRef;
import java.util.List;

/**
 * What writing one ChangeSet did.
 *
 * @param written objects created, updated or deleted
 * @param suppressed writes skipped because the object already held the desired content
 * @param conflicts objects whose write met a 409 or a vanished object: re-read and re-diff them
 * @param failed objects not written for a reason that may heal (403, a namespace being deleted, 429
 *     and 5xx past their retries, no answer): write them again later, each after its own backoff
 * @param parked objects whose content the server refused (400, 413, 422): writing the same content
 *     again cannot succeed, so it is not tried again until the content changes
 * @param refused objects left alone because they exist and are not Tally's
 * @param stopped whether writing stopped early because this replica may no longer write
 */
record WriteOutcome(
    int written,
    int suppressed,
    List<ReportRef> conflicts,
    List<WriteFailure> failed,
    List<WriteFailure> parked,
    List<ReportRef> refused,
    boolean stopped) {
  public static final WriteOutcome NOTHING =
      new WriteOutcome(0, 0, List.of(), List.of(), List.of(), List.of(), false);

  public WriteOutcome {
    conflicts = List.copyOf(conflicts);
    failed = List.copyOf(failed);
    parked = List.copyOf(parked);
    refused = List.copyOf(refused);
  }

  /**
   * Whether the cluster now holds what the ChangeSet asked for, objects refused because they are
   * not Tally's and objects whose content the server refused aside (writing again would not change
   * that).
   */
  public boolean complete() {
    return conflicts.isEmpty() && failed.isEmpty() && !stopped;
  }
}
