package dev.baton.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A cross-check of the rate-limiter scenarios that is less exposed to a noisy machine than JMH's
 * one-contender-after-another forks: every contender is open in this JVM, and 8 threads run short slices on each in
 * turn (rotating who goes first), so a burst of outside load hits all of them alike. It measures decisions per second,
 * and the CPU each decision costs this JVM (all its threads: callers, Lettuce's or Redisson's event loops, JIT, GC)
 * and the Redis server. The ratios between contenders are what this is for.
 *
 * <p>CPU per decision matters because 8 blocking threads need not keep two cores busy: a contender that is cheaper
 * per decision can end up waiting on thread wake-ups rather than on the CPU, so its decisions/s understates how much
 * less machine it needs.
 */
final class RateLimiterCrossCheck {
    static final int THREADS = 8;
    /** Linux reports a process's CPU time in /proc in ticks of 1/100 s (USER_HZ). */
    private static final long NANOS_PER_TICK = 10_000_000;

    /** One contender's slices: decisions per second, and µs of CPU per decision in this JVM and in Redis. */
    record Slices(List<Double> decisionsPerSecond, List<Double> clientCpuMicros, List<Double> redisCpuMicros) {
        Slices() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    private RateLimiterCrossCheck() {
    }

    /**
     * Decisions per second of every slice, by contender, for one scenario: one limiter of
     * {@link RateLimiterContender.Rate#ONE_KEY} ({@code keys == 1}) or {@code keys} limiters of
     * {@link RateLimiterContender.Rate#PER_KEY} picked at random.
     */
    static Map<String, Slices> run(String uri, long redisPid, int keys, int slices, Duration warmup, Duration slice)
            throws Exception {
        List<String> kinds = RateLimiterContender.LIMITERS;
        RateLimiterContender.Rate rate = keys == 1 ? RateLimiterContender.Rate.ONE_KEY
                : RateLimiterContender.Rate.PER_KEY;
        Map<String, RateLimiterContender> clients = new LinkedHashMap<>();
        Map<String, RateLimiterContender.Limiter[]> limiters = new LinkedHashMap<>();
        Map<String, Slices> results = new LinkedHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            for (String kind : kinds) {
                RateLimiterContender client = RateLimiterContender.open(kind, uri);
                clients.put(kind, client);
                RateLimiterContender.Limiter[] own = new RateLimiterContender.Limiter[keys];
                for (int i = 0; i < keys; i++) {
                    own[i] = client.limiter("bench:x" + keys + ":" + kind + ":" + i, rate);
                }
                limiters.put(kind, own);
                results.put(kind, new Slices());
            }
            for (String kind : kinds) {
                slice(threads, limiters.get(kind), warmup);
            }
            for (int s = 0; s < slices; s++) {
                for (int k = 0; k < kinds.size(); k++) {
                    String kind = kinds.get((s + k) % kinds.size());
                    long client = clientCpuNanos();
                    long redis = redisCpuNanos(redisPid);
                    long start = System.nanoTime();
                    long decisions = slice(threads, limiters.get(kind), slice);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    Slices r = results.get(kind);
                    r.decisionsPerSecond().add(decisions / seconds);
                    r.clientCpuMicros().add((clientCpuNanos() - client) / 1000.0 / decisions);
                    r.redisCpuMicros().add(redis < 0 ? Double.NaN
                            : (redisCpuNanos(redisPid) - redis) / 1000.0 / decisions);
                }
            }
            return results;
        } finally {
            threads.shutdownNow();
            for (RateLimiterContender client : clients.values()) {
                client.close();
            }
        }
    }

    /** 8 threads decide as fast as they can for {@code duration}; returns the number of decisions. */
    static long slice(ExecutorService threads, RateLimiterContender.Limiter[] limiters, Duration duration)
            throws Exception {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            counts.add(threads.submit(() -> {
                long n = 0;
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    limiters[limiters.length == 1 ? 0 : random.nextInt(limiters.length)].tryAcquire();
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> count : counts) {
            total += count.get();
        }
        return total;
    }

    private static long clientCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** User plus system CPU time of the Redis server so far, or -1 where /proc is not there (not Linux). */
    private static long redisCpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The median of the values (NaN if there are none); also used by {@link UncontendedCrossCheck}. */
    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
