package dev.tally.report.bench;

/**
 * API writes by verb and the bytes of their bodies (a delete has none).
 *
 * @param creates objects created
 * @param updates objects replaced
 * @param deletes objects deleted
 * @param bytes bytes of the created and replaced objects
 */
record WriteCount(long creates, long updates, long deletes, long bytes) {
  static final WriteCount NONE = new WriteCount(0, 0, 0, 0);

  WriteCount create(long size) {
    return new WriteCount(creates + 1, updates, deletes, bytes + size);
  }

  WriteCount update(long size) {
    return new WriteCount(creates, updates + 1, deletes, bytes + size);
  }

  WriteCount delete(long count) {
    return new WriteCount(creates, updates, deletes + count, bytes);
  }

  WriteCount plus(WriteCount o) {
    return new WriteCount(
        creates + o.creates, updates + o.updates, deletes + o.deletes, bytes + o.bytes);
  }

  long total() {
    return creates + updates + deletes;
  }
}
