package dev.tally.aggregator.hostile;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.report.trivy.TrivyInput;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One input of the aggregator as the harness writes and reads it: how an {@link Evaluation} is
 * written as that input's object (the engine's own layout: Tally's PartialReport, Kyverno's
 * background-scan EphemeralReport, trivy-operator's ConfigAuditReport), what the input makes of a
 * stored object (its own {@link ReportInput#decode}, which the model is fed), the CRDs and roles
 * the aggregator needs, and its flags.
 */
enum Dialect {
  TALLY("tally", PartialReportResource.class) {
    @Override
    GenericKubernetesResource encode(String ns, String name, Evaluation e, String producer) {
      Set<CoverageKey> coverage = new TreeSet<>();
      e.policies().forEach(p -> coverage.add(CoverageKey.of(Evaluation.SOURCE, p)));
      List<Result> results = new ArrayList<>();
      for (Evaluation.Finding f : e.findings()) {
        results.add(
            Result.builder()
                .source(Evaluation.SOURCE)
                .policy(f.policy())
                .rule(f.rule())
                .status(f.status())
                .message(f.message())
                .build());
      }
      PartialReport partial =
          PartialReport.builder()
              .producer(producer)
              .subject(e.subject())
              .coverage(coverage)
              .results(results)
              .observedAt(e.at())
              .build();
      HasMetadata object = ReportCodec.encodePartial(partial, name);
      object.getMetadata().setNamespace(ns);
      return generic(object);
    }

    @Override
    Statement statement(GenericKubernetesResource stored) {
      return new PartialReportsInput()
          .decode(
              Serialization.unmarshal(Serialization.asJson(stored), PartialReportResource.class));
    }

    @Override
    Grouping grouping() {
      return Grouping.perNamespace();
    }

    @Override
    List<String> flags() {
      return List.of("--input", "tally", "--grouping", "per-namespace");
    }

    @Override
    List<String> aggregatorRoles() {
      return List.of("tally-aggregator", "tally-aggregator-lease");
    }

    @Override
    void install(KubernetesClient admin) {
      TallyResources.installClusterRoles(admin);
    }
  },

  KYVERNO("kyverno", null) {
    @Override
    GenericKubernetesResource encode(String ns, String name, Evaluation e, String producer) {
      Subject s = e.subject();
      Map<String, Object> labels = new LinkedHashMap<>();
      labels.put("app.kubernetes.io/managed-by", "kyverno");
      labels.put("audit.kyverno.io/source", producer);
      String[] gv = s.apiVersion().split("/", 2);
      labels.put("audit.kyverno.io/resource.group", gv.length == 2 ? gv[0] : "");
      labels.put("audit.kyverno.io/resource.version", gv.length == 2 ? gv[1] : gv[0]);
      labels.put("audit.kyverno.io/resource.kind", s.kind());
      if (!s.uid().isEmpty()) {
        labels.put("audit.kyverno.io/resource.uid", s.uid());
      }
      for (String policy : e.policies()) {
        labels.put("cpol.kyverno.io/" + policy, "1");
      }
      Map<String, Object> annotations = new LinkedHashMap<>();
      annotations.put("audit.kyverno.io/resource.namespace", s.namespace());
      annotations.put("audit.kyverno.io/resource.name", s.name());
      annotations.put("audit.kyverno.io/last-scan-time", rfc3339(e.at()));
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("name", name);
      metadata.put("namespace", ns);
      metadata.put("labels", labels);
      metadata.put("annotations", annotations);
      if (!s.uid().isEmpty()) {
        metadata.put("ownerReferences", List.of(ownerOf(s, false)));
      }
      List<Map<String, Object>> results = new ArrayList<>();
      for (Evaluation.Finding f : e.findings()) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("source", Evaluation.SOURCE);
        r.put("policy", f.policy());
        r.put("rule", f.rule());
        r.put("result", f.status().name().toLowerCase(Locale.ROOT));
        r.put("message", f.message());
        r.put("scored", true);
        r.put("timestamp", Map.of("seconds", e.at().seconds(), "nanos", e.at().nanos()));
        r.put("properties", Map.of("process", "background scan"));
        results.add(r);
      }
      Map<String, Object> object = new LinkedHashMap<>();
      object.put("apiVersion", "reports.kyverno.io/v1");
      object.put("kind", "EphemeralReport");
      object.put("metadata", metadata);
      // Kyverno always writes spec.owner, with four empty strings; the CRD requires it
      object.put(
          "spec",
          Map.of(
              "owner",
              Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
              "results",
              results));
      return generic(object);
    }

    @Override
    Statement statement(GenericKubernetesResource stored) {
      return KyvernoInput.deleteAfterMerge().decode(stored);
    }

    @Override
    Grouping grouping() {
      return Grouping.kyvernoPerResource();
    }

    @Override
    List<String> flags() {
      return List.of("--input", "kyverno");
    }

    @Override
    List<String> aggregatorRoles() {
      return List.of("tally-kyverno-aggregator", "tally-kyverno-aggregator-lease");
    }

    @Override
    void install(KubernetesClient admin) {
      Path crds = testResources().resolve("crds");
      installCrd(admin, crds.resolve("reports.kyverno.io_ephemeralreports.v1.yaml"));
      installCrd(admin, crds.resolve("reports.kyverno.io_clusterephemeralreports.v1.yaml"));
      apply(admin, KyvernoInput.rbacYaml());
      awaitServed(admin, KyvernoInput.EPHEMERAL);
    }

    @Override
    ResourceDefinitionContext kind() {
      return KyvernoInput.EPHEMERAL;
    }
  },

  TRIVY("trivy", null) {
    @Override
    GenericKubernetesResource encode(String ns, String name, Evaluation e, String producer) {
      Subject s = e.subject();
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("name", name);
      metadata.put("namespace", ns);
      metadata.put(
          "labels",
          Map.of(
              "trivy-operator.resource.kind", s.kind(),
              "trivy-operator.resource.name", shortLabel(s.name()),
              "trivy-operator.resource.namespace", s.namespace(),
              "plugin-config-hash", producer.length() > 63 ? producer.substring(0, 63) : producer));
      if (!s.uid().isEmpty()) {
        metadata.put("ownerReferences", List.of(ownerOf(s, true)));
      }
      List<Map<String, Object>> checks = new ArrayList<>();
      int failed = 0;
      for (Evaluation.Finding f : e.findings()) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("checkID", f.rule());
        c.put("title", f.policy());
        c.put("severity", "MEDIUM");
        c.put("category", "Kubernetes Security Check");
        c.put("success", f.status() == ResultStatus.PASS);
        c.put("messages", List.of(f.message()));
        checks.add(c);
        failed += f.status() == ResultStatus.PASS ? 0 : 1;
      }
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("updateTimestamp", rfc3339(e.at()));
      report.put(
          "scanner", Map.of("name", "Trivy", "vendor", "Aqua Security", "version", "0.65.0"));
      report.put(
          "summary",
          Map.of("criticalCount", 0, "highCount", 0, "mediumCount", failed, "lowCount", 0));
      report.put("checks", checks);
      Map<String, Object> object = new LinkedHashMap<>();
      object.put("apiVersion", "aquasecurity.github.io/v1alpha1");
      object.put("kind", "ConfigAuditReport");
      object.put("metadata", metadata);
      object.put("report", report);
      return generic(object);
    }

    @Override
    Statement statement(GenericKubernetesResource stored) {
      // as the input's informer reads it: into its own class, which keeps what it reads
      return new TrivyInput()
          .decode(
              Serialization.unmarshal(
                  Serialization.asJson(stored),
                  dev.tally.report.trivy.ConfigAuditReportResource.class));
    }

    @Override
    Grouping grouping() {
      return Grouping.perNamespace();
    }

    @Override
    List<String> flags() {
      return List.of("--input", "trivy", "--grouping", "per-namespace");
    }

    @Override
    List<String> aggregatorRoles() {
      return List.of("tally-trivy-aggregator", "tally-trivy-aggregator-lease");
    }

    @Override
    void install(KubernetesClient admin) {
      installCrd(
          admin, testResources().resolve("trivy/aquasecurity.github.io_configauditreports.yaml"));
      apply(admin, TrivyInput.rbacYaml());
      awaitServed(admin, TrivyInput.CONFIG_AUDIT_REPORTS);
    }

    @Override
    ResourceDefinitionContext kind() {
      return TrivyInput.CONFIG_AUDIT_REPORTS;
    }
  };

  /** The value of {@code --input}. */
  final String flag;

  private final Class<? extends HasMetadata> typed;

  Dialect(String flag, Class<? extends HasMetadata> typed) {
    this.flag = flag;
    this.typed = typed;
  }

  /**
   * The input's object in namespace {@code ns} named {@code name} that states {@code e}, written as
   * {@code producer} (Tally's producer id, Kyverno's {@code audit.kyverno.io/source}, trivy's
   * plugin hash).
   */
  abstract GenericKubernetesResource encode(String ns, String name, Evaluation e, String producer);

  /** What the input makes of a stored object, as the aggregator reads it. */
  abstract Statement statement(GenericKubernetesResource stored);

  /**
   * The input of the release the harness runs beside this one's: trivy's beside Tally's, Tally's
   * beside the others. Tally's and trivy's both default to the per-namespace grouping, so their
   * reports differ by input only.
   */
  Dialect neighbour() {
    return this == TALLY ? TRIVY : TALLY;
  }

  /** The grouping the aggregator runs with, and the model with it. */
  abstract Grouping grouping();

  /** The aggregator's flags for this input. */
  abstract List<String> flags();

  /** The shipped ClusterRoles the aggregator's account is bound to; the first names its Lease. */
  abstract List<String> aggregatorRoles();

  /** Installs the input's CRDs and the aggregator's roles. */
  abstract void install(KubernetesClient admin);

  /** The input's kind, as generic resources. */
  ResourceDefinitionContext kind() {
    return ResourceDefinitionContext.fromResourceType(typed);
  }

  static Dialect named(String flag) {
    for (Dialect d : values()) {
      if (d.flag.equals(flag)) {
        return d;
      }
    }
    throw new IllegalArgumentException("no input named '" + flag + "' (tally, kyverno, trivy)");
  }

  static Map<String, Object> ownerOf(Subject s, boolean controller) {
    Map<String, Object> owner = new LinkedHashMap<>();
    owner.put("apiVersion", s.apiVersion());
    owner.put("kind", s.kind());
    owner.put("name", s.name());
    owner.put("uid", s.uid());
    if (controller) {
      owner.put("controller", true);
    }
    return owner;
  }

  static String rfc3339(Timestamp t) {
    return Instant.ofEpochSecond(t.seconds(), t.nanos()).toString();
  }

  private static String shortLabel(String value) {
    String v = value.length() > 63 ? value.substring(0, 63) : value;
    return v.replaceAll("[^A-Za-z0-9_.-]", "x").replaceAll("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "");
  }

  static GenericKubernetesResource generic(Object object) {
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  /** report-fabric8's test resources (the CRDs of Kyverno and trivy-operator). */
  static Path testResources() {
    return Path.of(
        System.getProperty("tally.fabric8.test-resources", "../report-fabric8/src/test/resources"));
  }

  static void installCrd(KubernetesClient admin, Path file) {
    try {
      CustomResourceDefinition crd =
          Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class);
      admin.resource(crd).createOr(existing -> existing.update());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void apply(KubernetesClient admin, String yaml) {
    for (HasMetadata item :
        admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
      admin.resource(item).createOr(existing -> existing.update());
    }
  }

  static void awaitServed(KubernetesClient admin, ResourceDefinitionContext kind) {
    Await.until(
        kind.getPlural() + " are served",
        () -> {
          try {
            admin.genericKubernetesResources(kind).inAnyNamespace().list();
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  /** The statement's partial report, if it is one the aggregator merges. */
  static Optional<PartialReport> ready(Statement statement) {
    return statement instanceof Statement.Ready r ? Optional.of(r.partial()) : Optional.empty();
  }
}
