package dev.tally.report.fabric8.producer;

/**
 * What one adoption pass did with the partial reports whose subject had no uid yet.
 *
 * @param adopted given their subject's uid and owner reference
 * @param removed deleted because their subject never appeared within the grace period
 * @param waiting still waiting for their subject
 */
public record AdoptionOutcome(int adopted, int removed, int waiting) {}
