package dev.baton.test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The last lines of the logs of a topology's nodes, for failure messages: they usually say why a wait failed. */
final class NodeLogs {

    private static final int LINES_PER_NODE = 12;
    private static final int MAX_BYTES_PER_NODE = 8_192;

    private NodeLogs() {
    }

    /**
     * Renders, for each labelled node, a header and the last lines of its log. Never throws: an unreadable log is
     * reported in its place.
     *
     * @param nodes node labels (e.g. {@code "sentinel 1"}) and their servers, in the order to print them
     */
    static String tails(Map<String, RedisServer> nodes) {
        StringBuilder out = new StringBuilder();
        nodes.forEach((label, server) -> out.append("\n--- ").append(label).append(' ').append(server)
                .append(", last lines of ").append(server.logFile()).append(":\n").append(tail(server)));
        return out.toString();
    }

    private static String tail(RedisServer server) {
        try (RandomAccessFile file = new RandomAccessFile(server.logFile().toFile(), "r")) {
            long length = file.length();
            long start = Math.max(0, length - MAX_BYTES_PER_NODE);
            byte[] bytes = new byte[(int) (length - start)];
            file.seek(start);
            file.readFully(bytes);
            List<String> lines = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).strip().split("\r?\n"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LINES_PER_NODE), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(log unavailable: " + e + ")";
        }
    }
}
