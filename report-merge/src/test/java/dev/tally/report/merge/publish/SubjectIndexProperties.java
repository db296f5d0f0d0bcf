package dev.tally.report.merge.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.merge.Fixtures;
import dev.tally.report.merge.publish.SubjectIndex.Deletion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link SubjectIndex} against an oracle that reads the whole history of upserts and removals
 * instead of keeping the index's bookkeeping: a uid is about an object when that object's last
 * event was an upsert about the uid; a deletion is due exactly at the event after which no object
 * is about a uid that one was about before, at the latest observedAt of the upserts about the uid
 * since its previous deletion. Few keys and uids, so that objects move between uids, uids lose
 * their last object and come back; two namespaces, so that the same uid is claimed in both, and a
 * subject is its (namespace, uid): a claim in one namespace never keeps alive or deletes the
 * other's.
 */
class SubjectIndexProperties {

  /** One event of a stream: an upsert when {@code uid} is not null, else a removal. */
  record Event(String key, String namespace, @Nullable String uid, Timestamp observedAt) {
    @Override
    public String toString() {
      return uid == null
          ? "remove(" + key + ")"
          : "upsert(" + key + ", " + namespace + "/" + uid + ", " + observedAt + ")";
    }

    /** The subject the event is about, as the oracle names it; null for a removal. */
    @Nullable String subject() {
      return uid == null ? null : namespace + "/" + uid;
    }
  }

  static Gen<List<Event>> streams(int max) {
    return ModelGen.seeds()
        .map(
            seed -> {
              Random r = new Random(seed);
              int keys = 1 + r.nextInt(5);
              int uids = 1 + r.nextInt(4);
              List<Event> events = new ArrayList<>();
              for (int i = 1 + r.nextInt(max); i > 0; i--) {
                String key = "k" + r.nextInt(keys);
                boolean remove = r.nextInt(5) < 2;
                events.add(
                    new Event(
                        key,
                        r.nextBoolean() ? "a" : "b",
                        remove ? null : "u" + r.nextInt(uids),
                        new Timestamp(
                            r.nextInt(20), r.nextInt(3) == 0 ? 999_999_999 : r.nextInt(2))));
              }
              return events;
            });
  }

  /**
   * Which subject ({@code namespace/uid}) each object is about after the first {@code n} events:
   * its last event's.
   */
  static Map<String, String> aboutAfter(List<Event> events, int n) {
    Map<String, String> about = new HashMap<>();
    for (Event e : events.subList(0, n)) {
      if (e.uid() == null) {
        about.remove(e.key());
      } else {
        about.put(e.key(), e.subject());
      }
    }
    return about;
  }

  /** The deletion due at event {@code i} by the oracle, given the deletions due before it. */
  static Optional<Deletion> due(List<Event> events, int i, List<Optional<Deletion>> before) {
    Set<String> was = new HashSet<>(aboutAfter(events, i).values());
    was.removeAll(aboutAfter(events, i + 1).values());
    assertThat(was).as("one event ends at most one subject").hasSizeLessThanOrEqualTo(1);
    if (was.isEmpty()) {
      return Optional.empty();
    }
    String subject = was.iterator().next();
    int since = 0;
    for (int j = 0; j < i; j++) {
      if (before.get(j).map(d -> subject.equals(d.namespace() + "/" + d.uid())).orElse(false)) {
        since = j + 1;
      }
    }
    Timestamp latest = null;
    for (Event e : events.subList(since, i + 1)) {
      if (subject.equals(e.subject()) && (latest == null || e.observedAt().isAfter(latest))) {
        latest = e.observedAt();
      }
    }
    int slash = subject.indexOf('/');
    return Optional.of(
        new Deletion(subject.substring(0, slash), subject.substring(slash + 1), latest));
  }

  static Optional<Deletion> play(SubjectIndex index, Event e) {
    return e.uid() == null
        ? index.remove(e.key())
        : index.upsert(e.key(), e.namespace(), e.uid(), e.observedAt());
  }

  @Test
  void aDeletionIsReportedExactlyWhenTheLastObjectAboutAUidGoesAtTheLatestObservedAt() {
    Fixtures.theory()
        .forAll(streams(40))
        .checkAssert(
            events -> {
              SubjectIndex index = new SubjectIndex();
              List<Optional<Deletion>> answered = new ArrayList<>();
              for (int i = 0; i < events.size(); i++) {
                Optional<Deletion> expected = due(events, i, answered);
                Optional<Deletion> actual = play(index, events.get(i));
                assertThat(actual).as("after %s", events.subList(0, i + 1)).isEqualTo(expected);
                answered.add(actual);

                Map<String, String> about = aboutAfter(events, i + 1);
                assertThat(index.size()).isEqualTo(about.size());
                for (int k = 0; k < 5; k++) {
                  String key = "k" + k;
                  assertThat(index.contains(key)).isEqualTo(about.containsKey(key));
                  assertThat(index.uidOf(key))
                      .isEqualTo(
                          Optional.ofNullable(about.get(key))
                              .map(subject -> subject.substring(subject.indexOf('/') + 1)));
                }
              }
            });
  }

  @Test
  void removingEveryObjectDeletesExactlyTheUidsStillSpokenAboutEachOnce() {
    Fixtures.theory()
        .forAll(streams(40), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              SubjectIndex index = new SubjectIndex();
              events.forEach(e -> play(index, e));
              Map<String, String> about = aboutAfter(events, events.size());
              List<String> keys = new ArrayList<>(about.keySet());
              Collections.shuffle(keys, new Random(seed));

              List<String> deleted = new ArrayList<>();
              for (String key : keys) {
                index.remove(key).ifPresent(d -> deleted.add(d.namespace() + "/" + d.uid()));
                // a second removal of the same object is nothing
                assertThat(index.remove(key)).isEmpty();
              }
              assertThat(deleted).doesNotHaveDuplicates();
              assertThat(deleted)
                  .containsExactlyInAnyOrderElementsOf(new HashSet<>(about.values()));
              assertThat(index.size()).isZero();
            });
  }

  @Test
  void anUpsertAboutTheSameUidNeverDeletesAndClearStartsAfresh() {
    Fixtures.theory()
        .forAll(streams(30), streams(30))
        .checkAssert(
            (first, second) -> {
              SubjectIndex index = new SubjectIndex();
              Map<String, String> about = new HashMap<>();
              for (Event e : first) {
                String before =
                    e.uid() == null ? about.remove(e.key()) : about.put(e.key(), e.subject());
                Optional<Deletion> d = play(index, e);
                if (e.uid() != null && (before == null || before.equals(e.subject()))) {
                  assertThat(d).as("%s on an object about the same subject or none", e).isEmpty();
                }
              }
              index.clear();
              assertThat(index.size()).isZero();
              SubjectIndex fresh = new SubjectIndex();
              for (Event e : second) {
                assertThat(play(index, e)).isEqualTo(play(fresh, e));
              }
            });
  }

  @Test
  void aDeletionHappensAtTheLaterOfNowAndTheLatestObservedAt() {
    Gen<Timestamp> times =
        ModelGen.seeds()
            .map(
                seed -> {
                  Random r = new Random(seed);
                  return new Timestamp(r.nextInt(4), r.nextInt(3));
                });
    Fixtures.theory()
        .forAll(times, times)
        .checkAssert(
            (latest, now) -> {
              Timestamp at = new Deletion("ns", "u", latest).at(now);
              assertThat(at).isGreaterThanOrEqualTo(latest).isGreaterThanOrEqualTo(now);
              assertThat(at).isIn(latest, now);
            });
  }
}
