package dev.tally.report.demo;

import java.util.List;

/**
 * Prints, as Markdown, how often an audit run completes when each member may fail during it: static
 * sharding (the run is valid only if every shard survives) against Tally's reassignment of a dead
 * member's units. Seeded, so the table is the same on every machine.
 *
 * <pre>{@code
 * ./mvnw -B -q -DskipTests package
 * java -cp demo/target/tally-demo.jar dev.tally.report.demo.AuditCompletionTable
 * }</pre>
 */
public final class AuditCompletionTable {
  private AuditCompletionTable() {}

  public static void main(String[] args) {
    long seed = args.length > 0 ? Long.parseLong(args[0]) : 20_260_101L;
    var simulation = CompletionSimulation.defaults(seed);
    var rows = simulation.table(List.of(1, 3, 5, 10, 20), List.of(0.001, 0.01, 0.05, 0.10));
    System.out.print(CompletionSimulation.markdown(rows));
    System.out.println();
    System.out.println(
        "20,000 simulated runs per row, seed "
            + seed
            + "; a dead member's work is reassigned after one lease (0.1 run) and must finish"
            + " within the interval (2 runs).");
  }
}
