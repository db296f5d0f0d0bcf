package dev.tally.report.merge;

import dev.tally.report.api.Subject;

/**
 * The per-value facts a result's digest and encoded size are made of: the digest and JSON size of
 * each string and subject. {@link #DIRECT} computes them on every call; the aggregator's {@link
 * ValueTable} computes them once per distinct value. Both give the same numbers, so a digest or a
 * size does not depend on which was used.
 */
interface ValueFacts {
  /** {@link Fingerprint#stringDigest} of {@code s}. */
  long digest(String s);

  /** {@link EncodedSize#string} of {@code s}. */
  int jsonSize(String s);

  /** {@link Fingerprint#subjectDigest} of {@code s}. */
  long digest(Subject s);

  /** The bytes of {@code s}'s JSON object. */
  int jsonSize(Subject s);

  ValueFacts DIRECT =
      new ValueFacts() {
        @Override
        public long digest(String s) {
          return Fingerprint.stringDigest(s);
        }

        @Override
        public int jsonSize(String s) {
          return EncodedSize.string(s);
        }

        @Override
        public long digest(Subject s) {
          return Fingerprint.subjectDigest(s, this);
        }

        @Override
        public int jsonSize(Subject s) {
          return EncodedSize.subject(s, this);
        }
      };
}
