package dev.tally.report.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The writes from one state of the aggregates to the next, ordered by {@link ReportRef}: at most
 * one change per object. Empty when nothing changed.
 */
public record ChangeSet(List<Change> changes) {
  public static final ChangeSet EMPTY = new ChangeSet(List.of());

  public ChangeSet {
    var sorted = new ArrayList<>(InvalidReportException.requireNoNulls("changes", changes));
    sorted.sort(Comparator.comparing(Change::ref));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).ref().equals(sorted.get(i - 1).ref())) {
        throw new InvalidReportException(
            "changes", "two changes for " + sorted.get(i).ref() + "; at most one per object");
      }
    }
    changes = List.copyOf(sorted);
  }

  public boolean isEmpty() {
    return changes.isEmpty();
  }

  public int size() {
    return changes.size();
  }

  public List<Change.Create> creates() {
    return of(Change.Create.class);
  }

  public List<Change.Update> updates() {
    return of(Change.Update.class);
  }

  public List<Change.Delete> deletes() {
    return of(Change.Delete.class);
  }

  private <T extends Change> List<T> of(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (Change c : changes) {
      if (type.isInstance(c)) {
        out.add(type.cast(c));
      }
    }
    return out;
  }
}
