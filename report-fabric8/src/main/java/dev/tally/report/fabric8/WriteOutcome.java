package dev.tally.report.fabric8;

import dev.tally.report.api.ReportRef;
import java.util.List;

/**
 * What writing one ChangeSet did.
 *
 * @param written objects created, updated or deleted
 * @param suppressed writes skipped because the object already held the desired content
 * @param conflicts objects whose write met a 409 or a vanished object: re-read and re-diff them
 * @param failed objects not written because retries ran out: write them again later
 * @param refused objects left alone because they exist and are not Tally's
 * @param stopped whether writing stopped early because this replica may no longer write
 */
record WriteOutcome(
    int written,
    int suppressed,
    List<ReportRef> conflicts,
    List<ReportRef> failed,
    List<ReportRef> refused,
    boolean stopped) {
  public static final WriteOutcome NOTHING =
      new WriteOutcome(0, 0, List.of(), List.of(), List.of(), false);

  public WriteOutcome {
    conflicts = List.copyOf(conflicts);
    failed = List.copyOf(failed);
    refused = List.copyOf(refused);
  }

  /**
   * Whether the cluster now holds what the ChangeSet asked for, objects refused because they are
   * not Tally's aside (writing again would not change that).
   */
  public boolean complete() {
    return conflicts.isEmpty() && failed.isEmpty() && !stopped;
  }
}
