package dev.tally.report.api;

/**
 * Every name Tally writes into the cluster besides its kinds' fields: labels, annotations, the
 * field manager and result properties. One place, so a reader of the cluster (a dashboard, a policy
 * engine, kubectl) and every module of Tally agree on them; docs/DESIGN.md §4 lists what each one
 * is on.
 */
public final class WireNames {
  private WireNames() {}

  /** The label that marks what Tally owns: aggregates, partial reports, audit Leases and maps. */
  public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

  /** The value of {@link #MANAGED_BY_LABEL} on what Tally owns. */
  public static final String MANAGED_BY_VALUE = "tally";

  /**
   * The value of {@link #MANAGED_BY_LABEL} on aggregates written in Kyverno's layout ({@link
   * ReportLayout#KYVERNO}), as Kyverno's reports controller labels its own.
   */
  public static final String MANAGED_BY_KYVERNO = "kyverno";

  /** The label on the CRDs and ClusterRoles shipped in the jar, which the user applies. */
  public static final String PART_OF_LABEL = "app.kubernetes.io/part-of";

  /** The label naming the group an aggregate belongs to (a digest of the group id). */
  public static final String GROUP_LABEL = "tally.dev/group";

  /** The label naming the grouping (its id) that made an aggregate. */
  public static final String GROUPING_LABEL = "tally.dev/grouping";

  /**
   * The label naming the input an aggregate was made from ({@link AggregatorConfig#input()}), on
   * aggregates in Tally's layout of every input but the default ({@link
   * AggregatorConfig#DEFAULT_INPUT}): an aggregate without it is the default input's.
   */
  public static final String INPUT_LABEL = "tally.dev/input";

  /** The annotation holding the content hash of what Tally wrote, compared after a restart. */
  public static final String CONTENT_HASH_ANNOTATION = "tally.dev/content-hash";

  /** The label naming a partial report's producer (a valid label value derived from it). */
  public static final String PRODUCER_LABEL = "tally.dev/producer";

  /** The label holding a partial report's subject uid; absent until the subject is adopted. */
  public static final String SUBJECT_UID_LABEL = "tally.dev/subject-uid";

  /** When an unadopted partial report was first written, per the publisher's clock. */
  public static final String PENDING_SINCE_ANNOTATION = "tally.dev/pending-since";

  /** The field manager of Tally's server-side applies. */
  public static final String FIELD_MANAGER = "tally";

  /** The label naming the audit group of an audit Lease, status ConfigMap or run manifest. */
  public static final String AUDIT_GROUP_LABEL = "tally.dev/audit-group";

  /** The label naming the member of an audit Lease or status ConfigMap. */
  public static final String AUDIT_MEMBER_LABEL = "tally.dev/audit-member";

  /** The label naming the kind an audit object is about. */
  public static final String AUDIT_OBJECT_LABEL = "tally.dev/audit-object";

  /** The label holding the interval epoch of an audit run manifest. */
  public static final String AUDIT_EPOCH_LABEL = "tally.dev/audit-epoch";

  /** The label on audit partial reports of a unit that keeps failing: {@code true}. */
  public static final String STALE_LABEL = "tally.dev/stale";

  /** The annotation giving the failure that made an audit partial report stale. */
  public static final String STALE_REASON_ANNOTATION = "tally.dev/stale-reason";

  /**
   * The result property, on every result of a stale audit partial report and so in the aggregates
   * readers see, holding the failure; gone with the unit's next successful audit.
   */
  public static final String STALE_PROPERTY = "tally.dev/stale";
}
