package dev.tally.aggregator.hostile;

import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Set;

/**
 * What an engine says about one subject, before an input's {@link Dialect} writes it as that
 * input's object: the policies it evaluated (its coverage: a policy evaluated without a finding
 * retracts what an earlier evaluation said of it), its findings and when it evaluated.
 *
 * @param policies the policies evaluated
 * @param findings the results, each of one of {@code policies}
 */
record Evaluation(Subject subject, Set<String> policies, List<Finding> findings, Timestamp at) {

  /** One result: a rule of a policy, its status and message. */
  record Finding(String policy, String rule, ResultStatus status, String message) {}

  /** The result source every evaluation of the harness names (Kyverno's, as the engine). */
  static final String SOURCE = "kyverno";
}
