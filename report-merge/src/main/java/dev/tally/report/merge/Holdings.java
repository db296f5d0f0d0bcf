package dev.tally.report.merge;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.FairShare;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import java.util.HashMap;
import java.util.Map;

/**
 * What a {@link DefaultReportAggregator} holds, counted as its caps count it (results, their bytes
 * and registers per namespace and in all, subjects per producer within a namespace, producers per
 * namespace), and the caps checks themselves: a change is checked before anything is changed, and
 * counted when it is made. The process-wide caps are shared fairly between namespaces ({@link
 * FairShare}).
 *
 * <p>{@link DefaultReportAggregator}'s apply/tombstone path changes the state; this class only
 * counts and caps what it holds.
 */
final class Holdings {
  private final InputCaps caps;

  /** What each namespace holds, as its caps count it. */
  private final Map<String, NamespaceHeld> heldByNamespace = new HashMap<>();

  /** The results, registers and producers one namespace holds. */
  private static final class NamespaceHeld {
    long results;
    long resultBytes;
    long registers;
    int producers;

    boolean isEmpty() {
      return results == 0 && registers == 0 && producers == 0;
    }
  }

  /**
   * Subjects per (namespace, producer): the producer cap is counted within each namespace, so one
   * tenant's producer never uses up what another namespace's producer of the same name may hold.
   */
  private final Map<ProducerKey, int[]> subjectsByProducer = new HashMap<>();

  private record ProducerKey(String namespace, String producer) {}

  private long resultCount;

  /** Bytes of results held in all, each result at its encoded size and a comma. */
  private long resultBytes;

  /** Registers held in all, those without results included. */
  private long registerCount;

  Holdings(InputCaps caps) {
    this.caps = caps;
  }

  long resultCount() {
    return resultCount;
  }

  long registerCount() {
    return registerCount;
  }

  long resultBytes() {
    return resultBytes;
  }

  /** The (namespace, producer) pairs that hold something. */
  int producers() {
    return subjectsByProducer.size();
  }

  /**
   * Refuses a change of {@code producer}'s about a subject of {@code namespace} that adds {@code
   * delta} results of {@code bytes} bytes and {@code added} registers if it would break a cap;
   * {@code held} is what is held for the subject now.
   *
   * @throws CapacityExceededException naming the cap
   */
  void check(
      String namespace, String producer, HeldRegisters held, long delta, long bytes, int added) {
    checkNamespaceCaps(namespace, delta, bytes, added);
    checkProducerCaps(namespace, producer, held);
    checkProcessCaps(namespace, delta, bytes, added);
  }

  /** Counts a register now held; {@code producerNew} when its producer held nothing for it. */
  void put(Register r, boolean producerNew) {
    NamespaceHeld ns =
        heldByNamespace.computeIfAbsent(r.subject.namespace(), k -> new NamespaceHeld());
    if (producerNew) {
      int[] subjectsOfProducer =
          subjectsByProducer.computeIfAbsent(producerKey(r), k -> new int[1]);
      if (subjectsOfProducer[0]++ == 0) {
        ns.producers++;
      }
    }
    ns.results += r.results.length;
    ns.resultBytes += r.resultsBytes;
    ns.registers++;
    resultCount += r.results.length;
    resultBytes += r.resultsBytes;
    registerCount++;
  }

  /**
   * Counts a register no longer held; {@code producerGone} when its producer holds nothing more.
   */
  void remove(Register r, boolean producerGone) {
    NamespaceHeld ns = heldByNamespace.get(r.subject.namespace());
    if (producerGone) {
      ProducerKey key = producerKey(r);
      int[] c = subjectsByProducer.get(key);
      if (--c[0] == 0) {
        subjectsByProducer.remove(key);
        ns.producers--;
      }
    }
    ns.results -= r.results.length;
    ns.resultBytes -= r.resultsBytes;
    ns.registers--;
    if (ns.isEmpty()) {
      heldByNamespace.remove(r.subject.namespace());
    }
    resultCount -= r.results.length;
    resultBytes -= r.resultsBytes;
    registerCount--;
  }

  private static ProducerKey producerKey(Register r) {
    return new ProducerKey(r.subject.namespace(), r.order.producer());
  }

  /** The caps of one namespace: results, their bytes and registers held there. */
  private void checkNamespaceCaps(String namespace, long delta, long bytes, int added) {
    NamespaceHeld held = heldByNamespace.get(namespace);
    checkNamespaceCap(
        namespace,
        held == null ? 0 : held.results,
        delta,
        caps.maxResultsPerNamespace(),
        "results",
        "maxResultsPerNamespace");
    checkNamespaceCap(
        namespace,
        held == null ? 0 : held.resultBytes,
        bytes,
        caps.maxResultBytesPerNamespace(),
        "bytes of results",
        "maxResultBytesPerNamespace");
    checkNamespaceCap(
        namespace,
        held == null ? 0 : held.registers,
        added,
        caps.maxRegistersPerNamespace(),
        "registers (one per subject and policy, with results or without)",
        "maxRegistersPerNamespace");
  }

  /**
   * Refuses adding {@code more} of {@code what} to the {@code held} of a namespace past {@code
   * cap}.
   */
  private static void checkNamespaceCap(
      String namespace, long held, long more, long cap, String what, String capName) {
    if (more > 0 && held + more > cap) {
      throw new CapacityExceededException(
          "subject.namespace",
          "namespace '"
              + namespace
              + "' would hold "
              + (held + more)
              + " "
              + what
              + ", at most "
              + cap
              + " allowed (cap "
              + capName
              + ")",
          cap,
          capName);
    }
  }

  /** The caps of a producer within one namespace: its subjects, and producers in all there. */
  private void checkProducerCaps(String namespace, String producer, HeldRegisters held) {
    if (held.holds(producer)) {
      return; // already counted for this subject
    }
    int[] count = subjectsByProducer.get(new ProducerKey(namespace, producer));
    int cap = caps.maxSubjectsPerProducer();
    if (count != null && count[0] >= cap) {
      throw new CapacityExceededException(
          "producer",
          "producer '"
              + producer
              + "' already holds results for "
              + cap
              + " subjects in namespace '"
              + namespace
              + "' (cap maxSubjectsPerProducer)",
          cap,
          "maxSubjectsPerProducer");
    }
    NamespaceHeld ns = heldByNamespace.get(namespace);
    int maxProducers = caps.maxProducersPerNamespace();
    if (count == null && ns != null && ns.producers >= maxProducers) {
      throw new CapacityExceededException(
          "producer",
          "producer '"
              + producer
              + "' would be one more than the "
              + maxProducers
              + " producers namespace '"
              + namespace
              + "' may hold (cap maxProducersPerNamespace)",
          maxProducers,
          "maxProducersPerNamespace");
    }
  }

  /**
   * The caps of the whole process: results, their bytes and registers held in every namespace
   * together, which the namespaces share fairly ({@link FairShare}): past a cap, a namespace over
   * its share is refused and one within it is not.
   */
  private void checkProcessCaps(String namespace, long delta, long bytes, int added) {
    NamespaceHeld held = heldByNamespace.get(namespace);
    int namespaces = heldByNamespace.size() + (held == null ? 1 : 0);
    if (delta > 0) {
      FairShare.check(
          "subject.namespace",
          "results",
          "maxResults",
          caps.maxResults(),
          resultCount + delta,
          namespace,
          (held == null ? 0 : held.results) + delta,
          namespaces);
    }
    if (bytes > 0) {
      FairShare.check(
          "subject.namespace",
          "bytes of results",
          "maxResultBytes",
          caps.maxResultBytes(),
          resultBytes + bytes,
          namespace,
          (held == null ? 0 : held.resultBytes) + bytes,
          namespaces);
    }
    if (added > 0) {
      FairShare.check(
          "subject.namespace",
          "registers",
          "maxRegisters",
          caps.maxRegisters(),
          registerCount + added,
          namespace,
          (held == null ? 0 : held.registers) + added,
          namespaces);
    }
  }

  /**
   * Refuses a partial report larger than one may be: more results, or a coverage of more keys (each
   * would be a register, with results or without), than the caps allow.
   *
   * @throws CapacityExceededException naming the cap
   */
  void checkPartial(PartialReport p) {
    int max = caps.maxResultsPerPartial();
    if (p.results().size() > max) {
      throw new CapacityExceededException(
          "results",
          "a partial report of "
              + p.producer()
              + " holds "
              + p.results().size()
              + " results, at most "
              + max
              + " allowed (cap maxResultsPerPartial)",
          max,
          "maxResultsPerPartial");
    }
    int maxCoverage = caps.maxCoveragePerPartial();
    int covered = p.effectiveCoverage().size();
    if (covered > maxCoverage) {
      // before a register is planned: each key would be one, with results or without
      throw new CapacityExceededException(
          "coverage",
          "a partial report of "
              + p.producer()
              + " covers "
              + covered
              + " policies, at most "
              + maxCoverage
              + " allowed (cap maxCoveragePerPartial)",
          maxCoverage,
          "maxCoveragePerPartial");
    }
  }
}
