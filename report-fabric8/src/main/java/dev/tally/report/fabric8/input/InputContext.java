package dev.tally.report.fabric8.input;

import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.publish.ClockRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * What the controller lends an input's services ({@link InputServices}) and source: the client, its
 * budgeted calls, the metrics, and the controller's clock and clock rule (for seeds an input makes
 * from what the cluster holds).
 *
 * @param client the controller's client
 * @param calls the controller's budgeted, retried calls; every request an input makes goes through
 *     them
 * @param metrics where the input reports what it does with its objects
 * @param clock the controller's clock, for backoffs and graces
 * @param clockRule the rule every partial report passes before the aggregator sees it
 * @param now the controller's now, as a {@link Timestamp}
 */
public record InputContext(
    KubernetesClient client,
    Requests calls,
    TallyMetrics metrics,
    Clock clock,
    ClockRule clockRule,
    Supplier<Timestamp> now) {}
