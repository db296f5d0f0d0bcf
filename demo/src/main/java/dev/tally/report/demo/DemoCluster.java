package dev.tally.report.demo;

import dev.tally.testenv.KubeTestEnv;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * Where the demo runs: the repository's real control plane (kube-testenv: a real kube-apiserver,
 * etcd and garbage collector, built from Kubernetes' Go modules when Go is on the PATH), or
 * fabric8's in-process mock API server.
 */
abstract class DemoCluster implements AutoCloseable {
  /** Held so the level sticks: the mock server logs every request through java.util.logging. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  /** One line saying what this is, for the demo's first line of output. */
  abstract String describe();

  /** A new client whose requests {@code counter} counts. */
  abstract KubernetesClient client(RequestCounter counter);

  /**
   * Whether Kubernetes' controllers run: the garbage collector removes what a deleted Pod owns, and
   * every namespace gets its {@code default} ServiceAccount. The mock has none, so the demo deletes
   * those partial reports itself, as the collector would.
   */
  abstract boolean runsControllers();

  /** Whether the official report CRDs are installed already (kube-testenv installs them). */
  abstract boolean hasReportCrds();

  @Override
  public abstract void close();

  /** fabric8's mock API server, in this process. */
  static DemoCluster mock(String why) {
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
    Map<ServerRequest, Queue<ServerResponse>> stubs = new HashMap<>();
    var server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), stubs, new KubernetesMixedDispatcher(stubs), false);
    server.init();
    return new DemoCluster() {
      @Override
      String describe() {
        return "on fabric8's mock API server (" + why + ")";
      }

      @Override
      KubernetesClient client(RequestCounter counter) {
        return server.createClient(
            b ->
                b.editOrNewConfig()
                    .withRequestRetryBackoffLimit(0)
                    .endConfig()
                    .withHttpClientBuilderConsumer(
                        h -> h.addOrReplaceInterceptor("count", counter)));
      }

      @Override
      boolean runsControllers() {
        return false;
      }

      @Override
      boolean hasReportCrds() {
        return false;
      }

      @Override
      public void close() {
        server.destroy();
      }
    };
  }

  /** The real control plane of kube-testenv; it stops when this JVM exits. */
  static DemoCluster real(KubeTestEnv env) {
    return new DemoCluster() {
      @Override
      String describe() {
        return "on a real Kubernetes control plane (kube-testenv, " + env.server() + ")";
      }

      @Override
      KubernetesClient client(RequestCounter counter) {
        return new KubernetesClientBuilder()
            .withConfig(env.adminConfig())
            .withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("count", counter))
            .build();
      }

      @Override
      boolean runsControllers() {
        return true;
      }

      @Override
      boolean hasReportCrds() {
        return true;
      }

      @Override
      public void close() {
        // the control plane stops with the JVM (its standard input closes)
      }
    };
  }
}
