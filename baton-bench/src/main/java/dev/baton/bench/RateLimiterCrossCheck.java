package dev.baton.bench;

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
 * turn (rotating who goes first), so a burst of outside load hits all of them alike. Only decisions per second are
 * measured; the ratio between contenders is what this is for.
 */
final class RateLimiterCrossCheck {
    private static final int THREADS = 8;

    private RateLimiterCrossCheck() {
    }

    /**
     * Decisions per second of every slice, by contender, for one scenario: one limiter of
     * {@link RateLimiterContender.Rate#ONE_KEY} ({@code keys == 1}) or {@code keys} limiters of
     * {@link RateLimiterContender.Rate#PER_KEY} picked at random.
     */
    static Map<String, List<Double>> run(String uri, int keys, int slices, Duration warmup, Duration slice)
            throws Exception {
        List<String> kinds = RateLimiterContender.LIMITERS;
        RateLimiterContender.Rate rate = keys == 1 ? RateLimiterContender.Rate.ONE_KEY
                : RateLimiterContender.Rate.PER_KEY;
        Map<String, RateLimiterContender> clients = new LinkedHashMap<>();
        Map<String, RateLimiterContender.Limiter[]> limiters = new LinkedHashMap<>();
        Map<String, List<Double>> results = new LinkedHashMap<>();
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
                results.put(kind, new ArrayList<>());
            }
            for (String kind : kinds) {
                slice(threads, limiters.get(kind), warmup);
            }
            for (int s = 0; s < slices; s++) {
                for (int k = 0; k < kinds.size(); k++) {
                    String kind = kinds.get((s + k) % kinds.size());
                    results.get(kind).add(slice(threads, limiters.get(kind), slice));
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

    /** 8 threads decide as fast as they can for {@code duration}; returns decisions per second. */
    private static double slice(ExecutorService threads, RateLimiterContender.Limiter[] limiters, Duration duration)
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
        return total / ((System.nanoTime() - start) / 1e9);
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
