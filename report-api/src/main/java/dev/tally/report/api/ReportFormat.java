package dev.tally.report.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * An output format: the two kinds it writes (one namespaced, one cluster-scoped), its name, the API
 * versions a reader of its reports accepts, and the fields it adds to the common report ({@link
 * #carriesConfiguration}). Every behaviour that differs between formats is asked of the format,
 * never decided by comparing it with a constant, so a new format is one subclass (and its CRDs, and
 * in the adapter its resource classes).
 *
 * <p>Formats register themselves when made, as enum constants do: {@link #values} lists the
 * built-in ones first, {@link #WGPOLICY} the default.
 */
public abstract class ReportFormat {
  private static final List<ReportFormat> MADE = Collections.synchronizedList(new ArrayList<>());

  /** {@code wgpolicyk8s.io/v1alpha2}: PolicyReport and ClusterPolicyReport. */
  public static final ReportFormat WGPOLICY = new WgPolicyFormat();

  /** {@code openreports.io/v1alpha1}: Report and ClusterReport, with configuration and source. */
  public static final ReportFormat OPENREPORTS = new OpenReportsFormat();

  private final String name;
  private final ReportKind namespaced;
  private final ReportKind clusterScoped;

  /**
   * @param name the format's name, as a command line or a values file writes it ({@code wgpolicy})
   * @param namespaced the kind of its reports in a namespace
   * @param clusterScoped the kind of its cluster-scoped reports
   */
  protected ReportFormat(String name, ReportKind namespaced, ReportKind clusterScoped) {
    this.name = Checks.nonNull("name", name);
    this.namespaced = Checks.nonNull("namespaced", namespaced);
    this.clusterScoped = Checks.nonNull("clusterScoped", clusterScoped);
    if (!namespaced.namespaced() || clusterScoped.namespaced()) {
      throw new IllegalArgumentException(
          name + ": the first kind must be namespaced and the second cluster-scoped");
    }
    MADE.add(this);
  }

  /** Every format made, the built-in ones first: {@link #WGPOLICY}, {@link #OPENREPORTS}. */
  public static List<ReportFormat> values() {
    synchronized (MADE) {
      return List.copyOf(MADE);
    }
  }

  /**
   * The format called {@code name}.
   *
   * @throws IllegalArgumentException naming the formats there are, if none is called that
   */
  public static ReportFormat named(String name) {
    return values().stream()
        .filter(f -> f.name.equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown format '" + name + "', expected " + either(values())));
  }

  /** {@code a}, {@code a or b}, {@code a, b or c}: the formats' names. */
  private static String either(List<ReportFormat> formats) {
    List<String> names = formats.stream().map(ReportFormat::name).toList();
    int last = names.size() - 1;
    return last == 0
        ? names.get(0)
        : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
  }

  /** The format whose kinds include {@code kind}, if one was made. */
  public static Optional<ReportFormat> of(ReportKind kind) {
    return values().stream().filter(f -> f.kinds().contains(kind)).findFirst();
  }

  /** The format's name: {@code wgpolicy}, {@code openreports}. */
  public final String name() {
    return name;
  }

  /** The kind for a group in {@code namespace}; the cluster-scoped kind when it is empty. */
  public final ReportKind kindFor(String namespace) {
    return namespace.isEmpty() ? clusterScoped : namespaced;
  }

  /** Its two kinds: the namespaced one, then the cluster-scoped one. */
  public final List<ReportKind> kinds() {
    return List.of(namespaced, clusterScoped);
  }

  /**
   * Whether its reports carry {@code configuration.limits} (the limits they were split by) and a
   * report-level {@code source}, as openreports' do. False by default.
   */
  public boolean carriesConfiguration() {
    return false;
  }

  @Override
  public String toString() {
    return name;
  }
}
