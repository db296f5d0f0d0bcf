package dev.tally.report.fabric8.resource;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The small conversions the codecs share: object references, owner references, and the helpers that
 * map absent wire strings to the model's empty ones and put field paths on validation errors.
 */
final class CodecPieces {
  private CodecPieces() {}

  static OwnerReference ownerReference(Subject owner) {
    var ref = new OwnerReference();
    ref.setApiVersion(owner.apiVersion());
    ref.setKind(owner.kind());
    ref.setName(owner.name());
    ref.setUid(owner.uid());
    ref.setController(true);
    return ref;
  }

  static ObjectReference reference(Subject s) {
    var ref = new ObjectReference();
    ref.setApiVersion(emptyToNull(s.apiVersion()));
    ref.setKind(emptyToNull(s.kind()));
    ref.setNamespace(emptyToNull(s.namespace()));
    ref.setName(emptyToNull(s.name()));
    ref.setUid(emptyToNull(s.uid()));
    return ref;
  }

  static Subject subject(ObjectReference ref) {
    return new Subject(
        nonNull(ref.getApiVersion()),
        nonNull(ref.getKind()),
        nonNull(ref.getNamespace()),
        nonNull(ref.getName()),
        nonNull(ref.getUid()));
  }

  /** A string map without null values, which the schemas do not allow and the model cannot hold. */
  static Map<String, String> noNullValues(String path, Map<String, String> map) {
    for (var e : map.entrySet()) {
      if (e.getValue() == null) {
        throw new InvalidReportException(path + "[" + e.getKey() + "]", "is null");
      }
    }
    return map;
  }

  static String nonNull(@Nullable String s) {
    return s == null ? "" : s;
  }

  static @Nullable String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  /** Runs a conversion, prefixing any validation error with the field path. */
  static <T> T field(String path, java.util.function.Supplier<T> conversion) {
    try {
      return conversion.get();
    } catch (InvalidReportException e) {
      throw e.under(path);
    }
  }
}
