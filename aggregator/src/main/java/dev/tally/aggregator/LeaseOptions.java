package dev.tally.aggregator;

import static dev.tally.aggregator.FlagValues.text;

import dev.tally.aggregator.Options.UsageException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The flags of leader election: whether replicas elect one writer, the Lease and its timings.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 *
 * @param leaseNamespace null for the pod's or the kubeconfig context's namespace
 * @param identity null for {@code $POD_NAME} or the host name
 */
record LeaseOptions(
    boolean leaderElection,
    String leaseName,
    @Nullable String leaseNamespace,
    @Nullable String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {
  static final List<Flag> FLAGS =
      List.of(
          Flag.bool(
              "--leader-election",
              "elect one writing replica with a Lease; on by default, --leader-election=false"
                  + " for a single replica"),
          Flag.of("--lease-name", "NAME", "the Lease's name; default tally-aggregator"),
          Flag.of(
              "--lease-namespace",
              "NS",
              "the Lease's namespace; default: the pod's namespace in a cluster, the kubeconfig"
                  + " context's namespace, else default"),
          Flag.of(
              "--identity",
              "ID",
              "this replica's name in the Lease; default: $POD_NAME, else the host name"),
          Flag.of("--lease-duration", "DURATION", "how long a Lease holds; default 15s"),
          Flag.of(
              "--renew-deadline",
              "DURATION",
              "how long the leader tries to renew before it stops writing; default 10s"),
          Flag.of(
              "--retry-period",
              "DURATION",
              "how often candidates try to acquire or renew; default 2s"));

  /** Reads the flags; the retry period must be shorter than the deadline, and it than the Lease. */
  static LeaseOptions parse(FlagValues v) {
    boolean leaderElection = v.bool("--leader-election", true);
    String leaseName = Optional.ofNullable(v.nonBlank("--lease-name")).orElse("tally-aggregator");
    String leaseNamespace = v.nonBlank("--lease-namespace");
    String identity = v.nonBlank("--identity");
    Duration leaseDuration = v.duration("--lease-duration", Duration.ofSeconds(15), false);
    Duration renewDeadline = v.duration("--renew-deadline", Duration.ofSeconds(10), false);
    Duration retryPeriod = v.duration("--retry-period", Duration.ofSeconds(2), false);
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new UsageException(
          "--renew-deadline",
          "must be shorter than --lease-duration ("
              + text(renewDeadline)
              + " is not less than "
              + text(leaseDuration)
              + ")");
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new UsageException(
          "--retry-period",
          "must be shorter than --renew-deadline ("
              + text(retryPeriod)
              + " is not less than "
              + text(renewDeadline)
              + ")");
    }
    return new LeaseOptions(
        leaderElection,
        leaseName,
        leaseNamespace,
        identity,
        leaseDuration,
        renewDeadline,
        retryPeriod);
  }
}
