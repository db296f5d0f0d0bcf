package dev.tally.report.bench;

/**
 * The dimensions of a generated workload.
 *
 * @param results total number of results; {@code results / resultsPerSubject} subjects
 * @param namespaces subjects are spread round-robin over this many namespaces
 * @param policies distinct policies in the cluster
 * @param rulesPerPolicy rules of each policy; every evaluated policy yields one result per rule
 * @param resultsPerSubject results of one subject's partial report, a multiple of {@code
 *     rulesPerPolicy}
 */
public record WorkloadShape(
    int results, int namespaces, int policies, int rulesPerPolicy, int resultsPerSubject) {

  /** 100,000 results over 10,000 subjects in 100 namespaces, 20 policies of 2 rules. */
  public static final WorkloadShape REFERENCE = reference(100_000);

  public WorkloadShape {
    if (resultsPerSubject < rulesPerPolicy || resultsPerSubject % rulesPerPolicy != 0) {
      throw new IllegalArgumentException(
          "resultsPerSubject must be a multiple of rulesPerPolicy, was " + resultsPerSubject);
    }
    if (resultsPerSubject / rulesPerPolicy > policies) {
      throw new IllegalArgumentException(
          "a subject cannot be evaluated by more than the " + policies + " policies");
    }
    if (results < resultsPerSubject || results % resultsPerSubject != 0) {
      throw new IllegalArgumentException(
          "results must be a positive multiple of resultsPerSubject, was " + results);
    }
    if (namespaces < 1) {
      throw new IllegalArgumentException("namespaces must be at least 1, was " + namespaces);
    }
  }

  /** The reference shape at another size: 10 results per subject, 100 namespaces, 20 policies. */
  public static WorkloadShape reference(int results) {
    return new WorkloadShape(results, 100, 20, 2, 10);
  }

  /** The same shape with every subject in one namespace: one group of {@link #results()}. */
  public WorkloadShape inOneNamespace() {
    return new WorkloadShape(results, 1, policies, rulesPerPolicy, resultsPerSubject);
  }

  public int subjects() {
    return results / resultsPerSubject;
  }

  public int policiesPerSubject() {
    return resultsPerSubject / rulesPerPolicy;
  }
}
