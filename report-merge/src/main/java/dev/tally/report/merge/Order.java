package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;

/**
 * The order of an evaluation: (observedAt with nanos, generation, producer, content). Later wins;
 * the producer only breaks ties, so nothing is ever first-seen, and two evaluations equal in all
 * three are decided by a digest of what they state ({@link #content}), the same for every register
 * of one partial report. So whichever of two tied partial reports wins, it wins every key it
 * covers: the aggregator keeps what the cluster keeps ({@link EvaluationOrder}), and a rebuild from
 * the cluster equals the live state.
 */
record Order(Timestamp observedAt, long generation, String producer, long content)
    implements Comparable<Order> {

  static Order of(PartialReport p) {
    return new Order(p.observedAt(), p.generation(), p.producer(), content(p));
  }

  /**
   * A digest of what a partial report states, its subject aside: the declared coverage and the
   * results (their digests were computed when they were built, so this reads no string).
   */
  static long content(PartialReport p) {
    long h = Fingerprint.of("order");
    for (CoverageKey k : p.coverage()) {
      h = Fingerprint.string(Fingerprint.string(h, k.source()), k.policy());
    }
    long sum = 0;
    var results = p.results();
    for (int i = 0, n = results.size(); i < n; i++) {
      Result r = results.get(i);
      // a multiset: the order of the list does not matter. The timestamps count here, though not
      // in a result's digest, so two evaluations that differ only in them are still ordered
      sum += Fingerprint.withTimestamp(r);
    }
    return Fingerprint.mix(Fingerprint.value(Fingerprint.value(h, sum), results.size()));
  }

  @Override
  public int compareTo(Order o) {
    int c = observedAt.compareTo(o.observedAt);
    if (c == 0) {
      c = Long.compare(generation, o.generation);
    }
    if (c == 0) {
      c = producer.compareTo(o.producer);
    }
    return c != 0 ? c : Long.compareUnsigned(content, o.content);
  }
}
