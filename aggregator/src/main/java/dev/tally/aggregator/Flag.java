package dev.tally.aggregator;

import org.jspecify.annotations.Nullable;

/**
 * A flag of the aggregator's command line, for the usage text and the parser alike: its name, the
 * placeholder of its value ({@code null} for a boolean flag, which alone means true) and its help.
 *
 * <p>Each group of flags ({@link ClusterOptions}, {@link InputOption}, {@link LayoutOptions}, ...)
 * declares its own flags with its parsing, and {@link Options} assembles the groups.
 */
record Flag(String name, @Nullable String value, String help, boolean bool) {
  private static final int HELP_COLUMN = 30;
  private static final int WIDTH = 100;

  /** A flag that takes a value, written as {@code value} in the usage text. */
  static Flag of(String name, String value, String help) {
    return new Flag(name, value, help, false);
  }

  /** A boolean flag: alone it means true; it takes {@code =true} or {@code =false}. */
  static Flag bool(String name, String help) {
    return new Flag(name, null, help, true);
  }

  /** Appends this flag's entry in the usage text: name and value, then the help, wrapped. */
  void appendUsage(StringBuilder out) {
    String head = "  " + name + (value == null ? "" : " " + value);
    out.append(head);
    out.append(
        head.length() >= HELP_COLUMN
            ? "\n" + " ".repeat(HELP_COLUMN)
            : " ".repeat(HELP_COLUMN - head.length()));
    out.append(wrap(help, HELP_COLUMN, WIDTH)).append('\n');
  }

  private static String wrap(String text, int indent, int width) {
    StringBuilder out = new StringBuilder();
    int col = indent;
    for (String word : text.split(" ")) {
      if (col > indent && col + 1 + word.length() > width) {
        out.append('\n').append(" ".repeat(indent));
        col = indent;
      } else if (col > indent) {
        out.append(' ');
        col++;
      }
      out.append(word);
      col += word.length();
    }
    return out.toString();
  }
}
