package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * What one member last said about one unit in one run.
 *
 * <p>Statuses are totally ordered, and the ledger keeps the greatest, which makes its merge a join:
 * commutative, associative and idempotent. The order is: {@code DONE} above everything (a unit once
 * audited in a run stays audited, whatever a slower member says later); then more attempts above
 * fewer (a retry supersedes the failure it retries); then, at equal attempts, {@code FAILED} above
 * {@code PENDING} (the attempt that was pending has ended); then member, reason and object count,
 * only so that the order is total and two members can never disagree.
 *
 * @param state pending, failed or done
 * @param attempts the attempt this status is about, from 1
 * @param member who made the attempt
 * @param reason why it failed, empty unless {@code FAILED}
 * @param objects how many objects were audited, for a {@code DONE} unit; 0 otherwise
 */
public record UnitStatus(UnitState state, int attempts, String member, String reason, long objects)
    implements Comparable<UnitStatus> {
  /** Longest reason kept; longer ones are cut, so a status always fits its ConfigMap entry. */
  public static final int MAX_REASON = 512;

  private static final Comparator<UnitStatus> ORDER =
      Comparator.comparing((UnitStatus s) -> s.state == UnitState.DONE)
          .thenComparingInt(UnitStatus::attempts)
          .thenComparing(UnitStatus::state)
          .thenComparing(UnitStatus::member)
          .thenComparing(UnitStatus::reason)
          .thenComparingLong(UnitStatus::objects);

  public UnitStatus {
    if (attempts < 1) {
      throw new InvalidReportException("attempts", "must be at least 1, was " + attempts);
    }
    if (member.isBlank() || member.contains(";")) {
      throw new InvalidReportException(
          "member", "must be non-blank without ';', was '" + member + "'");
    }
    if (objects < 0) {
      throw new InvalidReportException("objects", "must not be negative, was " + objects);
    }
    if (state != UnitState.FAILED && !reason.isEmpty()) {
      throw new InvalidReportException("reason", "only a failed unit has a reason");
    }
    if (state == UnitState.FAILED && reason.isBlank()) {
      throw new InvalidReportException("reason", "a failed unit needs a reason");
    }
    reason = reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason;
  }

  public static UnitStatus pending(String member, int attempt) {
    return new UnitStatus(UnitState.PENDING, attempt, member, "", 0);
  }

  public static UnitStatus failed(String member, int attempt, String reason) {
    return new UnitStatus(UnitState.FAILED, attempt, member, reason, 0);
  }

  public static UnitStatus done(String member, int attempt, long objects) {
    return new UnitStatus(UnitState.DONE, attempt, member, "", objects);
  }

  /**
   * The reason a failure is recorded with: {@code message} cut to {@link #MAX_REASON}, or {@code
   * unknown failure} when it is null or blank, since a failed unit always says why.
   */
  public static String failureReason(@Nullable String message) {
    if (message == null || message.isBlank()) {
      return "unknown failure";
    }
    return message.length() > MAX_REASON ? message.substring(0, MAX_REASON) : message;
  }

  /** The greater of two statuses: the ledger's join. */
  public static UnitStatus join(UnitStatus a, UnitStatus b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  public boolean isDone() {
    return state == UnitState.DONE;
  }

  @Override
  public int compareTo(UnitStatus o) {
    return ORDER.compare(this, o);
  }

  /** {@code state;attempts;objects;member;reason}, the form kept in a status ConfigMap. */
  public String encode() {
    return state.wireName() + ";" + attempts + ";" + objects + ";" + member + ";" + reason;
  }

  /** Parses {@link #encode()}; the reason may itself contain {@code ;}. */
  public static UnitStatus decode(String encoded) {
    String[] parts = encoded.split(";", 5);
    if (parts.length != 5) {
      throw new InvalidReportException(
          "status", "'" + encoded + "' is not state;attempts;objects;member;reason");
    }
    try {
      return new UnitStatus(
          UnitState.fromWire(parts[0]),
          Integer.parseInt(parts[1]),
          parts[3],
          parts[4],
          Long.parseLong(parts[2]));
    } catch (NumberFormatException e) {
      throw new InvalidReportException("status", "'" + encoded + "' has a malformed number");
    }
  }
}
