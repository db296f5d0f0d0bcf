package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The reference workload of docs/DESIGN.md, "Performance budgets": background-scan partial reports
 * of {@link WorkloadShape#resultsPerSubject()} results each, one per subject, with statuses mostly
 * {@code pass} and messages that repeat per rule and status, as Kyverno writes them. Built from a
 * seed: the same shape and seed give equal partial reports.
 */
public final class ReferenceWorkload {
  /** The seed every benchmark uses. */
  public static final long SEED = 0x7a11_2024L;

  /** The producer of every generated partial report. */
  public static final String PRODUCER = "background";

  /** The policy engine named as the results' source. */
  public static final String SOURCE = "kyverno";

  /** Observations of the initial scan lie in the hour after this second. */
  public static final long BASE_SECONDS = 1_700_000_000L;

  /** Rescans ({@link #rescan}) happen after this second, later than any initial observation. */
  public static final long RESCAN_SECONDS = BASE_SECONDS + 10_000L;

  /** Names of real Kyverno policies (Pod Security Standards and best practices). */
  static final List<String> POLICY_NAMES =
      List.of(
          "disallow-capabilities",
          "disallow-host-namespaces",
          "disallow-host-path",
          "disallow-host-ports",
          "disallow-host-process",
          "disallow-privileged-containers",
          "disallow-proc-mount",
          "disallow-selinux",
          "restrict-apparmor-profiles",
          "restrict-seccomp",
          "restrict-sysctls",
          "disallow-capabilities-strict",
          "disallow-privilege-escalation",
          "require-run-as-non-root-user",
          "require-run-as-nonroot",
          "restrict-seccomp-strict",
          "restrict-volume-types",
          "require-labels",
          "require-requests-limits",
          "disallow-latest-tag");

  private final WorkloadShape shape;
  private final long seed;
  private final StringSharing sharing;
  private final List<String> policies;
  private final List<Subject> subjects;
  private final List<PartialReport> partials;
  private final Map<String, String> pool = new HashMap<>();

  private ReferenceWorkload(WorkloadShape shape, long seed, StringSharing sharing) {
    this.shape = shape;
    this.seed = seed;
    this.sharing = sharing;
    List<String> names = new ArrayList<>();
    for (String name : policyNames(shape.policies())) {
      names.add(pool.computeIfAbsent(name, v -> v));
    }
    this.policies = List.copyOf(names);
    Random random = new Random(seed);
    List<Subject> subjectList = new ArrayList<>(shape.subjects());
    List<PartialReport> partialList = new ArrayList<>(shape.subjects());
    for (int i = 0; i < shape.subjects(); i++) {
      Subject subject = subject(i, random);
      subjectList.add(subject);
      partialList.add(initialScan(subject, random));
    }
    this.subjects = List.copyOf(subjectList);
    this.partials = List.copyOf(partialList);
  }

  /** The workload of this shape built from {@code seed}, results decoded as from JSON. */
  public static ReferenceWorkload generate(WorkloadShape shape, long seed) {
    return new ReferenceWorkload(shape, seed, StringSharing.DECODED);
  }

  public static ReferenceWorkload generate(WorkloadShape shape, long seed, StringSharing sharing) {
    return new ReferenceWorkload(shape, seed, sharing);
  }

  /** The reference workload at {@code results} results, from {@link #SEED}. */
  public static ReferenceWorkload reference(int results) {
    return generate(WorkloadShape.reference(results), SEED);
  }

  public WorkloadShape shape() {
    return shape;
  }

  public long seed() {
    return seed;
  }

  /** One subject per partial report, in the same order. */
  public List<Subject> subjects() {
    return subjects;
  }

  /** The initial background scan: one partial report per subject. */
  public List<PartialReport> partials() {
    return partials;
  }

  /** The policy names, in order. */
  public List<String> policies() {
    return policies;
  }

  /** The namespace of subject {@code i}. */
  public static String namespaceName(int i) {
    return String.format("ns-%03d", i);
  }

  /**
   * The results of subject {@code index}'s initial scan with result {@code flip} changed between
   * pass and fail (any other status becomes fail): what a rescan after a change of the resource
   * reports.
   */
  public List<Result> flippedResults(int index, int flip) {
    List<Result> original = partials.get(index).results();
    List<Result> out = new ArrayList<>(original);
    Result r = original.get(Math.floorMod(flip, original.size()));
    ResultStatus status = r.status() == ResultStatus.FAIL ? ResultStatus.PASS : ResultStatus.FAIL;
    out.set(
        Math.floorMod(flip, original.size()),
        r.toBuilder().status(status).message(text(message(r.policy(), r.rule(), status))).build());
    return List.copyOf(out);
  }

  /**
   * A later background scan of subject {@code index} with the given results, covering the same
   * policies as its initial scan.
   */
  public PartialReport rescan(int index, List<Result> results, Timestamp observedAt) {
    PartialReport initial = partials.get(index);
    return new PartialReport(
        PRODUCER,
        initial.subject(),
        "",
        initial.coverage(),
        results,
        observedAt,
        initial.generation() + 1);
  }

  private Subject subject(int i, Random random) {
    String namespace = namespaceName(i % shape.namespaces());
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    String uid = new UUID(msb, lsb).toString();
    return Subject.of("v1", "Pod", namespace, String.format("pod-%07d", i), uid);
  }

  private PartialReport initialScan(Subject subject, Random random) {
    Timestamp observedAt =
        new Timestamp(BASE_SECONDS + random.nextInt(3600), random.nextInt(1_000_000_000));
    int[] chosen = choosePolicies(random);
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    List<Result> results = new ArrayList<>(shape.resultsPerSubject());
    for (int p : chosen) {
      String policy = policies.get(p);
      coverage.add(CoverageKey.of(SOURCE, policy));
      for (int rule = 0; rule < shape.rulesPerPolicy(); rule++) {
        results.add(result(subject, p, ruleName(policy, rule), status(random), observedAt));
      }
    }
    return new PartialReport(PRODUCER, subject, "", coverage, results, observedAt, 1);
  }

  private Result result(
      Subject subject, int policyIndex, String rule, ResultStatus status, Timestamp observedAt) {
    String policy = policies.get(policyIndex);
    return Result.builder()
        .source(text(SOURCE))
        .policy(text(policy))
        .rule(text(rule))
        .status(status)
        .severity(policyIndex % 3 == 0 ? Severity.HIGH : Severity.MEDIUM)
        .category(text(category(policyIndex)))
        .message(text(message(policy, rule, status)))
        .scored(Boolean.TRUE)
        .timestamp(
            sharing == StringSharing.DECODED
                ? new Timestamp(observedAt.seconds(), observedAt.nanos())
                : observedAt)
        .resource(
            sharing == StringSharing.DECODED
                ? Subject.of(
                    text(subject.apiVersion()),
                    text(subject.kind()),
                    text(subject.namespace()),
                    text(subject.name()),
                    text(subject.uid()))
                : subject)
        .build();
  }

  /** A distinct copy where results are decoded, one shared instance where they share values. */
  @SuppressWarnings("StringOperationCanBeSimplified")
  private String text(String value) {
    return sharing == StringSharing.DECODED
        ? new String(value)
        : pool.computeIfAbsent(value, v -> v);
  }

  private int[] choosePolicies(Random random) {
    int[] all = new int[shape.policies()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    int n = shape.policiesPerSubject();
    for (int i = 0; i < n; i++) {
      int j = i + random.nextInt(all.length - i);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    int[] chosen = java.util.Arrays.copyOf(all, n);
    java.util.Arrays.sort(chosen);
    return chosen;
  }

  /** 90% pass, 6% fail, 2% warn, 1% error, 1% skip. */
  private static ResultStatus status(Random random) {
    int p = random.nextInt(100);
    if (p < 90) {
      return ResultStatus.PASS;
    } else if (p < 96) {
      return ResultStatus.FAIL;
    } else if (p < 98) {
      return ResultStatus.WARN;
    } else if (p < 99) {
      return ResultStatus.ERROR;
    }
    return ResultStatus.SKIP;
  }

  private static List<String> policyNames(int n) {
    List<String> names = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      names.add(i < POLICY_NAMES.size() ? POLICY_NAMES.get(i) : String.format("policy-%03d", i));
    }
    return List.copyOf(names);
  }

  private static String ruleName(String policy, int rule) {
    return (rule == 0 ? "" : "autogen-" + (rule == 1 ? "" : rule + "-")) + "check-" + policy;
  }

  private static String category(int policyIndex) {
    if (policyIndex < 11) {
      return "Pod Security Standards (Baseline)";
    }
    return policyIndex < 17 ? "Pod Security Standards (Restricted)" : "Best Practices";
  }

  /** One message per (policy, rule, status): Kyverno's messages repeat per rule. */
  static String message(String policy, String rule, ResultStatus status) {
    return switch (status) {
      case PASS -> "validation rule '" + rule + "' passed.";
      case FAIL ->
          "validation error: the resource violates "
              + policy
              + ". rule "
              + rule
              + " failed at path /spec/containers/0/securityContext/";
      case WARN ->
          "validation warning: "
              + policy
              + " will be enforced soon. rule "
              + rule
              + " failed at path /spec/containers/0/";
      case ERROR -> "failed to evaluate rule " + rule + ": variable substitution failed";
      case SKIP -> "rule " + rule + " skipped: preconditions not met";
    };
  }
}
