package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * One simulated hour of a cluster, generated from a seed so that every layout replays exactly the
 * same events. The cluster starts in a steady state ({@link #initial()}: every subject evaluated
 * once by admission and once by the background scanner); then, in windows of {@link
 * #WINDOW_SECONDS} seconds each ending in a flush:
 *
 * <ul>
 *   <li>the background scanner rescans every live subject once over the hour (its periodic scan);
 *   <li>5% of the subjects are created (admission, then a background scan in the next window);
 *   <li>10% of the subjects are updated (admission and a background rescan; half the updates flip
 *       one result between pass and fail, the others change nothing a policy sees);
 *   <li>5% of the subjects are deleted;
 *   <li>at half-time one policy is changed (its first rule's message) and every subject it covers
 *       is rescanned in the next window, as an engine does after a policy change.
 * </ul>
 *
 * <p>Namespaces have a skewed (Zipf) size distribution: a few large namespaces, many small ones.
 * Every subject is evaluated by 5 of 20 policies of 2 rules. A result's timestamp is when its
 * outcome last changed, so a rescan that finds nothing new produces equal results.
 */
final class ClusterScript {
  static final int WINDOW_SECONDS = 15;
  static final int WINDOWS = 3600 / WINDOW_SECONDS;
  static final long START_SECONDS = 1_700_000_000L;
  static final String ADMISSION = "admission";
  static final String BACKGROUND = "background";

  private static final int POLICIES = 20;
  private static final int POLICIES_PER_SUBJECT = 5;
  private static final int RULES = 2;

  /** The events of one window, then a flush at {@code flushAt}. */
  record Window(Timestamp flushAt, List<ClusterAction> actions) {}

  private final int size;
  private final int namespaces;
  private final List<PartialReport> initial = new ArrayList<>();
  private final List<Window> windows = new ArrayList<>();
  private int creates;
  private int updates;
  private int deletes;
  private int policyChanges;

  // generator state
  private final Random random;
  private final double[] cumulativeWeight;
  private final List<String> policies;
  private final int[] policyRevision = new int[POLICIES];
  private final Map<String, String> strings = new HashMap<>();
  private final List<SimSubject> live = new ArrayList<>();
  private long generation;
  private int nextName;

  /** A subject as the generator tracks it: what the policies would say about it now. */
  private final class SimSubject {
    final Subject subject;
    final int[] policyIndexes;
    final ResultStatus[] statuses = new ResultStatus[POLICIES_PER_SUBJECT * RULES];
    final Timestamp[] since = new Timestamp[POLICIES_PER_SUBJECT * RULES];
    final int scanWindow;
    List<Result> results = List.of();
    boolean dirty = true;
    int liveIndex;

    SimSubject(Subject subject, int[] policyIndexes, Timestamp at) {
      this.subject = subject;
      this.policyIndexes = policyIndexes;
      this.scanWindow = random.nextInt(WINDOWS);
      for (int i = 0; i < statuses.length; i++) {
        statuses[i] = random.nextInt(100) < 90 ? ResultStatus.PASS : ResultStatus.FAIL;
        since[i] = at;
      }
    }

    List<Result> results() {
      if (dirty) {
        List<Result> out = new ArrayList<>(statuses.length);
        for (int p = 0; p < policyIndexes.length; p++) {
          for (int rule = 0; rule < RULES; rule++) {
            out.add(
                result(
                    policyIndexes[p], rule, statuses[p * RULES + rule], since[p * RULES + rule]));
          }
        }
        results = List.copyOf(out);
        dirty = false;
      }
      return results;
    }

    Result result(int policyIndex, int rule, ResultStatus status, Timestamp at) {
      String policy = policies.get(policyIndex);
      String ruleName = text((rule == 0 ? "" : "autogen-") + "check-" + policy);
      String message = ReferenceWorkload.message(policy, ruleName, status);
      if (rule == 0 && policyRevision[policyIndex] > 0) {
        message = message + " (policy revision " + policyRevision[policyIndex] + ")";
      }
      return Result.builder()
          .source(ReferenceWorkload.SOURCE)
          .policy(policy)
          .rule(ruleName)
          .status(status)
          .severity(policyIndex % 3 == 0 ? Severity.HIGH : Severity.MEDIUM)
          .category(text(policyIndex < 11 ? "Pod Security Standards (Baseline)" : "Best Practices"))
          .message(text(message))
          .scored(Boolean.TRUE)
          .timestamp(at)
          .resource(subject)
          .build();
    }

    Set<CoverageKey> coverage() {
      Set<CoverageKey> keys = new LinkedHashSet<>();
      for (int p : policyIndexes) {
        keys.add(CoverageKey.of(ReferenceWorkload.SOURCE, policies.get(p)));
      }
      return keys;
    }

    PartialReport evaluation(String producer, Timestamp at) {
      return new PartialReport(producer, subject, "", coverage(), results(), at, ++generation);
    }

    boolean covers(int policyIndex) {
      for (int p : policyIndexes) {
        if (p == policyIndex) {
          return true;
        }
      }
      return false;
    }
  }

  private ClusterScript(int size, long seed) {
    this.size = size;
    this.namespaces = Math.max(10, size / 50);
    this.random = new Random(seed ^ size);
    this.cumulativeWeight = new double[namespaces];
    double sum = 0;
    for (int i = 0; i < namespaces; i++) {
      sum += 1.0 / (i + 1);
      cumulativeWeight[i] = sum;
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < POLICIES; i++) {
      names.add(
          i < ReferenceWorkload.POLICY_NAMES.size()
              ? ReferenceWorkload.POLICY_NAMES.get(i)
              : "policy-" + i);
    }
    this.policies = List.copyOf(names);
    generate();
  }

  /** The hour of a cluster of {@code size} subjects, from {@code seed}. */
  static ClusterScript generate(int size, long seed) {
    return new ClusterScript(size, seed);
  }

  int size() {
    return size;
  }

  int namespaces() {
    return namespaces;
  }

  /** The evaluations of the steady state the hour starts from. */
  List<PartialReport> initial() {
    return initial;
  }

  List<Window> windows() {
    return windows;
  }

  int creates() {
    return creates;
  }

  int updates() {
    return updates;
  }

  int deletes() {
    return deletes;
  }

  int policyChanges() {
    return policyChanges;
  }

  /** Creates, updates, deletes and policy changes: the events that change what is true. */
  int churnEvents() {
    return creates + updates + deletes + policyChanges;
  }

  private void generate() {
    Timestamp before = Timestamp.ofSeconds(START_SECONDS - 3600);
    for (int i = 0; i < size; i++) {
      SimSubject s = newSubject(before);
      initial.add(s.evaluation(ADMISSION, at(START_SECONDS - 3600 + random.nextInt(1800))));
      initial.add(s.evaluation(BACKGROUND, at(START_SECONDS - 1800 + random.nextInt(1800))));
    }
    int createTotal = size / 20;
    int updateTotal = size / 10;
    int deleteTotal = size / 20;
    List<SimSubject> rescanNext = new ArrayList<>();
    int changedPolicy = -1;
    for (int w = 0; w < WINDOWS; w++) {
      long start = START_SECONDS + (long) w * WINDOW_SECONDS;
      List<ClusterAction> actions = new ArrayList<>();
      List<SimSubject> rescanAfter = new ArrayList<>();
      // rescans promised by the previous window: new subjects, updates, a policy change
      for (SimSubject s : rescanNext) {
        if (s.liveIndex >= 0) {
          actions.add(new ClusterAction.Evaluation(s.evaluation(BACKGROUND, at(start, random))));
        }
      }
      // the periodic background scan
      for (SimSubject s : live) {
        if (s.scanWindow == w) {
          actions.add(new ClusterAction.Evaluation(s.evaluation(BACKGROUND, at(start, random))));
        }
      }
      for (int i = share(createTotal, w); i > 0; i--) {
        Timestamp t = at(start, random);
        SimSubject s = newSubject(t);
        actions.add(new ClusterAction.Evaluation(s.evaluation(ADMISSION, t)));
        rescanAfter.add(s);
        creates++;
      }
      for (int i = share(updateTotal, w); i > 0 && !live.isEmpty(); i--) {
        SimSubject s = live.get(random.nextInt(live.size()));
        Timestamp t = at(start, random);
        if (random.nextBoolean()) {
          int j = random.nextInt(s.statuses.length);
          s.statuses[j] =
              s.statuses[j] == ResultStatus.PASS ? ResultStatus.FAIL : ResultStatus.PASS;
          s.since[j] = t;
          s.dirty = true;
        }
        actions.add(new ClusterAction.Evaluation(s.evaluation(ADMISSION, t)));
        rescanAfter.add(s);
        updates++;
      }
      for (int i = share(deleteTotal, w); i > 0 && !live.isEmpty(); i--) {
        SimSubject s = live.get(random.nextInt(live.size()));
        actions.add(new ClusterAction.Deletion(s.subject, at(start, random)));
        remove(s);
        deletes++;
      }
      if (w == WINDOWS / 2) {
        changedPolicy = 0;
        policyRevision[changedPolicy]++;
        policyChanges++;
        Timestamp t = at(start + WINDOW_SECONDS - 1, 0);
        for (SimSubject s : live) {
          if (s.covers(changedPolicy)) {
            for (int p = 0; p < s.policyIndexes.length; p++) {
              if (s.policyIndexes[p] == changedPolicy) {
                s.since[p * RULES] = t;
              }
            }
            s.dirty = true;
            rescanAfter.add(s);
          }
        }
      }
      windows.add(new Window(Timestamp.ofSeconds(start + WINDOW_SECONDS), List.copyOf(actions)));
      rescanNext = rescanAfter;
    }
  }

  private SimSubject newSubject(Timestamp at) {
    int ns = namespace();
    int n = nextName++;
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    Subject subject =
        Subject.of(
            "v1",
            "Pod",
            text(String.format("ns-%04d", ns)),
            String.format("pod-%07d", n),
            new java.util.UUID(msb, lsb).toString());
    int[] all = new int[POLICIES];
    for (int i = 0; i < POLICIES; i++) {
      all[i] = i;
    }
    for (int i = 0; i < POLICIES_PER_SUBJECT; i++) {
      int j = i + random.nextInt(POLICIES - i);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    int[] chosen = Arrays.copyOf(all, POLICIES_PER_SUBJECT);
    Arrays.sort(chosen);
    SimSubject s = new SimSubject(subject, chosen, at);
    s.liveIndex = live.size();
    live.add(s);
    return s;
  }

  private void remove(SimSubject s) {
    SimSubject last = live.remove(live.size() - 1);
    if (last != s) {
      live.set(s.liveIndex, last);
      last.liveIndex = s.liveIndex;
    }
    s.liveIndex = -1;
  }

  /** A namespace index, Zipf-distributed: namespace k has weight 1/(k+1). */
  private int namespace() {
    double x = random.nextDouble() * cumulativeWeight[namespaces - 1];
    int i = Arrays.binarySearch(cumulativeWeight, x);
    return i >= 0 ? i : Math.min(namespaces - 1, -i - 1);
  }

  /** Window {@code w}'s share of {@code total} events spread evenly over the hour. */
  private static int share(int total, int w) {
    return (int) ((long) total * (w + 1) / WINDOWS - (long) total * w / WINDOWS);
  }

  private Timestamp at(long windowStart, Random r) {
    return new Timestamp(windowStart + r.nextInt(WINDOW_SECONDS), r.nextInt(1_000_000_000));
  }

  private static Timestamp at(long seconds, int nanos) {
    return new Timestamp(seconds, nanos);
  }

  private static Timestamp at(long seconds) {
    return Timestamp.ofSeconds(seconds);
  }

  private String text(String value) {
    return strings.computeIfAbsent(value, v -> v);
  }
}
