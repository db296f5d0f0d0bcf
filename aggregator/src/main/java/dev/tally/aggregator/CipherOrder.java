package dev.tally.aggregator;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.lang.management.ManagementFactory;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The order in which the aggregator's HTTP client offers TLS cipher suites to the API server.
 *
 * <p>Why it matters: beside Kyverno at 5,000 Pods a fifth of the aggregator's CPU samples were
 * AES-GCM (GHASH and AES) decrypting watch events. The chart runs the JVM with C1 only ({@code
 * -XX:TieredStopAtLevel=1}), and C1 does not use the CPU's AES and carry-less-multiply instructions
 * for them, so AES-GCM runs as plain Java; ChaCha20-Poly1305 needs no such instructions and is
 * several times cheaper there. A Go API server (crypto/tls) picks ChaCha20 when the client's first
 * suite is not AES-GCM, under TLS 1.3 and 1.2 alike.
 *
 * <p>Where it is set: fabric8's vert.x client hands netty an explicit list (netty's own, AES-GCM
 * first) unless it is given one, so the JDK's {@code jdk.tls.client.cipherSuites} does not reach
 * its handshakes. This class gives the client the JDK's default suites in the chosen order through
 * fabric8's {@link Vertx5HttpClientFactory#additionalConfig} hook. The suites themselves are the
 * JDK's: nothing is enabled that the JDK does not enable by default (a FIPS JDK that lacks ChaCha20
 * keeps its own list).
 */
enum CipherOrder {
  /** ChaCha20-Poly1305 suites first, then the JDK's defaults in their order. */
  CHACHA20_FIRST,
  /** The client library's own order (netty's: AES-GCM first). */
  CLIENT_DEFAULT;

  /**
   * The order for this JVM: {@link #CHACHA20_FIRST} when it compiles with C1 only (the chart's
   * default), {@link #CLIENT_DEFAULT} when C2 compiles the hot code (its AES-GCM intrinsics make
   * AES-GCM the cheaper one).
   */
  static CipherOrder forThisJvm() {
    String chosen = System.getProperty(PROPERTY);
    return chosen != null
        ? named(chosen)
        : forJit(vmOption("TieredCompilation"), vmOption("TieredStopAtLevel"));
  }

  /**
   * The JVM system property that chooses the order instead of the JIT ({@code chacha20-first} or
   * {@code client-default}): to compare the two under one JIT, or to keep AES-GCM on a C1-only JVM
   * whose CPU makes it the cheaper one.
   */
  static final String PROPERTY = "tally.tls.cipher-order";

  /**
   * The order {@link #describe()} names {@code name}.
   *
   * @throws IllegalArgumentException naming the property and the values it takes
   */
  static CipherOrder named(String name) {
    for (CipherOrder order : values()) {
      if (order.describe().equals(name.trim())) {
        return order;
      }
    }
    throw new IllegalArgumentException(
        "-D" + PROPERTY + "=" + name + ": not an order; chacha20-first or client-default");
  }

  /**
   * The order for a JIT configured so; {@code null} for an option the JVM does not have (then the
   * client's default).
   */
  static CipherOrder forJit(
      @Nullable String tieredCompilation, @Nullable String tieredStopAtLevel) {
    if (!"true".equals(tieredCompilation) || tieredStopAtLevel == null) {
      return CLIENT_DEFAULT;
    }
    int level;
    try {
      level = Integer.parseInt(tieredStopAtLevel.trim());
    } catch (NumberFormatException e) {
      return CLIENT_DEFAULT;
    }
    // levels 1-3 are C1's; 4 is C2's
    return level >= 1 && level <= 3 ? CHACHA20_FIRST : CLIENT_DEFAULT;
  }

  /**
   * The suites to give the client, in order; empty for {@link #CLIENT_DEFAULT} (the client keeps
   * its own list).
   */
  List<String> suites() {
    if (this == CLIENT_DEFAULT) {
      return List.of();
    }
    try {
      return chachaFirst(SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites());
    } catch (NoSuchAlgorithmException e) {
      return List.of();
    }
  }

  /**
   * {@code suites} with the ChaCha20-Poly1305 ones moved to the front, each group in its order; no
   * suite added or dropped.
   */
  static List<String> chachaFirst(String[] suites) {
    List<String> chacha = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (String suite : suites) {
      (suite.contains("CHACHA20_POLY1305") ? chacha : others).add(suite);
    }
    if (chacha.isEmpty()) {
      // nothing to move: giving the JDK's list would only replace the client's for no reason
      return List.of();
    }
    chacha.addAll(others);
    return List.copyOf(chacha);
  }

  /** fabric8's vert.x 5 client factory, offering {@link #suites()} when there are any. */
  Vertx5HttpClientFactory httpClientFactory() {
    List<String> suites = suites();
    return new Vertx5HttpClientFactory() {
      @Override
      protected void additionalConfig(
          WebClientOptions options, WebSocketClientOptions webSockets, PoolOptions pool) {
        for (String suite : suites) {
          options.addEnabledCipherSuite(suite);
          webSockets.addEnabledCipherSuite(suite);
        }
      }
    };
  }

  /** How the startup log names it. */
  String describe() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static @Nullable String vmOption(String name) {
    try {
      return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .getVMOption(name)
          .getValue();
    } catch (RuntimeException | LinkageError e) {
      // not a HotSpot JVM, or no such option: the client's default
      return null;
    }
  }
}
