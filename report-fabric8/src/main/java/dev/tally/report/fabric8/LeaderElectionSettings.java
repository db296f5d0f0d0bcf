package dev.tally.report.fabric8;

import java.time.Duration;

/**
 * Where and how replicas of the aggregator elect the one that writes: a Lease named {@code
 * leaseName} in {@code namespace}, held by {@code identity} (such as the pod name).
 *
 * @param leaseDuration how long a lease stays valid without renewal: how long a crashed leader
 *     blocks the others
 * @param renewDeadline how long the leader keeps trying to renew before it stops writing; less than
 *     {@code leaseDuration}
 * @param retryPeriod how often candidates try to acquire or renew
 */
public record LeaderElectionSettings(
    String namespace,
    String leaseName,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {
  public LeaderElectionSettings {
    if (namespace.isBlank() || leaseName.isBlank() || identity.isBlank()) {
      throw new IllegalArgumentException("namespace, leaseName and identity are required");
    }
    if (renewDeadline.compareTo(leaseDuration) >= 0 || retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new IllegalArgumentException("need retryPeriod < renewDeadline < leaseDuration");
    }
  }

  /** The durations Kubernetes' own controllers use: 15 s lease, 10 s renew deadline, 2 s retry. */
  public static LeaderElectionSettings of(String namespace, String leaseName, String identity) {
    return new LeaderElectionSettings(
        namespace,
        leaseName,
        identity,
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2));
  }
}
