package dev.tally.report.merge.names;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubernetesNamesTest {
  @Test
  void aNameThatIsAlreadyADnsLabelIsKeptAsItIs() {
    String name = "tally-audit-" + "g".repeat(40) + "-m";
    assertThat(name).hasSizeLessThanOrEqualTo(63);
    assertThat(KubernetesNames.fitName(name)).isEqualTo(name);
  }

  @Test
  void aLongNameIsShortenedToADnsLabelThatKeepsLongNamesDistinct() {
    String prefix = "tally-audit-" + "g".repeat(40) + "-status-";
    String a = KubernetesNames.fitName(prefix + "a".repeat(40));
    String b = KubernetesNames.fitName(prefix + "a".repeat(39) + "b");
    assertThat(KubernetesNames.isDnsLabel(a)).isTrue();
    assertThat(KubernetesNames.isDnsLabel(b)).isTrue();
    assertThat(a).isNotEqualTo(b).startsWith("tally-audit-g");
    assertThat(KubernetesNames.fitName(prefix + "a".repeat(40))).isEqualTo(a);
  }

  @Test
  void aNameWithCharactersADnsLabelRefusesIsCleanedAndHashed() {
    String fitted = KubernetesNames.fitName("Audit_Group.1");
    assertThat(KubernetesNames.isDnsLabel(fitted)).isTrue();
    assertThat(fitted).isNotEqualTo(KubernetesNames.fitName("audit-group-1"));
  }

  @Test
  void dnsLabelsAreLowerCaseAlphanumericsAndInnerHyphensOfAtMost63Characters() {
    assertThat(KubernetesNames.isDnsLabel("a-1")).isTrue();
    assertThat(KubernetesNames.isDnsLabel("a".repeat(63))).isTrue();
    assertThat(KubernetesNames.isDnsLabel("a".repeat(64))).isFalse();
    assertThat(KubernetesNames.isDnsLabel("-a")).isFalse();
    assertThat(KubernetesNames.isDnsLabel("a-")).isFalse();
    assertThat(KubernetesNames.isDnsLabel("A")).isFalse();
    assertThat(KubernetesNames.isDnsLabel("a.b")).isFalse();
    assertThat(KubernetesNames.isDnsLabel("")).isFalse();
  }
}
