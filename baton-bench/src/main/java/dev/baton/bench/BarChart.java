package dev.baton.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A horizontal bar chart written as SVG by plain string building: a title, then one or more panels (a title with its
 * unit, and one labelled bar per contender, its figure printed beside it), then notes (date, load, command). Baton's
 * bars are blue, its peers' orange, the floors and references grey ({@link Kind#of}). Each panel has a scale of its
 * own; a bar more than {@value #OFF_SCALE}x the next largest of its panel (a rate limiter answering refusals locally)
 * is cut at the panel's edge and marked "off scale", so that the others stay readable.
 *
 * <p>A run writes one chart per primitive next to its report ({@link Report#charts()}); {@link MarkdownCharts} draws
 * the reference's charts from the tables of {@code docs/benchmarks.md}.
 */
final class BarChart {
    /** Whose bar it is: the colour of the bar and the legend. */
    enum Kind {
        BATON("Baton", "#2b6cb0"),
        PEER("peer", "#dd6b20"),
        FLOOR("floor / reference", "#a0aec0");

        final String legend;
        final String colour;

        Kind(String legend, String colour) {
            this.legend = legend;
            this.colour = colour;
        }

        /**
         * A floor or reference if the label says "floor" or is {@value Contender#BATON_SCRIPTS} (Baton's scripts
         * without Baton), Baton's if it says "baton", else a peer's.
         */
        static Kind of(String label) {
            String l = label.toLowerCase(Locale.ROOT);
            return l.contains("floor") || l.startsWith(Contender.BATON_SCRIPTS) ? FLOOR
                    : l.contains("baton") ? BATON : PEER;
        }
    }

    /** One bar: its label, its length and the figure printed beside it. */
    record Bar(String label, double value, String text) {
        Bar(String label, double value) {
            this(label, value, figure(value));
        }
    }

    /** One panel: a title (with the unit) and its bars, in the order given. */
    record Panel(String title, List<Bar> bars) {
    }

    /** A bar longer than this many times the next one of its panel is cut and marked off scale. */
    static final int OFF_SCALE = 5;
    private static final int WIDTH = 760;
    private static final int MARGIN = 16;
    private static final int ROW = 22;
    private static final int BAR = 15;
    private static final int VALUE_SPACE = 150;
    /** About the width of one character of the 12 px sans-serif labels. */
    private static final double CHAR = 6.8;

    private final String title;
    private final List<Panel> panels = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    BarChart(String title) {
        this.title = title;
    }

    String title() {
        return title;
    }

    List<Panel> panels() {
        return panels;
    }

    /** Adds a panel of the bars whose value is a number; a panel left without bars is not drawn. */
    BarChart panel(String panelTitle, List<Bar> bars) {
        List<Bar> drawn = bars.stream().filter(b -> !Double.isNaN(b.value()) && !Double.isInfinite(b.value()))
                .toList();
        if (!drawn.isEmpty()) {
            panels.add(new Panel(panelTitle, drawn));
        }
        return this;
    }

    /** Adds a line under the panels: where the figures come from. */
    BarChart note(String line) {
        notes.add(line);
        return this;
    }

    boolean isEmpty() {
        return panels.isEmpty();
    }

    void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, svg(), StandardCharsets.UTF_8);
    }

    /** Writes every chart to {@code dir/NAME.svg}, logging each. */
    static void writeAll(Map<String, BarChart> charts, Path dir) throws IOException {
        for (Map.Entry<String, BarChart> e : charts.entrySet()) {
            Path file = dir.resolve(e.getKey() + ".svg");
            e.getValue().write(file);
            BenchMain.log("chart written to " + file);
        }
    }

    String svg() {
        int longest = panels.stream().flatMap(p -> p.bars().stream()).mapToInt(b -> b.label().length()).max()
                .orElse(0);
        int labelWidth = (int) Math.min(320, Math.max(90, longest * CHAR + 10));
        int labelChars = (int) Math.ceil((labelWidth - 10) / CHAR);
        int barSpace = WIDTH - 2 * MARGIN - labelWidth - VALUE_SPACE;
        StringBuilder body = new StringBuilder();
        int y = 28;
        body.append(text(MARGIN, y, "title", title));
        y += 10;
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        panels.forEach(p -> p.bars().forEach(b -> kinds.add(Kind.of(b.label()))));
        int x = MARGIN;
        for (Kind kind : kinds) {
            body.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                    x, y + 4, kind.colour)).append(text(x + 14, y + 13, "note", kind.legend));
            x += 14 + (int) (kind.legend.length() * CHAR) + 18;
        }
        y += 22;
        for (Panel panel : panels) {
            y += 18;
            body.append(text(MARGIN, y, "panel", panel.title()));
            y += 8;
            double scale = scale(panel.bars());
            for (Bar bar : panel.bars()) {
                boolean cut = bar.value() > scale;
                double length = scale <= 0 ? 0 : Math.min(bar.value(), scale) / scale * barSpace;
                int barX = MARGIN + labelWidth;
                String label = bar.label().length() <= labelChars ? bar.label()
                        : bar.label().substring(0, labelChars - 1) + "…";
                body.append(text(barX - 8, y + BAR - 3, "label", label));
                body.append(String.format(Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", barX, y,
                        Math.max(length, 1), BAR, Kind.of(bar.label()).colour));
                if (cut) {
                    double breakX = barX + length - 18;
                    body.append(String.format(Locale.ROOT, "<path d=\"M%.1f %d l6 %d M%.1f %d l6 %d\""
                                    + " stroke=\"#fff\" stroke-width=\"2\"/>", breakX, y - 1, BAR + 2, breakX + 6,
                            y - 1, BAR + 2));
                }
                body.append(text(barX + length + 6, y + BAR - 3, "value",
                        bar.text() + (cut ? " (off scale)" : "")));
                y += ROW;
            }
        }
        y += 8;
        for (String note : notes) {
            y += 16;
            body.append(text(MARGIN, y, "note", note));
        }
        y += 14;
        return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                        + " viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\">%n"
                        + "<style>.title{font-size:16px;font-weight:bold}.panel{font-size:13px;font-weight:bold}"
                        + ".label{font-size:12px;text-anchor:end}.value{font-size:12px}"
                        + ".note{font-size:11px;fill:#4a5568}</style>%n"
                        + "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>%n", WIDTH, y, WIDTH, y)
                + body.toString().replace("><", ">\n<") + "\n</svg>\n";
    }

    /** The value the full bar length stands for: the largest, or the next largest when the largest is off scale. */
    private static double scale(List<Bar> bars) {
        double[] v = bars.stream().mapToDouble(Bar::value).sorted().toArray();
        double max = v[v.length - 1];
        if (v.length >= 2 && v[v.length - 2] > 0 && max > OFF_SCALE * v[v.length - 2]) {
            return v[v.length - 2] * 1.25;
        }
        return max;
    }

    private static String text(double x, int y, String style, String content) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"%s\">%s</text>", x, y, style,
                escape(content));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A figure as the report prints it: thousands separated from 100 up, one decimal from 10, two below. */
    static String figure(double v) {
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%,.0f" : a >= 10 ? "%.1f" : "%.2f", v);
    }
}
