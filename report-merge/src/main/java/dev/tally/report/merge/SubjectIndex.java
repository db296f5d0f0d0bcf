package dev.tally.report.merge;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * When a subject counts as deleted, and at which time (design, section 5, rule 4): the cluster
 * garbage-collects the partial report objects about a subject with the subject, so the subject is
 * gone when the last object about its uid is.
 *
 * <p>The index knows, for each object (named by a key of the caller's, such as kind, namespace and
 * name), the uid its latest applied partial report was about, and for each uid the latest {@code
 * observedAt} seen since the uid was last deleted. {@link #upsert} and {@link #remove} answer the
 * {@link Deletion} to make when an object about a uid was the last one: removed, or moved to
 * another uid (the same producer and subject name, a new object).
 *
 * <p>Pure and not thread-safe: one caller's bookkeeping, with time passed in.
 */
public final class SubjectIndex {
  /**
   * No object speaks about {@code uid} any more: its subject is deleted.
   *
   * @param uid the subject's uid
   * @param latestObservedAt the latest {@code observedAt} of the partial reports about it since it
   *     was last deleted
   */
  public record Deletion(String uid, Timestamp latestObservedAt) {
    public Deletion {
      InvalidReportException.requireNonNull("uid", uid);
      InvalidReportException.requireNonNull("latestObservedAt", latestObservedAt);
    }

    /**
     * The time to delete the subject at when the deletion is seen at {@code now}: the later of the
     * two, so that a clock behind the producers' cannot leave their results behind.
     */
    public Timestamp at(Timestamp now) {
      InvalidReportException.requireNonNull("now", now);
      return latestObservedAt.isAfter(now) ? latestObservedAt : now;
    }
  }

  private final Map<String, String> uidByKey = new HashMap<>();
  private final Map<String, Set<String>> keysByUid = new HashMap<>();
  private final Map<String, Timestamp> latestObservedByUid = new HashMap<>();

  /**
   * The object {@code objectKey} now holds a partial report about {@code uid}, observed at {@code
   * observedAt}.
   *
   * @return the deletion of the uid the object was about before, when it was another uid and this
   *     object was the last one about it
   */
  public Optional<Deletion> upsert(String objectKey, String uid, Timestamp observedAt) {
    InvalidReportException.requireNonNull("objectKey", objectKey);
    InvalidReportException.requireNonNull("observedAt", observedAt);
    if (InvalidReportException.requireNonNull("uid", uid).isEmpty()) {
      throw new InvalidReportException("uid", "is required");
    }
    String previousUid = uidByKey.put(objectKey, uid);
    Optional<Deletion> deletion = Optional.empty();
    if (previousUid != null && !previousUid.equals(uid)) {
      deletion = forget(previousUid, objectKey);
    }
    keysByUid.computeIfAbsent(uid, u -> new HashSet<>()).add(objectKey);
    latestObservedByUid.merge(uid, observedAt, (a, b) -> a.compareTo(b) >= 0 ? a : b);
    return deletion;
  }

  /**
   * The object {@code objectKey} is gone.
   *
   * @return the deletion of the uid it was about, when it was the last object about it; empty too
   *     when the object was not in the index
   */
  public Optional<Deletion> remove(String objectKey) {
    InvalidReportException.requireNonNull("objectKey", objectKey);
    String uid = uidByKey.remove(objectKey);
    return uid == null ? Optional.empty() : forget(uid, objectKey);
  }

  /** Whether the index holds {@code objectKey}: an object whose partial report was applied. */
  public boolean contains(String objectKey) {
    return uidByKey.containsKey(InvalidReportException.requireNonNull("objectKey", objectKey));
  }

  /** The uid the object {@code objectKey} is about, if the index holds it. */
  public Optional<String> uidOf(String objectKey) {
    return Optional.ofNullable(
        uidByKey.get(InvalidReportException.requireNonNull("objectKey", objectKey)));
  }

  /** How many objects the index holds. */
  public int size() {
    return uidByKey.size();
  }

  /** Forgets everything, without a deletion: the state it was kept for is dropped too. */
  public void clear() {
    uidByKey.clear();
    keysByUid.clear();
    latestObservedByUid.clear();
  }

  private Optional<Deletion> forget(String uid, String objectKey) {
    Set<String> keys = keysByUid.get(uid);
    if (keys == null) {
      return Optional.empty();
    }
    keys.remove(objectKey);
    if (!keys.isEmpty()) {
      return Optional.empty();
    }
    keysByUid.remove(uid);
    // every uid with an object has a latest observedAt
    return Optional.of(new Deletion(uid, Objects.requireNonNull(latestObservedByUid.remove(uid))));
  }
}
