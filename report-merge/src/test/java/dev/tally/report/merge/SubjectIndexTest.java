package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.SubjectIndex.Deletion;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Examples of {@link SubjectIndex}: the cases its properties draw, spelled out. */
class SubjectIndexTest {
  private static final Timestamp T5 = Timestamp.ofSeconds(5);
  private static final Timestamp T7 = Timestamp.ofSeconds(7);
  private static final Timestamp T9 = Timestamp.ofSeconds(9);

  private final SubjectIndex index = new SubjectIndex();

  @Test
  void theSubjectIsDeletedWhenTheLastObjectAboutItGoesAtTheLatestObservedAtOfAny() {
    assertThat(index.upsert("admission/pod", "u1", T9)).isEmpty();
    assertThat(index.upsert("background/pod", "u1", T5)).isEmpty();
    assertThat(index.remove("admission/pod")).as("another object is still about u1").isEmpty();
    // the removed object's observedAt still counts: it was seen about u1
    assertThat(index.remove("background/pod")).contains(new Deletion("u1", T9));
    assertThat(index.size()).isZero();
  }

  @Test
  void anObjectThatMovesToAnotherUidDeletesTheOldOneWhenItWasTheLast() {
    index.upsert("admission/pod", "old", T5);
    assertThat(index.upsert("admission/pod", "new", T7)).contains(new Deletion("old", T5));
    assertThat(index.uidOf("admission/pod")).contains("new");
    assertThat(index.remove("admission/pod")).contains(new Deletion("new", T7));
  }

  @Test
  void aUidAddedAgainAfterItsDeletionStartsAfresh() {
    index.upsert("admission/pod", "u1", T9);
    assertThat(index.remove("admission/pod")).contains(new Deletion("u1", T9));
    index.upsert("admission/pod", "u1", T5);
    assertThat(index.remove("admission/pod")).contains(new Deletion("u1", T5));
  }

  @Test
  void removingAnObjectNotHeldIsNothing() {
    assertThat(index.remove("admission/pod")).isEmpty();
    assertThat(index.contains("admission/pod")).isFalse();
  }

  @Test
  void aClockBehindTheProducersDeletesAtTheirTime() {
    assertThat(new Deletion("u1", T9).at(T5)).isEqualTo(T9);
    assertThat(new Deletion("u1", T5).at(T9)).isEqualTo(T9);
  }

  @Test
  void badArgumentsAreRefusedNamingTheFieldAndChangeNothing() {
    index.upsert("admission/pod", "u1", T5);
    assertThatThrownBy(() -> index.upsert("admission/pod", "", T7))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("uid: is required");
    assertThatThrownBy(() -> index.upsert("admission/pod", "u2", null))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("observedAt: is required");
    assertThatThrownBy(() -> index.remove(null))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("objectKey: is required");
    assertThat(index.uidOf("admission/pod")).isEqualTo(Optional.of("u1"));
    assertThat(index.remove("admission/pod")).contains(new Deletion("u1", T5));
  }
}
