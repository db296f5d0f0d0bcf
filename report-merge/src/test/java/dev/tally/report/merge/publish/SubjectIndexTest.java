package dev.tally.report.merge.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.publish.SubjectIndex.Deletion;
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
    assertThat(index.upsert("admission/pod", "shop", "u1", T9)).isEmpty();
    assertThat(index.upsert("background/pod", "shop", "u1", T5)).isEmpty();
    assertThat(index.remove("admission/pod")).as("another object is still about u1").isEmpty();
    // the removed object's observedAt still counts: it was seen about u1
    assertThat(index.remove("background/pod")).contains(new Deletion("shop", "u1", T9));
    assertThat(index.size()).isZero();
  }

  @Test
  void anObjectThatMovesToAnotherUidDeletesTheOldOneWhenItWasTheLast() {
    index.upsert("admission/pod", "shop", "old", T5);
    assertThat(index.upsert("admission/pod", "shop", "new", T7))
        .contains(new Deletion("shop", "old", T5));
    assertThat(index.uidOf("admission/pod")).contains("new");
    assertThat(index.remove("admission/pod")).contains(new Deletion("shop", "new", T7));
  }

  @Test
  void aUidAddedAgainAfterItsDeletionStartsAfresh() {
    index.upsert("admission/pod", "shop", "u1", T9);
    assertThat(index.remove("admission/pod")).contains(new Deletion("shop", "u1", T9));
    index.upsert("admission/pod", "shop", "u1", T5);
    assertThat(index.remove("admission/pod")).contains(new Deletion("shop", "u1", T5));
  }

  @Test
  void removingAnObjectNotHeldIsNothing() {
    assertThat(index.remove("admission/pod")).isEmpty();
    assertThat(index.contains("admission/pod")).isFalse();
  }

  @Test
  void aClockBehindTheProducersDeletesAtTheirTime() {
    assertThat(new Deletion("shop", "u1", T9).at(T5)).isEqualTo(T9);
    assertThat(new Deletion("shop", "u1", T5).at(T9)).isEqualTo(T9);
  }

  @Test
  void theSameUidClaimedInAnotherNamespaceIsAnotherSubject() {
    // a tenant's object in "evil" claims the uid of shop's Pod
    index.upsert("admission/pod", "shop", "u1", T5);
    index.upsert("forged/ghost", "evil", "u1", T9);
    // shop's Pod goes: it is deleted although the tenant's object still claims its uid
    assertThat(index.remove("admission/pod")).contains(new Deletion("shop", "u1", T5));
    // and the tenant's object going deletes its own claim only
    assertThat(index.remove("forged/ghost")).contains(new Deletion("evil", "u1", T9));
  }

  @Test
  void badArgumentsAreRefusedNamingTheFieldAndChangeNothing() {
    index.upsert("admission/pod", "shop", "u1", T5);
    assertThatThrownBy(() -> index.upsert("admission/pod", "shop", "", T7))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("uid: is required");
    assertThatThrownBy(() -> index.upsert("admission/pod", "shop", "u2", null))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("observedAt: is required");
    assertThatThrownBy(() -> index.upsert("admission/pod", null, "u2", T7))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("namespace: is required");
    assertThatThrownBy(() -> index.remove(null))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("objectKey: is required");
    assertThat(index.uidOf("admission/pod")).isEqualTo(Optional.of("u1"));
    assertThat(index.remove("admission/pod")).contains(new Deletion("shop", "u1", T5));
  }
}
