package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One input the aggregator can read, as {@code --input} offers it: its name and help, the flags
 * that apply only with it, and the settings it makes of them. {@link Options#INPUTS} lists the
 * inputs; this class also holds {@code --input} itself and the choice among them.
 *
 * <p>Of the groups of flags that {@link Options} assembles into the command line, the input flags
 * are this class and its subclasses.
 *
 * @param <S> the input an input option makes of its flags, handed to the controller
 */
abstract class InputOption<S extends ReportInput> {
  /** Tally's own partial reports: the input without flags of its own. */
  static final InputOption<PartialReportsInput> TALLY =
      of("tally", "Tally's PartialReports", PartialReportsInput::new);

  /** An input without flags of its own: {@code make} makes it. */
  static <S extends ReportInput> InputOption<S> of(String name, String help, Supplier<S> make) {
    return new InputOption<>(name, help) {
      @Override
      S read(FlagValues v) {
        return make.get();
      }
    };
  }

  private final String name;
  private final String help;

  /**
   * @param name what {@code --input} takes
   * @param help what the input is, for the help of {@code --input}
   */
  InputOption(String name, String help) {
    this.name = name;
    this.help = help;
  }

  final String name() {
    return name;
  }

  /** The flags that apply only with this input, listed in the usage text after {@code --input}. */
  List<Flag> flags() {
    return List.of();
  }

  /** This input's caps, flags that apply only with it, listed in the usage text among the caps. */
  List<Flag> capFlags() {
    return List.of();
  }

  /** The grouping name when {@code --grouping} is not given. */
  String defaultGrouping() {
    return "per-namespace";
  }

  /**
   * Reads this input's flags. It reads them through a refusing view when another input is chosen,
   * so the first of its flags that is given is refused: read each flag alike whatever its value.
   *
   * @throws UsageException for a value a flag does not take
   */
  abstract S read(FlagValues v);

  /**
   * Checks that this input's settings can go with the grouping {@code --grouping} chose.
   *
   * @throws UsageException naming {@code --grouping} if not
   */
  void checkGrouping(S settings, String groupingName) {}

  /** The input chosen and what it made of its flags. */
  record Chosen<S extends ReportInput>(InputOption<S> input, S settings) {
    /** The settings of {@code input} if it is the one chosen, else null. */
    <T extends ReportInput> @Nullable T settingsOf(InputOption<T> input) {
      @SuppressWarnings("unchecked") // the same input, so the same type of settings
      T same = this.input == input ? (T) settings : null;
      return same;
    }

    /** For the log: the input's name, and what its flags made when it has flags. */
    String describe() {
      return input.flags().isEmpty() && input.capFlags().isEmpty()
          ? input.name()
          : input.name() + " (" + settings + ")";
    }

    /** The chosen input's check of the grouping. */
    void checkGrouping(String groupingName) {
      input.checkGrouping(settings, groupingName);
    }
  }

  /** {@code --input}: its help names each of {@code inputs}, the first as the default. */
  static Flag flag(List<InputOption<?>> inputs) {
    List<String> each = new ArrayList<>();
    for (InputOption<?> input : inputs) {
      each.add(
          input.name + " (" + input.help + (input == inputs.get(0) ? ", the default" : "") + ")");
    }
    return Flag.of("--input", "NAME", "what is aggregated: " + either(each));
  }

  /** {@code --input} followed by each input's own flags, as the usage text lists them. */
  static List<Flag> flags(List<InputOption<?>> inputs) {
    List<Flag> flags = new ArrayList<>();
    flags.add(flag(inputs));
    inputs.forEach(input -> flags.addAll(input.flags()));
    return flags;
  }

  /** Every input's caps, as the usage text lists them. */
  static List<Flag> capFlags(List<InputOption<?>> inputs) {
    return inputs.stream().flatMap(input -> input.capFlags().stream()).toList();
  }

  /**
   * Reads {@code --input} (the first of {@code inputs} by default) and the chosen input's flags;
   * the flags of the others are refused, as applying only with their own input.
   */
  static Chosen<?> choose(List<InputOption<?>> inputs, FlagValues v) {
    String name = v.getOrDefault("--input", inputs.get(0).name);
    InputOption<?> chosen =
        inputs.stream()
            .filter(input -> input.name.equals(name))
            .findFirst()
            .orElseThrow(
                () ->
                    new UsageException(
                        "--input",
                        "unknown input '"
                            + name
                            + "', expected "
                            + either(inputs.stream().map(InputOption::name).toList())));
    for (InputOption<?> other : inputs) {
      if (other != chosen) {
        other.read(v.refusing("applies only with --input " + other.name));
      }
    }
    return chosen.chosen(v);
  }

  private Chosen<S> chosen(FlagValues v) {
    return new Chosen<>(this, read(v));
  }

  /**
   * The resources of a comma-separated {@code list} given to {@code flag}, each trimmed, in order;
   * whether each is a resource name is the input's check.
   *
   * @throws UsageException naming {@code flag} for an empty entry
   */
  static Set<String> resources(String flag, String list) {
    Set<String> kinds = new LinkedHashSet<>();
    for (String kind : list.split(",", -1)) {
      if (kind.isBlank()) {
        throw new UsageException(
            flag, "an empty entry in '" + list + "' (comma-separated resources)");
      }
      kinds.add(kind.trim());
    }
    return kinds;
  }

  /** {@code a}, {@code a or b}, {@code a, b or c}. */
  private static String either(List<String> items) {
    int last = items.size() - 1;
    return last == 0
        ? items.get(0)
        : String.join(", ", items.subList(0, last)) + " or " + items.get(last);
  }
}
