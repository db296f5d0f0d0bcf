package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The flags given on a command line, by name, and the typed reading of their values with the checks
 * every group of flags shares (non-blank, boolean, a number in range, a duration): each refusal is
 * a {@link UsageException} naming the flag.
 *
 * <p>This class reads a command line (the tokens, the types of values) for {@link Options}; what
 * each group of flags means is that group's.
 */
final class FlagValues {
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  private final Map<String, String> values;
  private final @Nullable String refusal;

  private FlagValues(Map<String, String> values, @Nullable String refusal) {
    this.values = values;
    this.refusal = refusal;
  }

  /** The given values as they are. */
  static FlagValues of(Map<String, String> values) {
    return new FlagValues(Map.copyOf(values), null);
  }

  /**
   * Reads {@code args} against {@code flags}: a value follows its flag or an {@code =}; a boolean
   * flag alone means true.
   *
   * @throws UsageException for an argument that is not a flag, an unknown flag, a missing value or
   *     a flag given twice
   */
  static FlagValues read(List<Flag> flags, String... args) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new UsageException(arg, "not a flag (flags start with --; see --help)");
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      Flag flag = flags.stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
      if (flag == null) {
        throw new UsageException(name, "unknown flag (see --help)");
      }
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (flag.bool()) {
        value = "true";
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value = args[++i];
      } else {
        throw new UsageException(name, "needs a value: " + name + " " + flag.value());
      }
      if (values.put(name, value) != null) {
        throw new UsageException(name, "given more than once");
      }
    }
    return new FlagValues(values, null);
  }

  /**
   * The same values, but reading a flag that was given is refused with {@code reason}: the view an
   * input that was not chosen reads its flags through, so the first of them given is refused.
   */
  FlagValues refusing(String reason) {
    return new FlagValues(values, reason);
  }

  /** Whether {@code flag} was given. */
  boolean has(String flag) {
    return raw(flag) != null;
  }

  /** The value of {@code flag} as given, or null. */
  @Nullable String get(String flag) {
    return raw(flag);
  }

  /** The value of {@code flag} as given, or {@code otherwise}. */
  String getOrDefault(String flag, String otherwise) {
    String value = raw(flag);
    return value == null ? otherwise : value;
  }

  /** The value of {@code flag}, or null; given, it must not be blank. */
  @Nullable String nonBlank(String flag) {
    String value = raw(flag);
    if (value != null && value.isBlank()) {
      throw new UsageException(flag, "must not be empty");
    }
    return value;
  }

  /** {@code true} or {@code false} in any case, or {@code otherwise}. */
  boolean bool(String flag, boolean otherwise) {
    String value = raw(flag);
    if (value == null) {
      return otherwise;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new UsageException(flag, "expected true or false, was '" + value + "'");
    };
  }

  /** A number in {@code [min, max]}, or {@code otherwise}. */
  <N extends Comparable<N>> N number(
      String flag, N otherwise, Function<String, N> parse, N min, N max) {
    String value = raw(flag);
    if (value == null) {
      return otherwise;
    }
    N n;
    try {
      n = parse.apply(value.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(flag, "not a number: '" + value + "'");
    }
    if (n.compareTo(min) < 0 || n.compareTo(max) > 0) {
      throw new UsageException(flag, "out of range [" + min + ", " + max + "]: " + value);
    }
    return n;
  }

  /** A whole number in {@code [1, Integer.MAX_VALUE]}, or {@code otherwise}: a count's cap. */
  int count(String flag, int otherwise) {
    return number(flag, otherwise, Integer::parseInt, 1, Integer.MAX_VALUE);
  }

  /** A duration ({@link #parseDuration}), or {@code otherwise}. */
  Duration duration(String flag, Duration otherwise, boolean zeroAllowed) {
    String value = raw(flag);
    return value == null ? otherwise : parseDuration(flag, value, zeroAllowed);
  }

  private @Nullable String raw(String flag) {
    String value = values.get(flag);
    if (value != null && refusal != null) {
      throw new UsageException(flag, refusal);
    }
    return value;
  }

  /** {@code 500ms}, {@code 15s}, {@code 10m}, {@code 1h}, or ISO-8601 such as {@code PT15S}. */
  static Duration parseDuration(String flag, String value, boolean zeroAllowed) {
    Duration d;
    Matcher m = DURATION.matcher(value.trim());
    if (value.trim().equals("0")) {
      d = Duration.ZERO;
    } else if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new UsageException(flag, "too large: '" + value + "'");
      }
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } else {
      try {
        d = Duration.parse(value.trim());
      } catch (DateTimeParseException e) {
        throw new UsageException(
            flag, "not a duration: '" + value + "' (expected e.g. 500ms, 15s, 10m, 1h)");
      }
    }
    if (d.isNegative() || (d.isZero() && !zeroAllowed)) {
      throw new UsageException(flag, "must be more than zero, was '" + value + "'");
    }
    return d;
  }

  /** A duration as a flag takes it: whole seconds as {@code 15s}, else milliseconds. */
  static String text(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
