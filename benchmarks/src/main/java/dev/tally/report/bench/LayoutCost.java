package dev.tally.report.bench;

/**
 * What one report layout costs a simulated cluster over one hour of churn.
 *
 * @param subjects cluster size
 * @param layout the grouping of aggregates: {@code subject}, {@code namespace} or {@code policy}
 * @param lifecycle how intermediate reports live
 * @param aggregateObjects aggregate objects stored at the end of the hour
 * @param aggregateBytes their bytes
 * @param intermediateObjects intermediate reports stored at the end of the hour
 * @param intermediateBytes their bytes
 * @param peakIntermediateObjects the most intermediate reports stored at once
 * @param largestObject the largest object written during the hour, in bytes
 * @param aggregateWrites writes of aggregates
 * @param intermediateWrites writes of intermediate reports
 * @param suppressedNoOps aggregate groups touched by an event whose content did not change, so
 *     nothing was written
 * @param churnEvents creates, updates and deletes of subjects, and policy changes
 */
record LayoutCost(
    int subjects,
    String layout,
    Lifecycle lifecycle,
    long aggregateObjects,
    long aggregateBytes,
    long intermediateObjects,
    long intermediateBytes,
    long peakIntermediateObjects,
    long largestObject,
    WriteCount aggregateWrites,
    WriteCount intermediateWrites,
    long suppressedNoOps,
    int churnEvents) {

  long objectsStored() {
    return aggregateObjects + intermediateObjects;
  }

  long bytesStored() {
    return aggregateBytes + intermediateBytes;
  }

  WriteCount writes() {
    return aggregateWrites.plus(intermediateWrites);
  }

  double bytesWrittenPerChurnEvent() {
    return churnEvents == 0 ? 0 : (double) writes().bytes() / churnEvents;
  }
}
