package dev.baton.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws the charts of a Markdown document from its own tables ({@code --charts-from FILE}), so that a chart and the
 * table beside it show the same figures. A comment (on one line or several) before a table asks for a chart:
 *
 * <pre>
 * &lt;!-- chart: lock-uncontended; title: Plain lock, uncontended; value: ops/s (median) | p50 µs;
 *      panel: Measured by; label: Contender; note: run 8, 2026-11-24; command: java -jar benchmarks.jar --&gt;
 * | Measured by | Contender | ops/s (median) | p50 µs |
 * ...
 * </pre>
 *
 * <ul>
 *   <li>{@code chart}: the file name, without {@code .svg}; comments that name the same chart add panels to it;</li>
 *   <li>{@code value}: the column or columns ({@code |} between them) that become bars, one panel each; a cell's
 *       first number is the bar ({@code 6,997}, {@code **2.40x**}, {@code 1,401 ms}); a cell without one, no bar;</li>
 *   <li>{@code label}: the column or columns (joined by a space) that name a bar, {@code Contender} by default;</li>
 *   <li>{@code panel} (optional): a column whose values split the rows into panels, in the order they come;</li>
 *   <li>{@code title}, {@code note} and {@code command} (optional, the first comment's): the chart's title, and
 *       its last lines: where the figures come from, and the command that produced them.</li>
 * </ul>
 */
final class MarkdownCharts {
    private static final String MARKER = "<!-- chart:";
    private static final Pattern NUMBER = Pattern.compile("-?[0-9][0-9,]*(\\.[0-9]+)?");

    private MarkdownCharts() {
    }

    /**
     * {@code --charts-from FILE [--charts-dir DIR]}: writes each chart FILE asks for to {@code DIR/NAME.svg}; the
     * directory defaults to one named like FILE without its extension, beside it ({@code docs/benchmarks/}).
     */
    static void main(String[] args) throws IOException {
        if (args.length != 2 && args.length != 4 || !args[0].equals("--charts-from")
                || args.length == 4 && !args[2].equals("--charts-dir")) {
            throw new IllegalArgumentException("usage: --charts-from FILE.md [--charts-dir DIR]");
        }
        Path markdown = Path.of(args[1]);
        String name = markdown.getFileName().toString().replaceFirst("\\.[^.]*$", "");
        Path dir = args.length == 4 ? Path.of(args[3]) : markdown.toAbsolutePath().resolveSibling(name);
        Map<String, BarChart> charts = read(Files.readString(markdown, StandardCharsets.UTF_8));
        if (charts.isEmpty()) {
            throw new IllegalArgumentException(markdown + " asks for no chart (no <!-- chart: ... --> comment)");
        }
        BarChart.writeAll(charts, dir);
    }

    /** The charts a document asks for, by file name, in the order of their first comment. */
    static Map<String, BarChart> read(String markdown) {
        Map<String, BarChart> charts = new LinkedHashMap<>();
        List<String> lines = markdown.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).trim().startsWith(MARKER)) {
                continue;
            }
            int first = i;
            StringBuilder comment = new StringBuilder(lines.get(i).trim().substring("<!--".length()));
            while (!lines.get(i).contains("-->") && i + 1 < lines.size()) {
                comment.append(' ').append(lines.get(++i).trim());
            }
            Map<String, String> spec = fields(comment.substring(0, comment.indexOf("-->")));
            int start = i + 1;
            while (start < lines.size() && lines.get(start).isBlank()) {
                start++;
            }
            List<List<String>> table = new ArrayList<>();
            for (int j = start; j < lines.size() && lines.get(j).trim().startsWith("|"); j++) {
                table.add(cells(lines.get(j)));
            }
            if (table.size() < 3) {
                throw new IllegalArgumentException("chart " + spec.get("chart") + " (line " + (first + 1)
                        + "): no table after the comment");
            }
            BarChart chart = charts.computeIfAbsent(spec.get("chart"), k -> {
                BarChart c = new BarChart(spec.getOrDefault("title", k));
                for (String line : List.of("note", "command")) {
                    if (spec.containsKey(line)) {
                        c.note(spec.get(line));
                    }
                }
                return c;
            });
            addPanels(chart, spec, table.get(0), table.subList(2, table.size()));
        }
        return charts;
    }

    private static void addPanels(BarChart chart, Map<String, String> spec, List<String> header,
                                  List<List<String>> rows) {
        int[] label = columns(header, spec.getOrDefault("label", "Contender"), spec);
        int panel = spec.containsKey("panel") ? columns(header, spec.get("panel"), spec)[0] : -1;
        List<String> groups = new ArrayList<>();
        for (List<String> row : rows) {
            String group = panel < 0 ? "" : cell(row, panel);
            if (!groups.contains(group)) {
                groups.add(group);
            }
        }
        for (String group : groups) {
            for (int value : columns(header, spec.get("value"), spec)) {
                List<BarChart.Bar> bars = new ArrayList<>();
                for (List<String> row : rows) {
                    if (panel >= 0 && !cell(row, panel).equals(group)) {
                        continue;
                    }
                    Matcher number = NUMBER.matcher(cell(row, value));
                    if (number.find()) {
                        String name = String.join(" ", Arrays.stream(label).mapToObj(c -> cell(row, c)).toList());
                        bars.add(new BarChart.Bar(plain(name).trim(),
                                Double.parseDouble(number.group().replace(",", "")), plain(cell(row, value))));
                    }
                }
                chart.panel(group.isEmpty() ? plain(header.get(value)) : plain(group) + ": "
                        + plain(header.get(value)), bars);
            }
        }
    }

    /** {@code key: value} pairs separated by {@code ;}. */
    private static Map<String, String> fields(String spec) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String field : spec.split(";")) {
            int colon = field.indexOf(':');
            if (colon > 0) {
                fields.put(field.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        field.substring(colon + 1).trim());
            }
        }
        if (!fields.containsKey("value")) {
            throw new IllegalArgumentException("chart " + fields.get("chart") + ": no value column named");
        }
        return fields;
    }

    /** The indexes of the named columns ({@code |} between names). */
    private static int[] columns(List<String> header, String names, Map<String, String> spec) {
        return Arrays.stream(names.split("\\|")).map(String::trim).mapToInt(name -> {
            for (int c = 0; c < header.size(); c++) {
                if (plain(header.get(c)).equals(name)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("chart " + spec.get("chart") + ": no column '" + name + "' in "
                    + header);
        }).toArray();
    }

    /** The cells of a table row, split at the pipes that are not escaped. */
    private static List<String> cells(String line) {
        String row = line.trim();
        row = row.substring(1, row.endsWith("|") && !row.endsWith("\\|") ? row.length() - 1 : row.length());
        List<String> cells = new ArrayList<>();
        for (String cell : row.split("(?<!\\\\)\\|", -1)) {
            cells.add(cell.trim().replace("\\|", "|"));
        }
        return cells;
    }

    private static String cell(List<String> row, int column) {
        return column < row.size() ? row.get(column) : "";
    }

    /** A cell without its Markdown emphasis and code marks. */
    private static String plain(String cell) {
        return cell.replace("**", "").replace("`", "");
    }
}
