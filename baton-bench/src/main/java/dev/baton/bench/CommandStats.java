package dev.baton.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Calls per command from {@code INFO commandstats}, without the benchmark harness' own {@code INFO} and
 * {@code CONFIG RESETSTAT}.
 *
 * <p>Redis counts a command run inside a Lua script as well as the script command itself: one {@code EVALSHA} whose
 * script calls {@code HSET} and {@code PEXPIRE} shows as three calls. The totals here are therefore "commands Redis
 * executed", not round trips; {@link ProtocolTrace} separates the two.
 */
final class CommandStats {
    /** Commands the harness sends itself; never counted against a contender. */
    private static final Set<String> HARNESS = Set.of("info", "config", "config|resetstat", "config|get");

    /** Commands whose server time includes the commands they run: scripts. */
    private static final Set<String> SCRIPTS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

    private final Map<String, Long> calls;
    private final Map<String, Long> usec;

    private CommandStats(Map<String, Long> calls, Map<String, Long> usec) {
        this.calls = Collections.unmodifiableMap(calls);
        this.usec = Collections.unmodifiableMap(usec);
    }

    static CommandStats empty() {
        return new CommandStats(new TreeMap<>(), new TreeMap<>());
    }

    /** Calls per command counted some other way (MONITOR), without times; harness commands left out. */
    static CommandStats of(Map<String, Long> calls) {
        Map<String, Long> copy = new TreeMap<>(calls);
        copy.keySet().removeIf(CommandStats::isHarness);
        return new CommandStats(copy, new TreeMap<>());
    }

    /** Parses the text of {@code INFO commandstats} ({@code cmdstat_NAME:calls=N,usec=...} lines). */
    static CommandStats parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        Map<String, Long> usec = new TreeMap<>();
        for (String raw : info.split("\\R")) {
            String line = raw.trim();
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), colon).toLowerCase(Locale.ROOT);
            for (String field : line.substring(colon + 1).split(",")) {
                if (field.startsWith("calls=")) {
                    calls.merge(name, Long.parseLong(field.substring("calls=".length())), Long::sum);
                } else if (field.startsWith("usec=")) {
                    usec.merge(name, Long.parseLong(field.substring("usec=".length())), Long::sum);
                }
            }
        }
        calls.keySet().removeIf(CommandStats::isHarness);
        usec.keySet().removeIf(CommandStats::isHarness);
        return new CommandStats(calls, usec);
    }

    private static boolean isHarness(String name) {
        return HARNESS.contains(name) || name.startsWith("config|");
    }

    CommandStats plus(CommandStats other) {
        Map<String, Long> sum = new TreeMap<>(calls);
        other.calls.forEach((k, v) -> sum.merge(k, v, Long::sum));
        Map<String, Long> time = new TreeMap<>(usec);
        other.usec.forEach((k, v) -> time.merge(k, v, Long::sum));
        return new CommandStats(sum, time);
    }

    Map<String, Long> calls() {
        return calls;
    }

    /** Microseconds Redis reports for the scripts (which include the commands they run), summed. */
    long scriptUsec() {
        return usec.entrySet().stream().filter(e -> SCRIPTS.contains(e.getKey())).mapToLong(Map.Entry::getValue)
                .sum();
    }

    long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Total calls divided by {@code ops}, or NaN without operations. */
    double perOp(long ops) {
        return ops == 0 ? Double.NaN : (double) total() / ops;
    }

    /** {@code "evalsha 2.00, hset 1.00"}: calls per operation, largest first, omitting those below 0.005. */
    String breakdown(long ops) {
        if (ops == 0) {
            return "";
        }
        Map<String, Long> sorted = calls.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            double per = (double) e.getValue() / ops;
            if (per < 0.005) {
                continue;
            }
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(e.getKey()).append(' ').append(String.format(Locale.ROOT, "%.2f", per));
            Long spent = usec.get(e.getKey());
            if (SCRIPTS.contains(e.getKey()) && spent != null && e.getValue() > 0) {
                out.append(String.format(Locale.ROOT, " (%.1f µs each in Redis)", (double) spent / e.getValue()));
            }
        }
        return out.toString();
    }

    /** {@code name=calls/usec;...}: the form stored in the stats file between JVMs. */
    String encode() {
        return calls.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue() + "/" + usec.getOrDefault(e.getKey(), 0L))
                .collect(Collectors.joining(";"));
    }

    static CommandStats decode(String text) {
        Map<String, Long> calls = new TreeMap<>();
        Map<String, Long> usec = new TreeMap<>();
        if (!text.isBlank()) {
            for (String pair : text.split(";")) {
                int eq = pair.lastIndexOf('=');
                String[] values = pair.substring(eq + 1).split("/");
                calls.put(pair.substring(0, eq), Long.parseLong(values[0]));
                usec.put(pair.substring(0, eq), values.length > 1 ? Long.parseLong(values[1]) : 0L);
            }
        }
        return new CommandStats(calls, usec);
    }

    @Override
    public String toString() {
        return calls.toString();
    }
}
