package dev.tally.report.fabric8.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.kyverno.EphemeralReportResource;
import org.junit.jupiter.api.Test;

class WatchEventDecodeBenchmarkTest {

  private static WatchEventDecodeBenchmark benchmark(String names) {
    WatchEventDecodeBenchmark b = new WatchEventDecodeBenchmark();
    b.reports = 20;
    b.names = names;
    b.encodeInput();
    return b;
  }

  @Test
  void eachEventCarriesTheManagedFieldsTheApiServerAddsWithANameOfItsOwner() {
    WatchEventDecodeBenchmark b = benchmark("not-kept");
    assertThat(b.addedEvents).hasSize(20);
    assertThat(b.addedEvents.get(7))
        .startsWith("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":")
        .contains("\"managedFields\":[{")
        .contains("\"k:{\\\"uid\\\":\\\"00000007-0000-4000-8000-000000000007\\\"}\":{")
        .contains("\"f:spec\":{");
    assertThat(b.deletedEvents.get(7)).startsWith("{\"type\":\"DELETED\",\"object\":{");
  }

  @Test
  void bothWaysReadTheSameObjects_addedWholeAndDeletedAsIdentities() {
    WatchEventDecodeBenchmark kept = benchmark("kept");
    WatchEventDecodeBenchmark notKept = benchmark("not-kept");

    assertThat(notKept.added()).isEqualTo(kept.added());
    assertThat(notKept.deleted()).isEqualTo(kept.deleted());
    assertThat(notKept.added())
        .allSatisfy(
            o -> {
              assertThat(o).isInstanceOf(EphemeralReportResource.class);
              var report = (EphemeralReportResource) o;
              assertThat(InputResource.isIdentityOnly(report)).isFalse();
              assertThat(report.getSpec().results()).hasSize(10);
            });
    assertThat(notKept.deleted())
        .allSatisfy(
            o -> assertThat(InputResource.isIdentityOnly((EphemeralReportResource) o)).isTrue());
  }
}
