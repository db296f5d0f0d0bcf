package dev.tally.report.bench;

import dev.tally.report.api.Grouping;

/** The built-in groupings by the short names benchmarks and the cost model use as parameters. */
final class Groupings {
  private Groupings() {}

  /** {@code subject}, {@code namespace} or {@code policy} (per namespace and policy). */
  static Grouping named(String name) {
    return switch (name) {
      case "subject" -> Grouping.perSubject();
      case "namespace" -> Grouping.perNamespace();
      case "policy" -> Grouping.perNamespaceAndPolicy();
      default ->
          throw new IllegalArgumentException(
              "unknown grouping '" + name + "', expected subject, namespace or policy");
    };
  }
}
