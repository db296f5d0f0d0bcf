package dev.tally.report.merge;

/** A group: a name chosen by the grouping, always inside the subject's namespace. */
record GroupKey(String namespace, String name) {}
