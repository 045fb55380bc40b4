package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.List;

/**
 * Redis memory per rate limiter, for one contender at a time on an emptied server: {@code used_memory} before and
 * after {@code N} limiters (distinct names, {@link RateLimiterContender.Rate#PER_KEY}) each took one decision,
 * divided by {@code N}, together with the number of keys per limiter. Measured twice:
 * <ul>
 *   <li><b>fresh</b>: right after the {@code N} decisions, with Redis' active expiry paused
 *       ({@code DEBUG SET-ACTIVE-EXPIRE 0}) while they are made and weighed, so that keys with a short TTL (one
 *       permit of a 100/s limit refills in 10 ms) are still there: the memory of limiters in use.</li>
 *   <li><b>idle</b>: with expiry running again, after the limiters have been left alone for longer than a full
 *       refill of their burst (at least {@link #MIN_IDLE}), polling {@code INFO keyspace} until the keys are gone
 *       or none of those left has a TTL (or {@link #MAX_IDLE} has passed): what idle limiters keep for good.</li>
 * </ul>
 * Only the keys are weighed, not the contender's connections: their buffers grow with traffic and shrink after
 * seconds of idleness, which would swamp a few hundred bytes per key. So a first client of the contender loads its
 * scripts into Redis and is closed, the database is flushed and the baseline taken with no contender connected;
 * a second client makes the {@code N} decisions and is closed before the fresh figure. The database is flushed
 * before and after, so contenders do not weigh each other's keys. Redis' main (and expiry) dictionary grows with
 * the keys, so its share (about 8-16 bytes per key each) is part of the figure.
 */
final class RateLimiterMemory {
    static final Duration MIN_IDLE = Duration.ofSeconds(2);
    static final Duration MAX_IDLE = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration SETTLE = Duration.ofMillis(300);

    /** What one contender left in Redis. */
    record Result(String contender, int limiters, long granted, boolean expiryPaused, double freshBytesPerLimiter,
                  double freshKeysPerLimiter, double freshKeysWithTtl, double idleBytesPerLimiter,
                  double idleKeysPerLimiter, Duration idleFor) {
    }

    private RateLimiterMemory() {
    }

    /**
     * Options for the benchmark's redis-server that let this measurement pause active expiry: {@code DEBUG} is off
     * by default since Redis 7 ({@code enable-debug-command}), an option that older servers do not know.
     */
    static List<String> serverOptions(RedisBinary binary) {
        try {
            int major = Integer.parseInt(binary.version().split("\\.")[0]);
            return major >= 7 ? List.of("--enable-debug-command", "local") : List.of();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /**
     * How long the idle figure waits at least by default: a full refill of the burst and a second more, at least
     * {@link #MIN_IDLE}.
     */
    static Duration idleAtLeast(RateLimiterContender.Rate rate) {
        return max(MIN_IDLE, rate.fullRefill().plusSeconds(1));
    }

    /**
     * Weighs {@code limiters} limiters of {@code kind}; the idle figure waits {@code idle} first, then polls until
     * the keys with a TTL are gone (at most {@link #MAX_IDLE} in all).
     */
    static Result measure(String kind, RedisServer server, int limiters, Duration idle) {
        RateLimiterContender.Rate rate = RateLimiterContender.Rate.PER_KEY;
        server.command("FLUSHALL", "SYNC");
        boolean paused = false;
        try {
            try (RateLimiterContender warm = RateLimiterContender.open(kind, server.uri())) {
                for (int i = 0; i < 3; i++) {
                    warm.limiter("bench:mem-warm:" + kind, rate).tryAcquire();
                }
            }
            server.command("FLUSHALL", "SYNC");
            paused = activeExpire(server, false);
            boolean pausedForFresh = paused;
            sleep(SETTLE);
            long before = usedMemory(server);

            long granted = 0;
            try (RateLimiterContender client = RateLimiterContender.open(kind, server.uri())) {
                for (int i = 0; i < limiters; i++) {
                    if (client.limiter("bench:mem:" + kind + ":" + i, rate).tryAcquire()) {
                        granted++;
                    }
                }
            }
            sleep(SETTLE);
            long fresh = usedMemory(server);
            long[] freshKeys = keyspace(server);

            if (paused) {
                activeExpire(server, true);
                paused = false;
            }
            long idleStart = System.nanoTime();
            sleep(idle);
            long[] idleKeys = keyspace(server);
            while (idleKeys[0] > 0 && idleKeys[1] > 0 && System.nanoTime() - idleStart < MAX_IDLE.toNanos()) {
                sleep(POLL);
                idleKeys = keyspace(server);
            }
            sleep(SETTLE);
            idleKeys = keyspace(server);
            long idleMemory = usedMemory(server);
            Duration idleFor = Duration.ofNanos(System.nanoTime() - idleStart);
            double n = limiters;
            return new Result(kind, limiters, granted, pausedForFresh, (fresh - before) / n, freshKeys[0] / n,
                    freshKeys[1] / n, (idleMemory - before) / n, idleKeys[0] / n, idleFor);
        } finally {
            if (paused) {
                activeExpire(server, true);
            }
            server.command("FLUSHALL", "SYNC");
        }
    }

    /** Switches Redis' active expiry; false if the server refuses {@code DEBUG}. */
    private static boolean activeExpire(RedisServer server, boolean on) {
        try {
            server.command("DEBUG", "SET-ACTIVE-EXPIRE", on ? "1" : "0");
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    static long usedMemory(RedisServer server) {
        return Long.parseLong(BenchMain.infoField(server.command("INFO", "memory"), "used_memory"));
    }

    /** {keys, keys with a TTL} of db 0. */
    static long[] keyspace(RedisServer server) {
        String db0 = BenchMain.infoField(server.command("INFO", "keyspace"), "db0");
        long keys = 0;
        long expires = 0;
        for (String field : db0.split(",")) {
            if (field.startsWith("keys=")) {
                keys = Long.parseLong(field.substring("keys=".length()));
            } else if (field.startsWith("expires=")) {
                expires = Long.parseLong(field.substring("expires=".length()));
            }
        }
        return new long[] {keys, expires};
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Redis", e);
        }
    }
}
