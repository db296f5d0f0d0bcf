package dev.tally.report.audit.worker;

import dev.tally.report.audit.RunId;
import dev.tally.report.audit.ShardPlan;

/**
 * What a run audits and how it was first divided: its id and the plan over the members live when it
 * started. Every member of the run uses this same plan, whatever membership it sees later.
 */
record RunManifest(RunId runId, ShardPlan plan) {}
