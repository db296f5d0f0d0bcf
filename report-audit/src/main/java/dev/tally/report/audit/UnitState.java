package dev.tally.report.audit;

/** Where a unit stands in a run. Declared in the order the ledger ranks them at equal attempts. */
public enum UnitState {
  /** Claimed by a member, not finished. */
  PENDING("pending"),
  /** The last attempt failed; it will be retried. */
  FAILED("failed"),
  /** Audited: every object was evaluated and its results published. */
  DONE("done");

  private final String wireName;

  UnitState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The state with this wire name. */
  public static UnitState fromWire(String name) {
    for (UnitState s : values()) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    throw new dev.tally.report.api.InvalidReportException(
        "state", "'" + name + "' is not one of pending, failed, done");
  }
}
