package dev.tally.report.merge.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExportLineParseTest {
  @Test
  void theFieldsUsedAreReadUnescapedAndTheOthersSkippedAtAnyDepth() {
    String deep = "[".repeat(200_000) + "{\"a\":\"]}\"}" + "]".repeat(200_000);
    ExportLine line =
        ExportLine.parse(
            " {\"id\":\"2026-12-04T10:15:30Z\",\"details\":"
                + deep
                + ",\"eventType\":\"violation_audited\",\"group\":\"constraints.gatekeeper.sh\","
                + "\"version\":\"v1beta1\",\"kind\":\"K8sA\",\"name\":\"c\","
                + "\"message\":\"say \\\"h\\u00e9\\\" \\\\ \\/ \\n\\t \\ud83d\\ude00\","
                + "\"enforcementAction\":\"scoped\",\"enforcementActions\":[ \"warn\" , \"deny\" ],"
                + "\"constraintAnnotations\":{\"x\":[1,2.5e3,true,false,null]},"
                + "\"resourceGroup\":null,\"resourceAPIVersion\":\"v1\",\"resourceKind\":\"Pod\","
                + "\"resourceNamespace\":\"ns\",\"resourceName\":\"p\",\"resourceLabels\":{}}\r ");
    assertThat(line)
        .isEqualTo(
            GatekeeperMappingTest.violation(
                "K8sA",
                "c",
                "scoped",
                List.of("warn", "deny"),
                "",
                "v1",
                "Pod",
                "ns",
                "p",
                "say \"hé\" \\ / \n\t 😀"));
  }

  @Test
  void namesNullsAndSurrogatesAreReadAsGosDecoderReadsThem() {
    assertThat(ExportLine.parse("{\"id\":\"a\",\"id\":\"b\"}").id()).isEqualTo("b");
    assertThat(ExportLine.parse("{\"id\":\"a\",\"id\":null}").id()).isEqualTo("a");
    assertThat(ExportLine.parse("{\"\\u0069d\":\"a\"}").id()).isEqualTo("a");
    assertThat(ExportLine.parse("{\"resourceName\":\"a\\ud800\"}").resourceName())
        .isEqualTo("a\uFFFD");
    assertThat(ExportLine.parse("{\"resourceName\":\"\\udc00\\ud83d\\ude00\"}").resourceName())
        .isEqualTo("\uFFFD😀");
    assertThat(ExportLine.parse("{\"resourceName\":\"\\ud800\\u0041\"}").resourceName())
        .isEqualTo("\uFFFDA");
  }

  @Test
  void aNameGosDecoderWouldTakeForAFieldReadIsRefused() {
    refused("{\"Message\":\"audit is completed\"}", "Message", "differs only in case");
    refused("{\"\u212Aind\":\"K8sA\"}", "\u212Aind", "differs only in case");
  }

  @Test
  void onlyOneJsonObjectIsALine() {
    refused("", "", "is not a JSON object");
    refused("id: x", "", "is not a JSON object");
    refused("[1,2]", "", "is not a JSON object");
    refused("{\"id\":\"a\"} x", "", "has more after the object");
    refused("{\"id\":\"a\"}{}", "", "has more after the object");
    refused("{\"id\":\"a\"", "id", "expected ',' or '}' after the value");
    refused("{id:\"a\"}", "", "expected a field name");
  }

  @Test
  void aFieldUsedOfTheWrongTypeIsNamed() {
    refused("{\"resourceName\":7}", "resourceName", "must be a string");
    refused("{\"enforcementActions\":\"warn\"}", "enforcementActions", "must be a list");
    refused("{\"enforcementActions\":[\"warn\",1]}", "enforcementActions[1]", "must be a string");
  }

  @Test
  void aStringOrSkippedValueThatIsNotJsonIsRefused() {
    refused("{\"id\":\"a", "id", "has a string that does not end");
    refused("{\"id\":\"a\u0001\"}", "id", "has a control character in a string");
    refused("{\"id\":\"\\u12\"}", "id", "has a \\u escape without four hex digits");
    refused(
        "{\"id\":\"\\u\u0660\u0660\u0660\u0660\"}",
        "id",
        "has a \\u escape without four hex digits");
    refused("{\"id\":\"\\x\"}", "id", "has an unknown escape \\x (at character 8)");
    refused("{\"details\":[}", "details", "has a '}' that closes nothing");
    refused("{\"details\":[[]", "details", "has a value that does not end");
    refused("{\"details\":,\"id\":\"a\"}", "details", "has no value");
  }

  private static void refused(String line, String field, String reason) {
    assertThatThrownBy(() -> ExportLine.parse(line))
        .as(line)
        .isInstanceOfSatisfying(
            InvalidReportException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.reason()).startsWith(reason);
            });
  }
}
