package dev.tally.aggregator.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.internal.LogFields;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The aggregator's log through SLF4J as every library logs to it: JSON lines that parse one by one
 * and carry a hostile tenant's strings as fields, intact when short and cut when long; text lines
 * that a forged line cannot pass for; the levels of Tally and of libraries.
 */
class LoggingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-04T05:30:00.123Z");

  /**
   * What a tenant can put in a claimed subject's name: a newline that forges a record, and more.
   */
  private static final String FORGED = "web\n2026-12-04T05:30:00.123Z INFO Main - forged";

  private static final String CLAIMED =
      FORGED + " \"quoted\" back\\slash \u0000nul \u001b[31mred \u2028sep 雪 😀";

  /** And in a message or an exception, which no validation reaches: a lone surrogate too. */
  private static final String HOSTILE = CLAIMED + " \ud800lone";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  @BeforeEach
  void capture() {
    Logging.sink(
        new PrintStream(out, true, StandardCharsets.UTF_8), Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @AfterEach
  void restore() {
    Logging.sink(System.err, Clock.systemUTC());
    Logging.configure(LogFormat.TEXT, Level.INFO);
  }

  private List<String> lines() {
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  private List<JsonNode> records() throws IOException {
    List<JsonNode> records = new ArrayList<>();
    for (String line : lines()) {
      records.add(JSON.readTree(line));
    }
    return records;
  }

  @Test
  void theProcessLogsThroughTallysBinding() {
    assertThat(LoggerFactory.getLogger("dev.tally.anything")).isInstanceOf(TallyLogger.class);
  }

  @Test
  void jsonLinesParseOneByOneWithTheTenantsStringsAsFields() throws IOException {
    Logging.configure(LogFormat.JSON, Level.INFO);
    Logger log = LoggerFactory.getLogger("dev.tally.report.fabric8.WriteScheduler");
    Subject claimed = Subject.of("v1", "Pod", "shop", CLAIMED, "u-1");
    LogFields.about(log.atWarn(), claimed).log("a seed about this subject is refused: {}", HOSTILE);
    ReportRef ref = new ReportRef(ReportKind.POLICY_REPORT, "shop", "tally-namespace-all");
    LogFields.about(log.atInfo(), ref).log("written again after {} attempts", 3);
    log.error("failed", new IllegalStateException(HOSTILE));
    log.info("x".repeat(LogLine.MAX_MESSAGE + 10));

    List<JsonNode> records = records();
    assertThat(records).as(out.toString(StandardCharsets.UTF_8)).hasSize(4);
    JsonNode seed = records.get(0);
    assertThat(seed.get("time").asString()).isEqualTo("2026-12-04T05:30:00.123Z");
    assertThat(seed.get("level").asString()).isEqualTo("WARN");
    assertThat(seed.get("logger").asString()).isEqualTo("dev.tally.report.fabric8.WriteScheduler");
    assertThat(seed.get("kind").asString()).isEqualTo("Pod");
    assertThat(seed.get("namespace").asString()).isEqualTo("shop");
    // LogFields escapes a claimed name for any backend; the JSON line carries that, exactly
    assertThat(seed.get("name").asString())
        .startsWith("web\\u000a2026-12-04T05:30:00.123Z INFO Main - forged \"quoted\" back\\slash")
        .contains("\\u0000nul", "\\u001b[31mred", "\\u2028sep", "雪 😀");
    // the message: its control characters (and the lone surrogate, which UTF-8 cannot carry)
    // escaped by JSON alone, so it reads back exactly
    assertThat(seed.get("message").asString())
        .isEqualTo("a seed about this subject is refused: " + HOSTILE);
    JsonNode written = records.get(1);
    assertThat(written.get("kind").asString()).isEqualTo("PolicyReport");
    assertThat(written.get("name").asString()).isEqualTo("tally-namespace-all");
    assertThat(written.get("message").asString()).isEqualTo("written again after 3 attempts");
    JsonNode failed = records.get(2);
    assertThat(failed.get("level").asString()).isEqualTo("ERROR");
    assertThat(failed.get("error").asString())
        .startsWith("java.lang.IllegalStateException: " + FORGED)
        .contains("\tat dev.tally.aggregator.log.LoggingTest");
    assertThat(records.get(3).get("message").asString())
        .hasSize(LogLine.MAX_MESSAGE + " (4106 characters)".length() + 1)
        .endsWith("… (4106 characters)");
  }

  @Test
  void aTextLineCannotBeForgedAndAnErrorsLinesBeginWithATab() {
    Logging.configure(LogFormat.TEXT, Level.INFO);
    Logger log = LoggerFactory.getLogger("dev.tally.report.fabric8.InputLedger");
    LogFields.about(log.atWarn(), Subject.of("v1", "Pod", "shop", CLAIMED, "u-1"))
        .log("refused: {}", HOSTILE);
    log.error("failed", new IllegalStateException(HOSTILE));

    List<String> lines = lines();
    List<String> records = lines.stream().filter(l -> !l.startsWith("\t")).toList();
    assertThat(records).as(String.join("\n", lines)).hasSize(2);
    assertThat(records.get(0))
        .startsWith("2026-12-04T05:30:00.123Z WARN InputLedger - refused: web\\u000a2026")
        .contains(" kind=Pod namespace=shop name=\"web\\\\u000a2026-12-04T05:30:00.123Z INFO Main");
    assertThat(records.get(1)).isEqualTo("2026-12-04T05:30:00.123Z ERROR InputLedger - failed");
    assertThat(lines).noneMatch(l -> l.startsWith("2026-12-04T05:30:00.123Z INFO Main - forged"));
    assertThat(lines.get(2)).startsWith("\tjava.lang.IllegalStateException: web");
    assertThat(lines).anyMatch(l -> l.startsWith("\t2026-12-04T05:30:00.123Z INFO Main - forged"));
  }

  @Test
  void tallyLogsFromTheLevelAskedAndLibrariesFromWarn() {
    Logger tally = LoggerFactory.getLogger("dev.tally.report.fabric8.AggregatorController");
    Logger library = LoggerFactory.getLogger("io.vertx.core.net.impl.ConnectionBase");
    Logger skew =
        LoggerFactory.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils");

    Logging.configure(LogFormat.TEXT, Level.INFO);
    tally.debug("tally debug at info");
    tally.info("tally info at info");
    library.info("library info at info");
    library.warn("library warn at info");
    skew.warn("skew warn at info");
    Logging.configure(LogFormat.TEXT, Level.DEBUG);
    tally.debug("tally debug at debug");
    library.info("library info at debug");
    Logging.configure(LogFormat.TEXT, Level.ERROR);
    tally.warn("tally warn at error");
    library.warn("library warn at error");
    library.error("library error at error");

    assertThat(lines())
        .extracting(l -> l.substring(l.indexOf(" - ") + 3))
        .containsExactly(
            "tally info at info",
            "library warn at info",
            "tally debug at debug",
            "library error at error");
  }

  @Test
  void aLevelIsReadByItsNameAndAnUnknownOneIsRefused() {
    assertThat(Logging.level("debug")).isEqualTo(Level.DEBUG);
    assertThat(Logging.level("WARN")).isEqualTo(Level.WARN);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Logging.level("verbose"))
        .hasMessage("expected one of error, warn, info, debug, trace, got verbose");
  }
}
