package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/** Which order of TLS suites the aggregator's client offers, and for which JIT. */
class CipherOrderTest {
  @Test
  void aJvmThatCompilesWithC1OnlyOffersChaChaFirstAndOneWithC2KeepsTheClientsOrder() {
    assertThat(CipherOrder.forJit("true", "1")).isEqualTo(CipherOrder.CHACHA20_FIRST);
    assertThat(CipherOrder.forJit("true", "3")).isEqualTo(CipherOrder.CHACHA20_FIRST);
    assertThat(CipherOrder.forJit("true", "4")).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    // level 0 interprets; -XX:-TieredCompilation is C2 alone
    assertThat(CipherOrder.forJit("true", "0")).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    assertThat(CipherOrder.forJit("false", "1")).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    assertThat(CipherOrder.forJit(null, null)).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    assertThat(CipherOrder.forJit("true", "one")).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    // this test's JVM: surefire's default JIT (C1 and C2)
    assertThat(CipherOrder.forThisJvm()).isEqualTo(CipherOrder.CLIENT_DEFAULT);
  }

  @Test
  void thePropertyNamesAnOrderOrIsRefusedNamingItselfAndItsValues() {
    assertThat(CipherOrder.named("chacha20-first")).isEqualTo(CipherOrder.CHACHA20_FIRST);
    assertThat(CipherOrder.named(" client-default")).isEqualTo(CipherOrder.CLIENT_DEFAULT);
    assertThatThrownBy(() -> CipherOrder.named("aes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("-Dtally.tls.cipher-order=aes: not an order; chacha20-first or client-default");
  }

  @Test
  void chachaSuitesMoveToTheFrontWithNoSuiteAddedOrDroppedAndEachGroupInItsOrder() {
    String[] jdk = {
      "TLS_AES_256_GCM_SHA384",
      "TLS_AES_128_GCM_SHA256",
      "TLS_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
    };
    assertThat(CipherOrder.chachaFirst(jdk))
        .containsExactly(
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    // a JDK without ChaCha (FIPS): the client keeps its own list
    assertThat(CipherOrder.chachaFirst(new String[] {"TLS_AES_128_GCM_SHA256"})).isEmpty();
  }

  @Test
  void theSuitesOfferedAreTheJdksDefaultsAndTheClientsOwnOrderGivesNone() throws Exception {
    List<String> defaults =
        List.of(SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites());
    List<String> offered = CipherOrder.CHACHA20_FIRST.suites();
    assertThat(offered).first().asString().contains("CHACHA20_POLY1305");
    assertThat(offered).containsExactlyInAnyOrderElementsOf(defaults);
    assertThat(CipherOrder.CLIENT_DEFAULT.suites()).isEmpty();
  }
}
