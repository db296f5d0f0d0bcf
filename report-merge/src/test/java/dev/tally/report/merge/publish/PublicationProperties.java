package dev.tally.report.merge.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.merge.EvaluationOrder;
import dev.tally.report.merge.Fixtures;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What a publisher writes over the object of a (producer, subject). */
class PublicationProperties {
  @Test
  void theClusterOnlyEverMovesToALaterEvaluationAndKeepsItsAdoption() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              var s = m.subject();
              PartialReport current = m.partial(s);
              PartialReport wanted = m.partial(s);
              if (m.random().nextBoolean()) {
                wanted = wanted.withSubjectUid(""); // published before the uid was known
              }
              var written = Publication.toWrite(current, wanted);
              PartialReport adopted = wanted.adopted() ? wanted : wanted.withSubjectUid(s.uid());
              if (EvaluationOrder.compare(current, adopted) >= 0) {
                assertThat(written).as("nothing older or equal replaces the object").isEmpty();
              } else {
                assertThat(written).contains(adopted);
              }
              assertThat(Publication.toWrite(null, wanted)).contains(wanted);
            });
  }

  @Test
  void anUnadoptedReportExpiresAfterItsGraceAndAnUnreadableTimeCountsAsExpired() {
    Instant since = Instant.parse("2030-01-01T00:00:00Z");
    Duration grace = Duration.ofMinutes(5);
    assertThat(Publication.adoptionExpired(null, grace, since.plusSeconds(3600))).isFalse();
    assertThat(Publication.adoptionExpired(since.toString(), grace, since.plus(grace))).isFalse();
    assertThat(Publication.adoptionExpired(since.toString(), grace, since.plus(grace).plusNanos(1)))
        .isTrue();
    assertThat(Publication.adoptionExpired("yesterday", grace, since)).isTrue();
  }
}
