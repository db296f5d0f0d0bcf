package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The merge state as an immutable value: last-writer-wins registers per (subject namespace, subject
 * uid, source, policy) and tombstones per (subject namespace, subject uid): a deletion hides the
 * uid in its namespace only, as a register is only ever read by partial reports of its own. It is a
 * state-based CRDT: {@link #merge} is commutative, associative and idempotent, and folding any
 * permutation of the same events gives the same state. The aggregator keeps the same state
 * incrementally; this class is its specification, and lets replicas exchange and combine what they
 * know.
 */
final class ReportState {
  private static final ReportState EMPTY = new ReportState(Map.of(), Map.of());

  private final Map<RegisterId, Content> registers;
  private final Map<SubjectId, Timestamp> tombstones;

  private ReportState(Map<RegisterId, Content> registers, Map<SubjectId, Timestamp> tombstones) {
    this.registers = registers;
    this.tombstones = tombstones;
  }

  public static ReportState empty() {
    return EMPTY;
  }

  /** The state after one partial report. */
  public ReportState apply(PartialReport p) {
    MergeRule.mergeable(p);
    Timestamp deletedAt = tombstones.get(new SubjectId(p.subject().namespace(), p.subject().uid()));
    if (MergeRule.hidden(p.observedAt(), deletedAt)) {
      return this;
    }
    EvaluationOrder order = EvaluationOrder.of(p);
    Map<RegisterId, Content> next = new HashMap<>(registers);
    MergeRule.registerContents(p)
        .forEach(
            (key, results) -> {
              RegisterId id = new RegisterId(p.subject().namespace(), p.subject().uid(), key);
              Content incoming = new Content(p.subject(), order, List.of(results));
              Content existing = next.get(id);
              if (existing == null
                  || MergeRule.wins(order, incoming.digest(), existing.order, existing.digest())) {
                next.put(id, incoming);
              }
            });
    return new ReportState(Collections.unmodifiableMap(next), tombstones);
  }

  /** The state after a subject's deletion at {@code deletedAt}. */
  public ReportState delete(String namespace, String uid, Timestamp deletedAt) {
    Map<SubjectId, Timestamp> t = new HashMap<>(tombstones);
    t.merge(new SubjectId(namespace, uid), deletedAt, (a, b) -> a.compareTo(b) >= 0 ? a : b);
    return normalized(registers, t);
  }

  /** The least state that knows everything either state knows. */
  public ReportState merge(ReportState other) {
    Map<RegisterId, Content> r = new HashMap<>(registers);
    other.registers.forEach(
        (id, c) ->
            r.merge(
                id, c, (a, b) -> MergeRule.wins(b.order, b.digest(), a.order, a.digest()) ? b : a));
    Map<SubjectId, Timestamp> t = new HashMap<>(tombstones);
    other.tombstones.forEach((id, ts) -> t.merge(id, ts, (a, b) -> a.compareTo(b) >= 0 ? a : b));
    return normalized(r, t);
  }

  private static ReportState normalized(
      Map<RegisterId, Content> registers, Map<SubjectId, Timestamp> tombstones) {
    Map<RegisterId, Content> r = new HashMap<>(registers);
    r.entrySet()
        .removeIf(
            e ->
                MergeRule.hidden(
                    e.getValue().order.observedAt(),
                    tombstones.get(new SubjectId(e.getKey().namespace(), e.getKey().uid()))));
    return new ReportState(
        Collections.unmodifiableMap(r), Collections.unmodifiableMap(new HashMap<>(tombstones)));
  }

  /**
   * The state holding {@code registers} (each with the order of the evaluation that wrote it,
   * content digest included) and {@code tombstones}: how an aggregator states what it holds.
   */
  static ReportState of(Collection<Register> registers, Map<SubjectId, Timestamp> tombstones) {
    Map<RegisterId, Content> r = new HashMap<>();
    for (Register x : registers) {
      r.put(
          new RegisterId(x.subject.namespace(), x.subject.uid(), x.key),
          new Content(x.subject, x.order, List.of(x.results)));
    }
    return normalized(r, tombstones);
  }

  /** The registers: for each (uid, source, policy), the content that won. */
  public Map<RegisterId, Content> registers() {
    return registers;
  }

  public Map<SubjectId, Timestamp> tombstones() {
    return tombstones;
  }

  /** Every partial report needed to rebuild this state's registers in an aggregator. */
  List<Register> toRegisters() {
    return registers.entrySet().stream()
        .map(
            e ->
                new Register(
                    e.getValue().subject,
                    e.getKey().key(),
                    e.getValue().order,
                    e.getValue().results.toArray(new Result[0])))
        .toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReportState s
        && registers.equals(s.registers)
        && tombstones.equals(s.tombstones);
  }

  @Override
  public int hashCode() {
    return Objects.hash(registers, tombstones);
  }

  @Override
  public String toString() {
    return "ReportState[" + registers.size() + " registers, " + tombstones.size() + " tombstones]";
  }

  /**
   * The identity of a register: the subject's namespace and uid, and the coverage key. The
   * namespace is part of it so that a partial report in one namespace never reads or replaces a
   * register of another, whatever uid it claims.
   */
  public record RegisterId(String namespace, String uid, CoverageKey key) {}

  /** What a register holds: the evaluation that won and its results (empty: retracted). */
  public static final class Content {
    private final Subject subject;
    private final EvaluationOrder order;
    private final List<Result> results;
    private final long digest;

    Content(Subject subject, EvaluationOrder order, List<Result> results) {
      this.subject = subject;
      this.order = order;
      this.results = results;
      this.digest = MergeRule.digest(subject, results.toArray(new Result[0]));
    }

    public Subject subject() {
      return subject;
    }

    public Timestamp observedAt() {
      return order.observedAt();
    }

    public String producer() {
      return order.producer();
    }

    public List<Result> results() {
      return results;
    }

    long digest() {
      return digest;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Content c
          && order.equals(c.order)
          && subject.equals(c.subject)
          && results.equals(c.results);
    }

    @Override
    public int hashCode() {
      return Objects.hash(order, subject, results);
    }

    @Override
    public String toString() {
      return order + " " + Arrays.toString(results.toArray());
    }
  }
}
