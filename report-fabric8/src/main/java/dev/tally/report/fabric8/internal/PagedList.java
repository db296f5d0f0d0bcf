package dev.tally.report.fabric8.internal;

import dev.tally.report.fabric8.client.Requests;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTs in pages, so that one request never costs the API server many seats: each page goes through
 * the budget on its own. An expired continue token (410 Gone) restarts the LIST rather than
 * returning part of it.
 */
public final class PagedList {
  private static final Logger LOG = LoggerFactory.getLogger(PagedList.class);

  /** Objects per page: small enough for a cheap request, large enough for few of them. */
  public static final long PAGE_SIZE = 500;

  private static final int MAX_RESTARTS = 3;

  private PagedList() {}

  public static <T extends HasMetadata> List<T> all(
      Requests calls,
      String what,
      Function<ListOptions, ? extends KubernetesResourceList<? extends T>> page) {
    for (int restart = 0; ; restart++) {
      List<T> out = new ArrayList<>();
      @Nullable String token = null;
      try {
        do {
          ListOptions options =
              new ListOptionsBuilder().withLimit(PAGE_SIZE).withContinue(token).build();
          KubernetesResourceList<? extends T> list = calls.call(what, () -> page.apply(options));
          out.addAll(list.getItems());
          token = list.getMetadata() == null ? null : list.getMetadata().getContinue();
        } while (token != null && !token.isEmpty());
        return out;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_GONE || restart >= MAX_RESTARTS) {
          throw e;
        }
        LOG.info("{}: the continue token expired; listing again from the start", what);
      }
    }
  }
}
