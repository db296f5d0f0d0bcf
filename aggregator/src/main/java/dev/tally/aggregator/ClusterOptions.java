package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The flags of the API server connection: which kubeconfig and context.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 *
 * @param kubeconfig the kubeconfig given, or null for the client's own search
 * @param context the kubeconfig context, or null for its current-context
 */
record ClusterOptions(@Nullable Path kubeconfig, @Nullable String context) {
  static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--kubeconfig",
              "PATH",
              "kubeconfig to connect with; without it: $KUBECONFIG or ~/.kube/config, else the"
                  + " pod's service account (in-cluster)"),
          Flag.of(
              "--context", "NAME", "the kubeconfig context to use; default: its current-context"));

  static ClusterOptions parse(FlagValues v) {
    String kc = v.get("--kubeconfig");
    Path kubeconfig = null;
    if (kc != null) {
      kubeconfig = Path.of(kc);
      if (!Files.isRegularFile(kubeconfig)) {
        throw new UsageException("--kubeconfig", "no such file: " + kc);
      }
    }
    return new ClusterOptions(kubeconfig, v.nonBlank("--context"));
  }
}
