package dev.baton.demo;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One line a {@link DemoWorker} prints on stdout for its parent: {@code baton-demo <kind> key=value ...}. Anything
 * else on stdout (there should be nothing) is not a message, so a stray library print cannot confuse the parent.
 */
sealed interface WorkerMessage permits WorkerMessage.Ready, WorkerMessage.Progress, UnlockedReport, WorkerReport {

    String PREFIX = "baton-demo ";

    /** The line to print, without line terminator. */
    String toLine();

    /** Connected to Redis and waiting for {@code go} on stdin. */
    record Ready() implements WorkerMessage {
        @Override
        public String toLine() {
            return PREFIX + "ready";
        }
    }

    /**
     * Acquisitions done so far (increments, in the run without the lock).
     *
     * @param acquired acquisitions completed by this worker in the current run
     * @param token    fencing token of the latest one (0 without the lock)
     */
    record Progress(int acquired, long token) implements WorkerMessage {
        @Override
        public String toLine() {
            return PREFIX + "progress acquired=" + acquired + " token=" + token;
        }
    }

    /**
     * Parses a line, or returns empty if it is not a well-formed message.
     */
    static Optional<WorkerMessage> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] words = line.substring(PREFIX.length()).strip().split(" +");
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }
        try {
            return Optional.ofNullable(switch (words[0]) {
                case "ready" -> new Ready();
                case "progress" -> new Progress(Integer.parseInt(fields.get("acquired")),
                        Long.parseLong(fields.get("token")));
                case "unlocked-done" -> new UnlockedReport(Integer.parseInt(fields.get("increments")),
                        Integer.parseInt(fields.get("violations")));
                case "done" -> new WorkerReport(Integer.parseInt(fields.get("acquisitions")),
                        Long.parseLong(fields.get("first-token")), Long.parseLong(fields.get("last-token")),
                        Integer.parseInt(fields.get("violations")));
                default -> null;
            });
        } catch (NumberFormatException e) { // also thrown for a missing field: parseInt(null)
            return Optional.empty();
        }
    }
}
