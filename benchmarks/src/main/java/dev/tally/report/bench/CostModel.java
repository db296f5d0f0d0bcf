package dev.tally.report.bench;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Which report layout should a cluster use? Replays the same seeded hour of a simulated cluster
 * ({@link ClusterScript}) through the real {@link ReportAggregator} with each grouping of
 * aggregates (per subject, per namespace, per namespace and policy), and accounts for the
 * intermediate reports under both lifecycles ({@link Lifecycle}): objects and bytes stored, the
 * largest object, API writes by verb, bytes written per churn event and no-op writes suppressed.
 * The aggregates' writes come from the aggregator's change sets and their sizes from {@link
 * EncodedSize}; the intermediates' sizes from {@link PartialSize}.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.tally.report.bench.CostModel
 * [--sizes 1000,10000,50000] [--seed N] [--out DIR]}. Prints a Markdown table; with {@code --out}
 * also writes {@code cost-model.md} and the chart {@code cost-model.svg} there.
 */
public final class CostModel {
  static final long SEED = 0x7a11_c057L;
  static final List<String> LAYOUTS = List.of("subject", "namespace", "policy");

  private CostModel() {}

  public static void main(String[] args) throws IOException {
    List<Integer> sizes = List.of(1_000, 10_000, 50_000);
    long seed = SEED;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sizes" -> {
          List<Integer> parsed = new ArrayList<>();
          for (String s : args[++i].split(",")) {
            parsed.add(Integer.parseInt(s.trim()));
          }
          sizes = List.copyOf(parsed);
        }
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; usage: [--sizes 1000,10000] [--seed N] [--out DIR]");
      }
    }
    long started = System.nanoTime();
    List<ClusterScript> scripts = new ArrayList<>();
    List<Callable<List<LayoutCost>>> replays = new ArrayList<>();
    for (int size : sizes) {
      ClusterScript script = ClusterScript.generate(size, seed);
      scripts.add(script);
      for (String layout : LAYOUTS) {
        replays.add(() -> replay(script, layout));
      }
    }
    // each replay owns its aggregator, so they run side by side; results keep the list's order
    List<LayoutCost> costs = new ArrayList<>();
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
    try {
      for (Future<List<LayoutCost>> f : pool.invokeAll(replays)) {
        costs.addAll(f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a replay failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    String table = table(scripts, costs, seed);
    PrintStream stdout = System.out;
    stdout.print(table);
    stdout.printf(Locale.ROOT, "%nsimulated in %.1f s%n", (System.nanoTime() - started) / 1e9);
    if (out != null) {
      Files.createDirectories(out);
      Files.writeString(out.resolve("cost-model.md"), table, StandardCharsets.UTF_8);
      Files.writeString(
          out.resolve("cost-model.svg"), CostChart.svg(costs), StandardCharsets.UTF_8);
    }
  }

  /** The hour of {@code script} under {@code layout}, for each lifecycle of intermediates. */
  static List<LayoutCost> replay(ClusterScript script, String layout) {
    Grouping grouping = Groupings.named(layout);
    EncodedSizes sizes = new EncodedSizes();
    ReportAggregator aggregator = ReportAggregator.builder().grouping(grouping).build();
    Map<String, Long> inPlace = new HashMap<>();
    Map<String, PartialReport> lastOf = new HashMap<>();
    for (PartialReport p : script.initial()) {
      aggregator.apply(p);
      inPlace.put(intermediateName(p), sizes.of(p));
      lastOf.put(p.subject().uid(), p);
    }
    Map<ReportRef, Long> stored = new HashMap<>();
    Map<ReportRef, String> groupOf = new HashMap<>();
    account(aggregator.flush(), sizes, stored, groupOf, WriteCount.NONE, new long[1]);

    WriteCount aggregateWrites = WriteCount.NONE;
    WriteCount ephemeralWrites = WriteCount.NONE;
    WriteCount inPlaceWrites = WriteCount.NONE;
    long peakEphemeral = 0;
    long peakInPlace = inPlace.size();
    long largestAggregate = 0;
    long largestIntermediate = 0;
    long suppressed = 0;
    for (ClusterScript.Window window : script.windows()) {
      Set<String> touched = new HashSet<>();
      long ephemeral = 0;
      for (ClusterAction action : window.actions()) {
        if (action instanceof ClusterAction.Evaluation e) {
          PartialReport p = e.partial();
          aggregator.apply(p);
          long size = sizes.of(p);
          largestIntermediate = Math.max(largestIntermediate, size);
          ephemeralWrites = ephemeralWrites.create(size);
          ephemeral++;
          Long before = inPlace.put(intermediateName(p), size);
          inPlaceWrites = before == null ? inPlaceWrites.create(size) : inPlaceWrites.update(size);
          touch(touched, grouping, p.subject(), p.effectiveCoverage());
          lastOf.put(p.subject().uid(), p);
        } else if (action instanceof ClusterAction.Deletion d) {
          aggregator.deleteSubject(d.subject().namespace(), d.subject().uid(), d.at());
          PartialReport last = lastOf.remove(d.subject().uid());
          if (last != null) {
            touch(touched, grouping, d.subject(), last.effectiveCoverage());
          }
          // the subject's partial reports go with it (garbage collection deletes them)
          for (String producer : List.of(ClusterScript.ADMISSION, ClusterScript.BACKGROUND)) {
            if (inPlace.remove(intermediateName(producer, d.subject())) != null) {
              inPlaceWrites = inPlaceWrites.delete(1);
            }
          }
        }
      }
      peakEphemeral = Math.max(peakEphemeral, ephemeral);
      peakInPlace = Math.max(peakInPlace, inPlace.size());
      // the aggregating controller deletes every ephemeral report it merged
      ephemeralWrites = ephemeralWrites.delete(ephemeral);
      ChangeSet changes = aggregator.flush();
      long[] largest = {largestAggregate};
      WriteCount before = aggregateWrites;
      aggregateWrites = account(changes, sizes, stored, groupOf, aggregateWrites, largest);
      largestAggregate = largest[0];
      Set<String> changedGroups = new HashSet<>();
      for (Change c : changes.changes()) {
        changedGroups.add(c.ref().namespace() + "\u0000" + groupOfChange(c, groupOf));
      }
      suppressed += Math.max(0, touched.size() - changedGroups.size());
      assert aggregateWrites.total() - before.total() == changes.size();
    }
    long aggregateBytes = 0;
    for (AggregateReport r : aggregator.aggregates()) {
      aggregateBytes += sizes.of(r);
    }
    long aggregateObjects = aggregator.aggregates().size();
    long inPlaceBytes = inPlace.values().stream().mapToLong(Long::longValue).sum();
    return List.of(
        new LayoutCost(
            script.size(),
            layout,
            Lifecycle.EPHEMERAL,
            aggregateObjects,
            aggregateBytes,
            0,
            0,
            peakEphemeral,
            Math.max(largestAggregate, largestIntermediate),
            aggregateWrites,
            ephemeralWrites,
            suppressed,
            script.churnEvents()),
        new LayoutCost(
            script.size(),
            layout,
            Lifecycle.IN_PLACE,
            aggregateObjects,
            aggregateBytes,
            inPlace.size(),
            inPlaceBytes,
            peakInPlace,
            Math.max(largestAggregate, largestIntermediate),
            aggregateWrites,
            inPlaceWrites,
            suppressed,
            script.churnEvents()));
  }

  private static WriteCount account(
      ChangeSet changes,
      EncodedSizes sizes,
      Map<ReportRef, Long> stored,
      Map<ReportRef, String> groupOf,
      WriteCount writes,
      long[] largest) {
    WriteCount w = writes;
    for (Change c : changes.changes()) {
      if (c instanceof Change.Create create) {
        long size = sizes.of(create.report());
        largest[0] = Math.max(largest[0], size);
        stored.put(c.ref(), size);
        groupOf.put(c.ref(), groupLabel(create.report()));
        w = w.create(size);
      } else if (c instanceof Change.Update update) {
        long size = sizes.of(update.report());
        largest[0] = Math.max(largest[0], size);
        stored.put(c.ref(), size);
        groupOf.put(c.ref(), groupLabel(update.report()));
        w = w.update(size);
      } else if (c instanceof Change.Delete) {
        stored.remove(c.ref());
        w = w.delete(1);
      }
    }
    return w;
  }

  private static String groupOfChange(Change c, Map<ReportRef, String> groupOf) {
    if (c instanceof Change.Create create) {
      return groupLabel(create.report());
    } else if (c instanceof Change.Update update) {
      return groupLabel(update.report());
    }
    // a deleted object's group is the one it was written with; keep the entry for this flush
    String group = groupOf.remove(c.ref());
    return group == null ? c.ref().name() : group;
  }

  private static String groupLabel(AggregateReport r) {
    return r.labels().getOrDefault(WireNames.GROUP_LABEL, r.ref().name());
  }

  private static void touch(
      Set<String> touched, Grouping grouping, Subject subject, Set<CoverageKey> coverage) {
    for (CoverageKey key : coverage) {
      touched.add(subject.namespace() + "\u0000" + grouping.groupOf(subject, key));
    }
  }

  private static String intermediateName(PartialReport p) {
    return intermediateName(p.producer(), p.subject());
  }

  private static String intermediateName(String producer, Subject subject) {
    return producer + "/" + subject.uid();
  }

  static String table(List<ClusterScript> scripts, List<LayoutCost> costs, long seed) {
    StringBuilder md = new StringBuilder();
    md.append(
            "| subjects | layout | intermediates | objects stored | bytes stored | largest object")
        .append(" | creates | updates | deletes | bytes written | bytes / churn event")
        .append(" | no-op writes suppressed |\n");
    md.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (LayoutCost c : costs) {
      WriteCount w = c.writes();
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s | %s | %,d (%,d aggregates) | %s | %s | %,d | %,d | %,d | %s | %s | %,d |%n",
              c.subjects(),
              layoutLabel(c.layout()),
              c.lifecycle().label(),
              c.objectsStored(),
              c.aggregateObjects(),
              bytes(c.bytesStored()),
              bytes(c.largestObject()),
              w.creates(),
              w.updates(),
              w.deletes(),
              bytes(w.bytes()),
              bytes(Math.round(c.bytesWrittenPerChurnEvent())),
              c.suppressedNoOps()));
    }
    md.append('\n');
    for (ClusterScript s : scripts) {
      md.append(
          String.format(
              Locale.ROOT,
              "- %,d subjects in %,d namespaces, seed %d: one hour in %d flushes of %d s; %,d"
                  + " creates, %,d updates, %,d deletes, %d policy change (%,d churn events),"
                  + " plus the hourly background scan%n",
              s.size(),
              s.namespaces(),
              seed,
              ClusterScript.WINDOWS,
              ClusterScript.WINDOW_SECONDS,
              s.creates(),
              s.updates(),
              s.deletes(),
              s.policyChanges(),
              s.churnEvents()));
    }
    return md.toString();
  }

  static String layoutLabel(String layout) {
    return switch (layout) {
      case "subject" -> "per subject";
      case "namespace" -> "per namespace";
      case "policy" -> "per namespace and policy";
      default -> layout;
    };
  }

  /** Bytes in B, KiB, MiB or GiB. */
  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    } else if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    } else if (n < 1024L * 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
    return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
  }
}
