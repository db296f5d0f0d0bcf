package dev.tally.report.audit;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Assigns work units to members by bounded-load rendezvous hashing, so that every member computes
 * the same plan from the same membership without talking to the others.
 *
 * <p>Each (member, unit) pair has a score, a {@link StableHash} of both ids; a unit prefers members
 * by descending score (plain highest-random-weight). Units are placed heaviest first (ties by id),
 * each on the most-preferred member whose load stays at or under {@code (1 + ε) × mean}, where mean
 * is the total weight over the member count; when no member has room, on the least loaded member.
 *
 * <p><b>Balance bound.</b> If no unit weighs more than {@code ε × mean}, the heaviest member
 * carries at most {@code (1 + ε) × mean}. Proof: a unit placed under the cap keeps the bound; a
 * unit placed on the least loaded member finds it at most at the mean of what was placed before it,
 * which is below {@code mean}, so it ends at most at {@code mean + w ≤ (1 + ε) × mean}. {@link
 * UnitCatalog} splits heavy kinds by namespace so that the condition holds. The comparison is done
 * in exact integer arithmetic (ε in parts per million) so the bound holds to the unit.
 *
 * <p><b>Movement.</b> Within a run, {@link #assignRemaining} leaves every unit of a live owner
 * where it is and moves only the units of departed members: exactly the departed weight, at most
 * {@code (1 + ε) / N} of the total when the bound holds. Between runs, a fresh {@link #plan} moves
 * about {@code 1/N} of the weight on a join or leave, more when the cap redirects units (measured
 * by {@code ShardPlannerProperties}).
 */
public final class ShardPlanner {
  /** The default balance slack: the heaviest member carries at most 1.25 × the mean. */
  public static final double DEFAULT_EPSILON = 0.25;

  private static final long PPM = 1_000_000L;
  private static final Comparator<WorkUnit> HEAVIEST_FIRST =
      Comparator.comparingLong(WorkUnit::weight).reversed().thenComparing(WorkUnit::id);

  private final double epsilon;
  private final long epsilonPpm;

  /**
   * @param epsilon the balance slack, in (0, 10]
   */
  public ShardPlanner(double epsilon) {
    if (!(epsilon > 0 && epsilon <= 10)) {
      throw new IllegalArgumentException("epsilon must be in (0, 10], was " + epsilon);
    }
    this.epsilon = epsilon;
    this.epsilonPpm = Math.round(epsilon * PPM);
  }

  public static ShardPlanner defaults() {
    return new ShardPlanner(DEFAULT_EPSILON);
  }

  public double epsilon() {
    return epsilon;
  }

  /**
   * The plan for these units over these members. The order of either collection does not matter.
   *
   * @throws IllegalArgumentException if there are no members, a blank member id, or two units with
   *     the same id
   */
  public ShardPlan plan(Collection<WorkUnit> units, Collection<String> members) {
    List<String> sortedMembers = checkedMembers(members);
    List<WorkUnit> ordered = new ArrayList<>(units);
    checkUnique(ordered);
    ordered.sort(HEAVIEST_FIRST);
    Map<String, Long> loads = new HashMap<>();
    for (String m : sortedMembers) {
      loads.put(m, 0L);
    }
    Map<String, String> owners = place(ordered, sortedMembers, loads, totalWeight(ordered));
    return new ShardPlan(units.stream().toList(), sortedMembers, owners);
  }

  /**
   * Who audits each unit that is not done yet, within the run of {@code plan}, given who is live
   * now. A unit whose planned owner is live stays with it; the units of members that left are
   * placed on live members (members that joined during the run included) by the same bounded-load
   * rule, against the remaining (not done) weight. Deterministic in (plan, ledger, live).
   *
   * @return unit id to member, for every unit not done; empty when no member is live
   */
  public Map<String, String> assignRemaining(
      ShardPlan plan, RunLedger ledger, Collection<String> live) {
    Set<String> liveSet = new TreeSet<>(live);
    Map<String, String> owners = new TreeMap<>();
    if (liveSet.isEmpty()) {
      return owners;
    }
    List<String> liveMembers = checkedMembers(liveSet);
    Map<String, Long> loads = new HashMap<>();
    for (String m : liveMembers) {
      loads.put(m, 0L);
    }
    List<WorkUnit> orphans = new ArrayList<>();
    long remaining = 0;
    for (WorkUnit u : plan.units()) {
      if (ledger.isDone(u.id())) {
        continue;
      }
      remaining += u.weight();
      String owner = plan.owners().get(u.id());
      if (liveSet.contains(owner)) {
        owners.put(u.id(), owner);
        loads.merge(owner, u.weight(), Long::sum);
      } else {
        orphans.add(u);
      }
    }
    orphans.sort(HEAVIEST_FIRST);
    owners.putAll(place(orphans, liveMembers, loads, remaining));
    return owners;
  }

  private Map<String, String> place(
      List<WorkUnit> heaviestFirst, List<String> members, Map<String, Long> loads, long total) {
    Map<String, String> owners = new HashMap<>();
    // load + w <= (1 + eps) * total / n, exactly: the largest integer load under that bound
    long cap =
        BigInteger.valueOf(PPM + epsilonPpm)
            .multiply(BigInteger.valueOf(total))
            .divide(BigInteger.valueOf(members.size()).multiply(BigInteger.valueOf(PPM)))
            .longValueExact();
    long[] prefixes = memberPrefixes(members);
    for (WorkUnit u : heaviestFirst) {
      String chosen = null;
      String leastLoaded = null;
      for (int i : rank(u.id(), prefixes)) {
        String m = members.get(i);
        long load = loads.get(m);
        if (load + u.weight() <= cap) {
          chosen = m;
          break;
        }
        if (leastLoaded == null || load < loads.get(leastLoaded)) {
          leastLoaded = m;
        }
      }
      if (chosen == null) {
        chosen = leastLoaded;
      }
      owners.put(u.id(), chosen);
      loads.merge(chosen, u.weight(), Long::sum);
    }
    return owners;
  }

  /**
   * The hashing state after each member id and the separator, so that a score, {@code
   * StableHash.of(member, unitId)}, costs one pass over the unit id.
   */
  private static long[] memberPrefixes(List<String> members) {
    long[] prefixes = new long[members.size()];
    for (int i = 0; i < prefixes.length; i++) {
      prefixes[i] = StableHash.fnvByte(StableHash.fnv(StableHash.start(), members.get(i)), 0);
    }
    return prefixes;
  }

  /**
   * Indexes of the (sorted) members in the unit's rendezvous preference order: descending score
   * {@code StableHash.of(member, unitId)}, ties (practically never) by member id.
   */
  static Integer[] rank(String unitId, long[] memberPrefixes) {
    long[] scores = new long[memberPrefixes.length];
    Integer[] order = new Integer[memberPrefixes.length];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = StableHash.mix(StableHash.fnv(memberPrefixes[i], unitId));
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          int c = Long.compareUnsigned(scores[b], scores[a]);
          return c != 0 ? c : Integer.compare(a, b);
        });
    return order;
  }

  private static List<String> checkedMembers(Collection<String> members) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("a plan needs at least one member");
    }
    for (String m : members) {
      if (m.isBlank()) {
        throw new IllegalArgumentException("a member id must not be blank");
      }
    }
    return List.copyOf(new TreeSet<>(members));
  }

  private static void checkUnique(List<WorkUnit> units) {
    Set<String> ids = new HashSet<>();
    for (WorkUnit u : units) {
      if (!ids.add(u.id())) {
        throw new IllegalArgumentException("unit " + u.id() + " appears twice");
      }
    }
  }

  private static long totalWeight(List<WorkUnit> units) {
    long t = 0;
    for (WorkUnit u : units) {
      t = Math.addExact(t, u.weight());
    }
    return t;
  }
}
