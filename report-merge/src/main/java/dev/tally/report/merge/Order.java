package dev.tally.report.merge;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Timestamp;

/**
 * The order of an evaluation: (observedAt with nanos, generation, producer). Later wins; the
 * producer only breaks ties, so nothing is ever first-seen.
 */
record Order(Timestamp observedAt, long generation, String producer) implements Comparable<Order> {

  static Order of(PartialReport p) {
    return new Order(p.observedAt(), p.generation(), p.producer());
  }

  @Override
  public int compareTo(Order o) {
    int c = observedAt.compareTo(o.observedAt);
    if (c == 0) {
      c = Long.compare(generation, o.generation);
    }
    return c != 0 ? c : producer.compareTo(o.producer);
  }
}
