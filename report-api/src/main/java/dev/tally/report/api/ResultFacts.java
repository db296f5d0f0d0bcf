package dev.tally.report.api;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The digest and the encoded size of one result, accumulated while its constructor validates it, so
 * that each string of a result is read once, when it is built, and never again by the merge.
 *
 * <p>This is where a result's fields are folded, in the order its constructor calls these methods
 * (source, policy, rule, status, severity, category, message, scored, properties, timestamp,
 * resources, selector); every step of the folding is {@link Fingerprint}'s (FNV-1a over UTF-16 code
 * units, each string's digest finished with SplitMix64's mixer; the timestamp left out) and every
 * size {@link EncodedSize}'s (the bytes of the result's compact UTF-8 JSON as Tally's adapter
 * writes it). A string's characters are read in one pass for its validation, digest and size.
 */
final class ResultFacts {
  /** The result's digest so far. */
  private long hash = Fingerprint.FNV_OFFSET;

  /** The result's JSON object so far. */
  private final EncodedSize.Fields json = new EncodedSize.Fields();

  /**
   * Validates {@code value} as {@link Checks#optional} does (or {@link Checks#required} when {@code
   * required}), and folds its digest into the result's and its literal into the JSON's bytes.
   */
  String text(String field, String value, int maxLength, boolean required) {
    if (required) {
      Checks.present(field, value);
    }
    int length = value.length();
    if (length > maxLength) {
      throw new InvalidReportException(
          field, "is " + length + " characters long, at most " + maxLength + " allowed");
    }
    long h = Fingerprint.FNV_OFFSET;
    int n = 2;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      h = Fingerprint.step(h, c);
      n += EncodedSize.charBytes(c);
      if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
        if (Character.isHighSurrogate(c)
            && i + 1 < length
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          // a valid pair: one character outside the BMP
          i++;
          char low = value.charAt(i);
          h = Fingerprint.step(h, low);
          n += EncodedSize.charBytes(low);
        } else {
          throw new InvalidReportException(
              field,
              String.format(
                  "holds a lone surrogate U+%04X at index %d, which cannot be encoded",
                  (int) c, i));
        }
      }
    }
    hash = Fingerprint.digest(hash, Fingerprint.mix(Fingerprint.end(h, length)));
    json.sized(field, n);
    return value;
  }

  /** Folds an enum-like value: its number into the digest, its quoted wire name into the JSON. */
  void quoted(String field, long number, String wireName) {
    hash = Fingerprint.value(hash, number);
    json.raw(field, EncodedSize.quoted(wireName));
  }

  void severity(@Nullable Severity severity) {
    if (severity == null) {
      hash = Fingerprint.value(hash, 0L);
    } else {
      quoted("severity", severity.ordinal() + 1L, severity.wireName());
    }
  }

  void scored(@Nullable Boolean scored) {
    hash = Fingerprint.value(hash, scored == null ? 0L : scored ? 2L : 1L);
    if (scored != null) {
      json.raw("scored", scored ? 4 : 5);
    }
  }

  void properties(Map<String, String> properties) {
    hash = Fingerprint.map(hash, properties);
    json.raw("properties", properties.isEmpty() ? 0 : EncodedSize.map(properties));
  }

  void timestamp(@Nullable Timestamp t) {
    // the digest leaves the timestamp out: it says when the verdict was observed, not what it is,
    // so a re-evaluation that states the same verdict later hashes alike. Only its bytes count
    if (t == null) {
      return;
    }
    EncodedSize.Fields ts = new EncodedSize.Fields();
    ts.raw("seconds", EncodedSize.digits(t.seconds()));
    ts.raw("nanos", EncodedSize.digits(t.nanos()));
    json.raw("timestamp", ts.close());
  }

  void resources(List<Subject> resources) {
    hash = Fingerprint.subjects(hash, resources);
    json.raw("resources", resources.isEmpty() ? 0 : EncodedSize.subjects(resources));
  }

  void selector(@Nullable LabelSelector sel) {
    if (sel == null) {
      hash = Fingerprint.value(hash, -2L);
      return;
    }
    hash = Fingerprint.selector(hash, sel);
    json.raw("resourceSelector", EncodedSize.selector(sel));
  }

  long digest() {
    return Fingerprint.mix(hash);
  }

  int encodedSize() {
    return json.close();
  }
}
