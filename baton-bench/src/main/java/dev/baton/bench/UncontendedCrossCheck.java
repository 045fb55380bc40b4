package dev.baton.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * A cross-check of scenario (a) that is less exposed to a noisy machine than JMH's one-contender-after-another
 * order: the floor, Baton and Redisson run in short alternating slices in one JVM (rotating who goes first), so a
 * burst of outside load hits all of them alike. Every operation is timed. Two script floors run with them (two
 * EVALSHAs of {@code return 1}; two that SET and DEL the key), to show how much of the gap to the PING floor any
 * lock made of two Lua scripts pays.
 */
final class UncontendedCrossCheck {
    private static final int CAPACITY = 1 << 21;

    /** One contender's slices. */
    static final class Result {
        final List<Double> opsPerSlice = new ArrayList<>();
        final List<long[]> latencies = new ArrayList<>();

        double medianOps() {
            return RateLimiterCrossCheck.median(opsPerSlice);
        }

        Percentiles latency() {
            return Percentiles.pooled(latencies);
        }
    }

    private UncontendedCrossCheck() {
    }

    static Map<String, Result> run(String uri, int slices, Duration warmup, Duration slice) {
        List<String> kinds = List.of(Contender.PING_FLOOR, Contender.SCRIPT_FLOOR, Contender.WRITING_SCRIPT_FLOOR,
                Contender.BATON, Contender.REDISSON);
        Map<String, Contender> clients = new LinkedHashMap<>();
        Map<String, Lock> locks = new LinkedHashMap<>();
        Map<String, Result> results = new LinkedHashMap<>();
        try {
            for (String kind : kinds) {
                Contender client = Contender.open(kind, uri);
                clients.put(kind, client);
                locks.put(kind, client.lock("bench:a-check:" + kind));
                results.put(kind, new Result());
            }
            for (String kind : kinds) {
                measure(locks.get(kind), warmup, new long[CAPACITY]);
            }
            long[] buffer = new long[CAPACITY];
            for (int s = 0; s < slices; s++) {
                for (int k = 0; k < kinds.size(); k++) {
                    String kind = kinds.get((s + k) % kinds.size());
                    long start = System.nanoTime();
                    int n = measure(locks.get(kind), slice, buffer);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    Result r = results.get(kind);
                    r.opsPerSlice.add(n / seconds);
                    r.latencies.add(Arrays.copyOf(buffer, Math.min(n, CAPACITY)));
                }
            }
            return results;
        } finally {
            for (Contender client : clients.values()) {
                client.close();
            }
        }
    }

    /** Runs lock()+unlock() for {@code duration}; returns the operation count, their times in {@code nanos}. */
    static int measure(Lock lock, Duration duration, long[] nanos) {
        int n = 0;
        long end = System.nanoTime() + duration.toNanos();
        while (true) {
            long t0 = System.nanoTime();
            lock.lock();
            lock.unlock();
            long t1 = System.nanoTime();
            if (n < nanos.length) {
                nanos[n] = t1 - t0;
            }
            n++;
            if (t1 >= end) {
                return n;
            }
        }
    }
}
