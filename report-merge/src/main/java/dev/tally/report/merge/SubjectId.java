package dev.tally.report.merge;

/**
 * A subject as a deletion names it: its namespace (empty when cluster-scoped) and its uid. A uid is
 * unique in a cluster, but a partial report's claim of one is not authenticated, so what is known
 * about a uid is kept per namespace: a claim in one namespace never hides, retracts or keeps alive
 * anything in another.
 */
public record SubjectId(String namespace, String uid) {}
