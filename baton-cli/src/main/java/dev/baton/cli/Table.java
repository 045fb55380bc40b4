package dev.baton.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * An aligned text table for people: a header row and columns padded to their widest cell, two spaces apart. Cells
 * are plain text (colour is applied after padding, so escapes never skew the alignment).
 */
public final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    /**
     * A table with these column titles.
     *
     * @param header the column titles
     */
    public Table(String... header) {
        this.header = List.of(header);
    }

    /**
     * Adds a row.
     *
     * @param cells one cell per column (null is shown as {@code -})
     * @return this table
     * @throws IllegalArgumentException if the number of cells differs from the number of columns
     */
    public Table row(Object... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + header.size() + " columns");
        }
        List<String> row = new ArrayList<>(cells.length);
        for (Object c : cells) {
            row.add(c == null ? "-" : c.toString());
        }
        rows.add(row);
        return this;
    }

    /**
     * Whether no row was added.
     *
     * @return true if the table has only its header
     */
    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /**
     * Prints the header (in bold on a terminal) and the rows.
     *
     * @param out    where to print
     * @param output the output options, for colour
     */
    public void print(PrintWriter out, OutputOptions output) {
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
            for (List<String> row : rows) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        out.println(output.bold(line(header, width)));
        for (List<String> row : rows) {
            out.println(line(row, width));
        }
    }

    private static String line(List<String> cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            sb.append(cell);
            if (i < cells.size() - 1) {
                sb.append(" ".repeat(width[i] - cell.length() + 2));
            }
        }
        return sb.toString();
    }
}
