package dev.tally.report.fabric8.resource;

import static dev.tally.report.fabric8.resource.CodecPieces.emptyToNull;
import static dev.tally.report.fabric8.resource.CodecPieces.field;
import static dev.tally.report.fabric8.resource.CodecPieces.nonNull;
import static dev.tally.report.fabric8.resource.CodecPieces.ownerReference;
import static dev.tally.report.fabric8.resource.CodecPieces.reference;
import static dev.tally.report.fabric8.resource.CodecPieces.subject;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.merge.names.KubernetesNames;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Partial reports between the model and their custom resources: a {@link PartialReport} to a
 * PartialReport or ClusterPartialReport object and back, checked against where the object lives.
 */
final class PartialReportCodec {
  private PartialReportCodec() {}

  /** {@link ReportCodec#encodePartial}, in full. */
  static CustomResource<PartialReportSpec, Void> encodePartial(
      PartialReport evaluation, String name) {
    Subject subject = evaluation.subject();
    CustomResource<PartialReportSpec, Void> res =
        subject.clusterScoped() ? new ClusterPartialReportResource() : new PartialReportResource();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE);
    labels.put(WireNames.PRODUCER_LABEL, KubernetesNames.labelValue(evaluation.producer()));
    var meta =
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(subject.clusterScoped() ? null : subject.namespace());
    if (evaluation.adopted()) {
      labels.put(WireNames.SUBJECT_UID_LABEL, KubernetesNames.labelValue(subject.uid()));
      meta.withOwnerReferences(ownerReference(subject));
    }
    res.setMetadata(meta.withLabels(labels).build());
    List<WireCoverageKey> coverage =
        new TreeSet<>(evaluation.coverage())
            .stream().map(k -> new WireCoverageKey(emptyToNull(k.source()), k.policy())).toList();
    res.setSpec(
        new PartialReportSpec(
            evaluation.producer(),
            reference(subject),
            emptyToNull(evaluation.subjectVersion()),
            new WireTimestamp(evaluation.observedAt().seconds(), evaluation.observedAt().nanos()),
            evaluation.generation(),
            coverage.isEmpty() ? null : coverage,
            evaluation.results().stream().map(ResultCodec::encodeResult).toList()));
    return res;
  }

  /** {@link ReportCodec#decodePartial}, in full. */
  static PartialReport decodePartial(CustomResource<PartialReportSpec, Void> res) {
    PartialReportSpec spec = res.getSpec();
    if (spec == null) {
      throw new InvalidReportException("spec", "is required");
    }
    if (spec.subject() == null) {
      throw new InvalidReportException("spec.subject", "is required");
    }
    Subject subject = field("spec.subject", () -> subject(spec.subject()));
    String objectNamespace = nonNull(res.getMetadata().getNamespace());
    if (!subject.namespace().equals(objectNamespace)) {
      throw new InvalidReportException(
          "spec.subject.namespace",
          objectNamespace.isEmpty()
              ? "'"
                  + subject.namespace()
                  + "' is not allowed: a ClusterPartialReport speaks only about cluster-scoped"
                  + " subjects"
              : "'"
                  + subject.namespace()
                  + "' is not the namespace of the PartialReport '"
                  + objectNamespace
                  + "'");
    }
    if (spec.observedAt() == null) {
      throw new InvalidReportException("spec.observedAt", "is required");
    }
    Timestamp observedAt =
        Timestamp.of("spec.observedAt", spec.observedAt().seconds(), spec.observedAt().nanos());
    Set<CoverageKey> coverage = new TreeSet<>();
    if (spec.coverage() != null) {
      for (int i = 0; i < spec.coverage().size(); i++) {
        WireCoverageKey k = spec.coverage().get(i);
        coverage.add(
            field(
                "spec.coverage[" + i + "]",
                () -> new CoverageKey(nonNull(k.source()), nonNull(k.policy()))));
      }
    }
    List<Result> results = ResultCodec.decodeResults("spec.results", spec.results(), "");
    try {
      return new PartialReport(
          nonNull(spec.producer()),
          subject,
          nonNull(spec.subjectVersion()),
          coverage,
          results,
          observedAt,
          spec.generation() == null ? 0 : spec.generation());
    } catch (InvalidReportException e) {
      throw e.under("spec");
    }
  }
}
