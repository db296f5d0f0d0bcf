package dev.tally.report.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * Draws the cost model as an SVG: bytes written in the hour and bytes stored at its end against
 * cluster size, one line per layout and lifecycle, both axes logarithmic. Written by hand so the
 * chart needs no dependency and is a pure function of the figures.
 */
final class CostChart {
  private static final int PANEL_WIDTH = 460;
  private static final int PANEL_HEIGHT = 330;
  private static final int LEFT = 70;
  private static final int TOP = 40;
  private static final int PLOT_WIDTH = 360;
  private static final int PLOT_HEIGHT = 240;
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c"};

  private CostChart() {}

  static String svg(List<LayoutCost> costs) {
    int width = PANEL_WIDTH * 2 + 20;
    int height = PANEL_HEIGHT + 90;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0"
                + " %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            width,
            height,
            width,
            height));
    svg.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    panel(svg, costs, 0, "Bytes written in one hour of churn", c -> c.writes().bytes());
    panel(
        svg,
        costs,
        PANEL_WIDTH + 20,
        "Bytes stored at the end of the hour",
        LayoutCost::bytesStored);
    legend(svg, PANEL_HEIGHT + 10);
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static void panel(
      StringBuilder svg,
      List<LayoutCost> costs,
      int x0,
      String title,
      ToLongFunction<LayoutCost> metric) {
    TreeSet<Integer> sizes = new TreeSet<>();
    long min = Long.MAX_VALUE;
    long max = 1;
    for (LayoutCost c : costs) {
      sizes.add(c.subjects());
      long v = Math.max(1, metric.applyAsLong(c));
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    double yLo = Math.floor(Math.log10(min));
    double yHi = Math.ceil(Math.log10(max));
    if (yHi <= yLo) {
      yHi = yLo + 1;
    }
    double xLo = Math.log10(sizes.first());
    double xHi = Math.log10(sizes.last());
    if (xHi <= xLo) {
      xHi = xLo + 1;
    }
    int px = x0 + LEFT;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
            px,
            TOP - 15,
            title));
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n",
            px,
            TOP,
            PLOT_WIDTH,
            PLOT_HEIGHT));
    for (int e = (int) yLo; e <= (int) yHi; e++) {
      double y = TOP + PLOT_HEIGHT - (e - yLo) / (yHi - yLo) * PLOT_HEIGHT;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              px,
              y,
              px + PLOT_WIDTH,
              y,
              px - 6,
              y + 4,
              si(e)));
    }
    for (int size : sizes) {
      double x = px + (Math.log10(size) - xLo) / (xHi - xLo) * PLOT_WIDTH;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%,d</text>%n",
              x,
              TOP,
              x,
              TOP + PLOT_HEIGHT,
              x,
              TOP + PLOT_HEIGHT + 16,
              size));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">subjects (log scale)</text>%n",
            px + PLOT_WIDTH / 2,
            TOP + PLOT_HEIGHT + 34));
    for (int l = 0; l < CostModel.LAYOUTS.size(); l++) {
      for (Lifecycle lifecycle : Lifecycle.values()) {
        List<String> points = new ArrayList<>();
        for (LayoutCost c : costs) {
          if (c.layout().equals(CostModel.LAYOUTS.get(l)) && c.lifecycle() == lifecycle) {
            double x = px + (Math.log10(c.subjects()) - xLo) / (xHi - xLo) * PLOT_WIDTH;
            double v = Math.log10(Math.max(1, metric.applyAsLong(c)));
            double y = TOP + PLOT_HEIGHT - (v - yLo) / (yHi - yLo) * PLOT_HEIGHT;
            points.add(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
          }
        }
        svg.append(
            String.format(
                Locale.ROOT,
                "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                String.join(" ", points),
                COLORS[l],
                lifecycle == Lifecycle.EPHEMERAL ? " stroke-dasharray=\"6,4\"" : ""));
        for (String p : points) {
          String[] xy = p.split(",");
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<circle cx=\"%s\" cy=\"%s\" r=\"3\" fill=\"%s\"/>%n",
                  xy[0],
                  xy[1],
                  COLORS[l]));
        }
      }
    }
  }

  private static void legend(StringBuilder svg, int y) {
    // one row per layout, one column per lifecycle, so long labels never run off the picture
    for (int l = 0; l < CostModel.LAYOUTS.size(); l++) {
      int x = LEFT;
      for (Lifecycle lifecycle : Lifecycle.values()) {
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n"
                    + "<text x=\"%d\" y=\"%d\">%s, %s intermediates</text>%n",
                x,
                y,
                x + 30,
                y,
                COLORS[l],
                lifecycle == Lifecycle.EPHEMERAL ? " stroke-dasharray=\"6,4\"" : "",
                x + 36,
                y + 4,
                CostModel.layoutLabel(CostModel.LAYOUTS.get(l)),
                lifecycle.label()));
        x += PANEL_WIDTH + 20;
      }
      y += 18;
    }
  }

  /** 10^e bytes with an SI prefix: 1 kB, 10 MB... */
  private static String si(int e) {
    String[] units = {"B", "kB", "MB", "GB", "TB"};
    int unit = Math.min(units.length - 1, Math.max(0, e / 3));
    long mantissa = (long) Math.pow(10, e - unit * 3);
    return mantissa + " " + units[unit];
  }
}
