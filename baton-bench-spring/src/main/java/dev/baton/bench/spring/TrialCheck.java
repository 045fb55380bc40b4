package dev.baton.bench.spring;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Keeps a benchmark trial honest: counts its calls and, at the end, fails the trial if the work did not run once per
 * call (some calls were skipped, their lock not acquired) or if the calls did not reach Redis at least once each (the
 * annotation was not applied, so nothing was guarded). A failed trial reports no figure. It also records, per call
 * over the whole trial (warm-up included), the Redis commands, the CPU time of the benchmark JVM and that of the
 * Redis server: on a shared machine CPU time moves less than wall time, since it does not count waiting for a core.
 * One thread.
 */
final class TrialCheck implements AutoCloseable {
    private final WorkCounter work;
    private final String contender;
    private final long runsBefore;
    private final RedisStats redis;
    private final Map<String, Long> commandsBefore;
    private final double redisCpuBefore;
    private final long clientCpuBefore;
    private long calls;

    TrialCheck(WorkCounter work, String contender, String redisUri) {
        this.work = work;
        this.contender = contender;
        this.runsBefore = work.runs();
        this.redis = new RedisStats(redisUri);
        this.commandsBefore = redis.commands();
        this.redisCpuBefore = redis.cpuSeconds();
        this.clientCpuBefore = processCpuNanos();
    }

    /** Counts one call. */
    void called() {
        calls++;
    }

    /**
     * Fails if the work did not run once per call or the calls sent Redis less than a command each; otherwise
     * appends the costs per call to {@code statsFile}, if given, as one line: benchmark, contender, commands per
     * call, their breakdown, client CPU µs per call and Redis CPU µs per call, tab-separated.
     *
     * @param benchmark the benchmark's name in the report
     * @param statsFile where to append, or null
     * @throws IllegalStateException naming the contender and the counts
     */
    void verify(String benchmark, Path statsFile) {
        long runs = work.runs() - runsBefore;
        if (runs != calls) {
            throw new IllegalStateException(contender + ": " + calls + " calls but the work ran " + runs
                    + " times: some calls were skipped or ran unguarded");
        }
        Map<String, Long> sent = new TreeMap<>();
        long clientCpu = processCpuNanos() - clientCpuBefore;
        double redisCpu = redis.cpuSeconds() - redisCpuBefore;
        redis.commands().forEach((name, total) -> {
            long delta = total - commandsBefore.getOrDefault(name, 0L);
            if (delta > 0) {
                sent.put(name, delta);
            }
        });
        long total = sent.values().stream().mapToLong(Long::longValue).sum();
        if (calls == 0 || total < calls) {
            throw new IllegalStateException(contender + ": " + calls + " calls sent Redis " + total
                    + " commands: the calls were not guarded");
        }
        if (statsFile != null) {
            StringJoiner breakdown = new StringJoiner(", ");
            sent.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> breakdown.add(String.format(Locale.ROOT, "%s %.2f", e.getKey(),
                            (double) e.getValue() / calls)));
            String line = String.join("\t", benchmark, contender,
                    String.format(Locale.ROOT, "%.3f", (double) total / calls), breakdown.toString(),
                    String.format(Locale.ROOT, "%.3f", clientCpu / 1e3 / calls),
                    String.format(Locale.ROOT, "%.3f", redisCpu * 1e6 / calls)) + "\n";
            try {
                Files.writeString(statsFile, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new IllegalStateException("cannot append to " + statsFile, e);
            }
        }
    }

    /** The CPU time of this whole JVM: the calling thread, the clients' event loops, JIT and GC. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    @Override
    public void close() {
        redis.close();
    }
}
