package dev.tally.report.merge.publish;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.SubjectId;
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
 * name), the subject (namespace and uid) its latest applied partial report was about, and for each
 * subject the latest {@code observedAt} seen since it was last deleted. {@link #upsert} and {@link
 * #remove} answer the {@link Deletion} to make when an object about a subject was the last one:
 * removed, or moved to another uid (the same producer and subject name, a new object).
 *
 * <p>Subjects are told apart by namespace and uid, not by uid alone: an object in one namespace
 * claiming the uid of a subject in another (a tenant may write any uid into what it owns) neither
 * keeps that subject alive nor deletes it.
 *
 * <p>Pure and not thread-safe: one caller's bookkeeping, with time passed in.
 */
public final class SubjectIndex {
  /**
   * No object speaks about {@code uid} in {@code namespace} any more: its subject is deleted.
   *
   * @param namespace the subject's namespace, empty when it is cluster-scoped
   * @param uid the subject's uid
   * @param latestObservedAt the latest {@code observedAt} of the partial reports about it since it
   *     was last deleted
   */
  public record Deletion(String namespace, String uid, Timestamp latestObservedAt) {
    public Deletion {
      InvalidReportException.requireNonNull("namespace", namespace);
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

  private final Map<String, SubjectId> subjectByKey = new HashMap<>();
  private final Map<SubjectId, Set<String>> keysBySubject = new HashMap<>();
  private final Map<SubjectId, Timestamp> latestObservedBySubject = new HashMap<>();

  /**
   * The object {@code objectKey} now holds a partial report about {@code uid} in {@code namespace},
   * observed at {@code observedAt}.
   *
   * @param namespace the subject's namespace, empty when it is cluster-scoped
   * @return the deletion of the subject the object was about before, when it was another one and
   *     this object was the last one about it
   */
  public Optional<Deletion> upsert(
      String objectKey, String namespace, String uid, Timestamp observedAt) {
    InvalidReportException.requireNonNull("objectKey", objectKey);
    InvalidReportException.requireNonNull("namespace", namespace);
    InvalidReportException.requireNonNull("observedAt", observedAt);
    if (InvalidReportException.requireNonNull("uid", uid).isEmpty()) {
      throw new InvalidReportException("uid", "is required");
    }
    SubjectId subject = new SubjectId(namespace, uid);
    SubjectId previous = subjectByKey.put(objectKey, subject);
    Optional<Deletion> deletion = Optional.empty();
    if (previous != null && !previous.equals(subject)) {
      deletion = forget(previous, objectKey);
    }
    keysBySubject.computeIfAbsent(subject, u -> new HashSet<>()).add(objectKey);
    latestObservedBySubject.merge(subject, observedAt, (a, b) -> a.compareTo(b) >= 0 ? a : b);
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
    SubjectId subject = subjectByKey.remove(objectKey);
    return subject == null ? Optional.empty() : forget(subject, objectKey);
  }

  /** Whether the index holds {@code objectKey}: an object whose partial report was applied. */
  public boolean contains(String objectKey) {
    return subjectByKey.containsKey(InvalidReportException.requireNonNull("objectKey", objectKey));
  }

  /** The uid the object {@code objectKey} is about, if the index holds it. */
  public Optional<String> uidOf(String objectKey) {
    return Optional.ofNullable(
            subjectByKey.get(InvalidReportException.requireNonNull("objectKey", objectKey)))
        .map(SubjectId::uid);
  }

  /** How many objects the index holds. */
  public int size() {
    return subjectByKey.size();
  }

  /** Forgets everything, without a deletion: the state it was kept for is dropped too. */
  public void clear() {
    subjectByKey.clear();
    keysBySubject.clear();
    latestObservedBySubject.clear();
  }

  private Optional<Deletion> forget(SubjectId subject, String objectKey) {
    Set<String> keys = keysBySubject.get(subject);
    if (keys == null) {
      return Optional.empty();
    }
    keys.remove(objectKey);
    if (!keys.isEmpty()) {
      return Optional.empty();
    }
    keysBySubject.remove(subject);
    // every subject with an object has a latest observedAt
    return Optional.of(
        new Deletion(
            subject.namespace(),
            subject.uid(),
            Objects.requireNonNull(latestObservedBySubject.remove(subject))));
  }
}
