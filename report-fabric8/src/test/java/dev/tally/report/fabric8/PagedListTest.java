package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PagedListTest {
  private final ApiCalls calls =
      new ApiCalls(
          new ApiBudget(1000, 1000, () -> 0L, new RecordingSleeper()),
          RetryPolicy.defaults(),
          new Random(1),
          new RecordingSleeper(),
          TallyMetrics.NONE);

  private static GenericKubernetesResourceList page(String next, String... names) {
    List<GenericKubernetesResource> items = new ArrayList<>();
    for (String n : names) {
      items.add(
          new GenericKubernetesResourceBuilder()
              .withNewMetadata()
              .withName(n)
              .endMetadata()
              .build());
    }
    var list = new GenericKubernetesResourceList();
    list.setMetadata(new ListMetaBuilder().withContinue(next).build());
    list.setItems(items);
    return list;
  }

  private static List<String> names(List<GenericKubernetesResource> items) {
    return items.stream().map(i -> i.getMetadata().getName()).toList();
  }

  @Test
  void followsContinueTokensInPagesOfTheSameSize() {
    List<ListOptions> asked = new ArrayList<>();
    var items =
        PagedList.all(
            calls,
            "list",
            options -> {
              asked.add(options);
              return switch (String.valueOf(options.getContinue())) {
                case "null" -> page("a", "x1", "x2");
                case "a" -> page("b", "x3");
                default -> page(null, "x4");
              };
            });
    assertThat(names(items)).containsExactly("x1", "x2", "x3", "x4");
    assertThat(asked).extracting(ListOptions::getLimit).containsOnly(PagedList.PAGE_SIZE);
  }

  @Test
  void anExpiredContinueTokenRestartsTheListInsteadOfReturningPartOfIt() {
    var expired = new boolean[] {false};
    var items =
        PagedList.all(
            calls,
            "list",
            options -> {
              if (options.getContinue() == null) {
                return page("a", "x1");
              }
              if (!expired[0]) {
                expired[0] = true;
                throw new KubernetesClientException(
                    new StatusBuilder().withCode(410).withReason("Expired").build());
              }
              return page(null, "x2");
            });
    assertThat(names(items)).containsExactly("x1", "x2");
  }

  @Test
  void otherFailuresAreThrown() {
    assertThatThrownBy(
            () ->
                PagedList.all(
                    calls,
                    "list",
                    options -> {
                      throw new KubernetesClientException(
                          new StatusBuilder().withCode(403).withReason("Forbidden").build());
                    }))
        .isInstanceOf(KubernetesClientException.class);
  }
}
