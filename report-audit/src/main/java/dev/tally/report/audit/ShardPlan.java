package dev.tally.report.audit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which member audits which unit: the output of {@link ShardPlanner#plan}. Every unit has exactly
 * one owner, and every owner is one of {@link #members()}.
 *
 * @param units the units, in {@link UnitCatalog#CANONICAL} order
 * @param members the members planned over, sorted
 * @param owners unit id to member
 */
public record ShardPlan(List<WorkUnit> units, List<String> members, Map<String, String> owners) {
  public ShardPlan {
    List<WorkUnit> sorted = new ArrayList<>(units);
    sorted.sort(UnitCatalog.CANONICAL);
    units = List.copyOf(sorted);
    members = List.copyOf(members.stream().sorted().distinct().toList());
    owners = Collections.unmodifiableMap(new TreeMap<>(owners));
    for (WorkUnit u : units) {
      String owner = owners.get(u.id());
      if (owner == null || !members.contains(owner)) {
        throw new IllegalArgumentException("unit " + u.id() + " has no owner among " + members);
      }
    }
    if (owners.size() != units.size()) {
      throw new IllegalArgumentException("owners name units that are not in the plan");
    }
  }

  /** The member that audits {@code unitId}, if the unit is in the plan. */
  public Optional<String> owner(String unitId) {
    return Optional.ofNullable(owners.get(unitId));
  }

  /** The units a member audits, in canonical order. */
  public List<WorkUnit> unitsOf(String member) {
    return units.stream().filter(u -> member.equals(owners.get(u.id()))).toList();
  }

  /** The unit with this id, if it is in the plan. */
  public Optional<WorkUnit> unit(String unitId) {
    return units.stream().filter(u -> u.id().equals(unitId)).findFirst();
  }

  /** The summed weight each member carries, for every member (zero when it has none). */
  public Map<String, Long> loads() {
    Map<String, Long> loads = new TreeMap<>();
    for (String m : members) {
      loads.put(m, 0L);
    }
    for (WorkUnit u : units) {
      loads.merge(owners.get(u.id()), u.weight(), Long::sum);
    }
    return loads;
  }

  /** The total weight of all units. */
  public long totalWeight() {
    long t = 0;
    for (WorkUnit u : units) {
      t += u.weight();
    }
    return t;
  }

  /**
   * A digest of what the plan says: the units with their weights and their owners. Two members that
   * computed the same plan have the same digest; it names the run.
   */
  public String digest() {
    long h = StableHash.start();
    for (WorkUnit u : units) {
      h = StableHash.fnv(h, u.id());
      h = StableHash.fnvByte(h, 0);
      h = StableHash.fnv(h, Long.toString(u.weight()));
      h = StableHash.fnvByte(h, 0);
      h = StableHash.fnv(h, owners.get(u.id()));
      h = StableHash.fnvByte(h, '\n');
    }
    return StableHash.hex(StableHash.mix(h));
  }
}
