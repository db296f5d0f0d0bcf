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

  /** The label on the CRDs and ClusterRoles shipped in the jar, which the user applies. */
  public static final String PART_OF_LABEL = "app.kubernetes.io/part-of";

  /** The label naming the group an aggregate belongs to (a digest of the group id). */
  public static final String GROUP_LABEL = "tally.dev/group";

  /** The label naming the grouping (its id) that made an aggregate. */
  public static final String GROUPING_LABEL = "tally.dev/grouping";

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
}
