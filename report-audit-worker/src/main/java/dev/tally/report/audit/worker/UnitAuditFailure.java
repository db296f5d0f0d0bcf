package dev.tally.report.audit.worker;

/** A unit could not be audited this attempt; the reason goes into the run ledger. */
final class UnitAuditFailure extends Exception {
  private static final long serialVersionUID = 1L;

  UnitAuditFailure(String reason, Throwable cause) {
    super(reason, cause);
  }

  UnitAuditFailure(String reason) {
    super(reason);
  }
}
