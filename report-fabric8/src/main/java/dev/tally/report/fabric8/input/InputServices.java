package dev.tally.report.fabric8.input;

import org.jspecify.annotations.Nullable;

/**
 * The services an input adds around the merge ({@link ReportInput#services}), made once per
 * controller, each optional: adoption of objects about a subject whose uid is not known yet, and
 * retirement of objects once merged. One object may be both, when they share what they hold (as
 * Kyverno's intermediate reports do: one cap counts those waiting and those to delete).
 *
 * @param adoption where objects wait for their subject, or null: they are left alone
 * @param retirement what makes objects leave once merged, or null: they stay and are the state
 */
public record InputServices(@Nullable SubjectAdoption adoption, @Nullable Retirement retirement) {
  /** Neither: objects stay and are the state; one about an unknown subject is left alone. */
  public static final InputServices NONE = new InputServices(null, null);
}
