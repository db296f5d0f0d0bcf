package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One instance of each equal string and subject the aggregator holds. Results repeat a handful of
 * distinct sources, policies, rules, categories and messages, so holding one instance of each saves
 * most of a decoded result's memory.
 *
 * <p>It also holds one instance of each coverage key, and lets the results of one evaluation share
 * its timestamp.
 *
 * <p>Values no register uses any more are dropped by {@link #rebuild}: the aggregator calls it when
 * the table has doubled since the last rebuild, so the table stays within twice what is live at an
 * amortised constant cost per value.
 */
final class ValueTable {
  private static final int MIN_REBUILD_SIZE = 4096;

  /**
   * Each held string. Results carry their own digest and size, and a register's content digest (the
   * only use of a subject's) is read only when two evaluations tie, so nothing is kept per value
   * but the instance.
   */
  private InternSet<String> strings = new InternSet<>();

  private InternSet<Subject> subjects = new InternSet<>();
  private InternSet<CoverageKey> keys = new InternSet<>();
  private int rebuildAt = MIN_REBUILD_SIZE;
  private boolean removed;
  private @Nullable Timestamp lastTimestamp;

  /**
   * Held rules and messages by what they usually follow from (the policy; the policy, rule and
   * status) and their length: two-way direct-mapped caches, so that a rule or message met before in
   * the same context is found by one comparison instead of a hash of all its characters.
   */
  private final @Nullable String[] rules = new String[2 * (1 << RULE_BITS)];

  private final @Nullable String[] messages = new String[2 * (1 << MESSAGE_BITS)];

  /** Held policies by source and length and ends, categories by policy: the same kind of cache. */
  private final @Nullable String[] policies = new String[2 * (1 << RULE_BITS)];

  private final @Nullable String[] categories = new String[2 * (1 << RULE_BITS)];

  private static final int RULE_BITS = 8;
  private static final int MESSAGE_BITS = 10;

  /** The last held value of each field {@link #recent} is asked for. */
  private final @Nullable String[] recent = new String[1];

  /** The held instance equal to {@code s}. */
  String string(String s) {
    return strings.intern(s);
  }

  /** The held instance equal to {@code s}, made of held strings but for its own name and uid. */
  Subject subject(Subject s) {
    Subject found = subjects.get(s);
    if (found != null) {
      return found;
    }
    String apiVersion = string(s.apiVersion());
    String kind = string(s.kind());
    String namespace = string(s.namespace());
    // a name and a uid are one subject's (equal subjects share the held one): interning them
    // separately would only grow the table by two entries per subject
    String name = s.name();
    String uid = s.uid();
    Subject held =
        apiVersion == s.apiVersion()
                && kind == s.kind()
                && namespace == s.namespace()
                && name == s.name()
                && uid == s.uid()
            ? s
            : new Subject(apiVersion, kind, namespace, name, uid);
    return subjects.intern(held);
  }

  /**
   * Held results by status, the lengths of their policy, rule and message and two letters of the
   * policy: a two-way direct-mapped cache of results met before, each made of held values. A result
   * about one object that states what one of them states (another subject's result of the same
   * rule, usually) is made of its values by one comparison of each field, where looking each value
   * up would compare it once to find it and once more to take it ({@link Result#sharingValuesOf}).
   */
  private final @Nullable Result[] templates = new Result[2 * (1 << TEMPLATE_BITS)];

  private static final int TEMPLATE_BITS = 10;

  /**
   * A result equal to {@code r} made of held values, about {@code subjectOnly} when it names no
   * object. {@code r} itself when it already is.
   */
  Result result(Result r, List<Subject> subjectOnly) {
    if (r.resources().size() != 1) {
      return lookedUp(r, subjectOnly);
    }
    Timestamp timestamp = heldTimestamp(r);
    String policy = r.policy();
    int policyLength = policy.length();
    // policies of one length often share their last letter: their middle one tells them apart
    int context = (r.status().ordinal() * 31 + policyLength) * 31 + policy.charAt(policyLength - 1);
    context = (context * 31 + policy.charAt(policyLength >> 1)) * 31 + r.rule().length();
    context = context * 31 + r.message().length();
    int slot = ((context * 0x9E3779B9) >>> (32 - TEMPLATE_BITS)) << 1;
    Result first = templates[slot];
    if (first != null) {
      // most results are about the partial report's own subject
      Result shared = r.sharingValuesOf(first, subjectOnly, timestamp);
      if (shared != null) {
        return shared;
      }
      Result second = templates[slot + 1];
      if (second != null) {
        shared = r.sharingValuesOf(second, subjectOnly, timestamp);
        if (shared != null) {
          templates[slot + 1] = first;
          templates[slot] = second;
          return shared;
        }
      }
    }
    Result held = lookedUp(r, subjectOnly);
    templates[slot + 1] = first;
    templates[slot] = held;
    return held;
  }

  /** {@link #result}, each value looked up on its own. */
  private Result lookedUp(Result r, List<Subject> subjectOnly) {
    String source = recent(r.source(), 0);
    String rawPolicy = r.policy();
    int policyLength = rawPolicy.length();
    String policy =
        cached(
            policies,
            ((source.hashCode() * 31 + policyLength) * 31 + rawPolicy.charAt(0)) * 31
                + rawPolicy.charAt(policyLength - 1),
            rawPolicy);
    String rule = cached(rules, policy.hashCode() * 31 + r.rule().length(), r.rule());
    String category = cached(categories, policy.hashCode(), r.category());
    String message =
        cached(
            messages,
            ((policy.hashCode() * 31 + rule.hashCode()) * 31 + r.status().ordinal()) * 31
                + r.message().length(),
            r.message());
    List<Subject> resources = r.resources();
    if (resources.isEmpty() && r.resourceSelector().isEmpty()) {
      // a different result: the subject is filled in, so its digest and size change
      return r.toBuilder()
          .source(source)
          .policy(policy)
          .rule(rule)
          .category(category)
          .message(message)
          .resources(subjectOnly)
          .timestamp(heldTimestamp(r))
          .build();
    }
    if (resources.size() == 1) {
      Subject only = resources.get(0);
      Subject subject = subjectOnly.get(0);
      // most results name the partial report's own subject: an equality test, no look-up
      if (only == subject || only.equals(subject)) {
        resources = subjectOnly;
      } else {
        Subject held = subject(only);
        if (held != only) {
          resources = List.of(held);
        }
      }
    } else if (!resources.isEmpty()) {
      Subject[] held = new Subject[resources.size()];
      boolean same = true;
      for (int i = 0; i < held.length; i++) {
        held[i] = subject(resources.get(i));
        same &= held[i] == resources.get(i);
      }
      if (!same) {
        resources = List.of(held);
      }
    }
    Timestamp timestamp = heldTimestamp(r);
    return r.withValues(source, policy, rule, category, message, resources, timestamp);
  }

  /** The held instance equal to {@code s}, looked up first in {@code cache} at {@code context}. */
  private String cached(@Nullable String[] cache, int context, String s) {
    int bits = Integer.numberOfTrailingZeros(cache.length) - 1;
    int slot = ((context * 0x9E3779B9) >>> (32 - bits)) << 1;
    String first = cache[slot];
    if (first != null && (first == s || first.equals(s))) {
      return first;
    }
    String second = cache[slot + 1];
    if (second != null && (second == s || second.equals(s))) {
      cache[slot + 1] = first;
      cache[slot] = second;
      return second;
    }
    String held = string(s);
    cache[slot + 1] = first;
    cache[slot] = held;
    return held;
  }

  /**
   * The held instance equal to {@code s}, for a field whose value repeats from one result to the
   * next (the results of one evaluation usually share their source): compared with the last one
   * first, looked up only when it differs.
   */
  private String recent(String s, int field) {
    String last = recent[field];
    if (last != null && (last == s || last.equals(s))) {
      return last;
    }
    String held = string(s);
    recent[field] = held;
    return held;
  }

  /** The held instance equal to {@code key}. */
  CoverageKey key(CoverageKey key) {
    // a key met before is usually in the cache, found by one comparison without hashing
    String policy = key.policy();
    int length = policy.length();
    int context =
        ((length * 31 + policy.charAt(0)) * 31 + policy.charAt(length - 1)) * 31
            + key.source().length();
    int slot = ((context * 0x9E3779B9) >>> (32 - KEY_BITS)) << 1;
    CoverageKey first = recentKeys[slot];
    if (first != null && (first == key || first.equals(key))) {
      return first;
    }
    CoverageKey second = recentKeys[slot + 1];
    if (second != null && (second == key || second.equals(key))) {
      recentKeys[slot + 1] = first;
      recentKeys[slot] = second;
      return second;
    }
    CoverageKey held = keys.intern(key);
    recentKeys[slot + 1] = first;
    recentKeys[slot] = held;
    return held;
  }

  private static final int KEY_BITS = 8;

  /** Held coverage keys by their policy's length and ends: a two-way direct-mapped cache. */
  private final @Nullable CoverageKey[] recentKeys = new CoverageKey[2 * (1 << KEY_BITS)];

  /**
   * Announces the time of the evaluation whose results come next: they are usually stamped with it,
   * and then share the instance the register's order holds.
   */
  void evaluatedAt(Timestamp observedAt) {
    lastTimestamp = observedAt;
  }

  private @Nullable Timestamp heldTimestamp(Result r) {
    Timestamp t = r.timestamp().orElse(null);
    return t == null ? null : timestamp(t);
  }

  /** The results of one evaluation usually share one timestamp: hold it once. */
  private Timestamp timestamp(Timestamp t) {
    Timestamp last = lastTimestamp;
    if (t.equals(last)) {
      return last;
    }
    lastTimestamp = t;
    return t;
  }

  /**
   * Whether the table may hold values no register uses: it doubled since the last rebuild while
   * registers were removed. Growth without removals only raises the threshold, so filling an
   * aggregator does not walk it again and again.
   */
  boolean needsRebuild() {
    int size = strings.size() + subjects.size() + keys.size();
    if (size <= rebuildAt) {
      return false;
    }
    if (!removed) {
      rebuildAt = 2 * size;
      return false;
    }
    return true;
  }

  /** Records that a register was removed, so that some held values may no longer be used. */
  void removed() {
    removed = true;
  }

  /** Keeps only the values of {@code live} registers, which must be made of held values. */
  void rebuild(Iterable<Register> live) {
    InternSet<String> keptStrings = new InternSet<>();
    InternSet<Subject> keptSubjects = new InternSet<>();
    InternSet<CoverageKey> keptKeys = new InternSet<>();
    for (Register r : live) {
      keptKeys.intern(r.key);
      keep(r.subject, keptStrings, keptSubjects);
      for (Result x : r.results) {
        keep(x.source(), keptStrings);
        keep(x.policy(), keptStrings);
        keep(x.rule(), keptStrings);
        keep(x.category(), keptStrings);
        keep(x.message(), keptStrings);
        for (Subject s : x.resources()) {
          keep(s, keptStrings, keptSubjects);
        }
      }
    }
    strings = keptStrings;
    subjects = keptSubjects;
    Arrays.fill(recent, null);
    Arrays.fill(rules, null);
    Arrays.fill(messages, null);
    Arrays.fill(policies, null);
    Arrays.fill(categories, null);
    Arrays.fill(recentKeys, null);
    Arrays.fill(templates, null);
    keys = keptKeys;
    rebuildAt = Math.max(MIN_REBUILD_SIZE, 2 * (strings.size() + subjects.size() + keys.size()));
    removed = false;
  }

  private void keep(String s, InternSet<String> kept) {
    String held = strings.get(s);
    if (held != null) {
      kept.intern(held);
    }
  }

  private void keep(Subject s, InternSet<String> keptStrings, InternSet<Subject> keptSubjects) {
    Subject held = subjects.get(s);
    int before = keptSubjects.size();
    if (held != null && keptSubjects.intern(held) != null && keptSubjects.size() > before) {
      keep(s.apiVersion(), keptStrings);
      keep(s.kind(), keptStrings);
      keep(s.namespace(), keptStrings);
      keep(s.name(), keptStrings);
      keep(s.uid(), keptStrings);
    }
  }
}
