package dev.tally.report.demo;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts a client's API requests by Kubernetes verb (get, list, watch, create, update, ...). */
final class RequestCounter implements Interceptor {
  private static final Set<String> COLLECTIONS =
      Set.of(
          "partialreports",
          "clusterpartialreports",
          "policyreports",
          "clusterpolicyreports",
          "reports",
          "clusterreports",
          "pods",
          "namespaces",
          "leases",
          "events",
          "customresourcedefinitions");

  private final Map<String, LongAdder> byVerb = new ConcurrentHashMap<>();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    byVerb.computeIfAbsent(verb(request), v -> new LongAdder()).increment();
  }

  static String verb(HttpRequest request) {
    String query = request.uri().getRawQuery();
    String path = request.uri().getPath();
    String last = path.substring(path.lastIndexOf('/') + 1);
    return switch (request.method()) {
      case "GET" ->
          query != null && query.contains("watch=true")
              ? "watch"
              : COLLECTIONS.contains(last) ? "list" : "get";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> COLLECTIONS.contains(last) ? "deletecollection" : "delete";
      default -> request.method().toLowerCase(java.util.Locale.ROOT);
    };
  }

  long total() {
    return byVerb.values().stream().mapToLong(LongAdder::sum).sum();
  }

  long writes() {
    return byVerb.entrySet().stream()
        .filter(e -> !Set.of("get", "list", "watch").contains(e.getKey()))
        .mapToLong(e -> e.getValue().sum())
        .sum();
  }

  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    byVerb.forEach((verb, n) -> out.put(verb, n.sum()));
    return out;
  }
}
