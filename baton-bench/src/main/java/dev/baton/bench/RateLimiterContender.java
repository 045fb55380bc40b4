package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.RateLimit;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * One rate-limiter library on the shared Redis as a benchmark sees it: something that hands out limiters by name
 * for a given {@link Rate}, each answering "may I, now?" with one permit. The scenario bodies are written once
 * against {@link Limiter}, so every contender runs exactly the same loop.
 *
 * <ul>
 *   <li>{@value #BATON}: one {@link Baton} with default settings; {@code baton.rateLimiter(name, limit)} with a GCRA
 *       {@link RateLimit} of {@code permits} per {@code period} and the given burst, {@code tryAcquire()}. Its keys
 *       expire by themselves once the limit is back to full.</li>
 *   <li>{@value #REDISSON}: one {@link RedissonClient} with default settings; {@code RRateLimiter} set up once per
 *       name with {@code trySetRate(RateType.OVERALL, permits, period)} (Redisson's burst is always the rate), then
 *       {@code tryAcquire()}. No keep-alive time: its keys stay until deleted.</li>
 *   <li>{@value #REDISSON_KEEP_ALIVE}: the same with {@code trySetRate(OVERALL, permits, period, keepAliveTime =
 *       period)}, the shortest keep-alive Redisson accepts; only the memory measurement uses it.</li>
 *   <li>{@value #BUCKET4J}: Bucket4j's Lettuce integration, the only flavour it has for Lettuce
 *       ({@code Bucket4jLettuce.casBasedBuilder(RedisClient)}: a {@code GET} of the state, then a compare-and-swap
 *       {@code EVAL}, retried when another client wrote in between), one proxy manager (one Lettuce connection) for
 *       all threads, keys expiring {@code basedOnTimeForRefillingBucketUpToMax(0)} (when the bucket would be full
 *       again); each bucket has one bandwidth of capacity {@code burst}, refilled greedily (continuously) with
 *       {@code permits} per {@code period}, and {@code tryConsume(1)}.</li>
 * </ul>
 */
abstract class RateLimiterContender implements AutoCloseable {
    static final String BATON = "baton";
    /** Baton with a new limiter object for every call, so that every decision runs the script. */
    static final String BATON_SCRIPT = "baton-script";
    static final String REDISSON = "redisson";
    static final String REDISSON_KEEP_ALIVE = "redisson-keepalive";
    static final String BUCKET4J = "bucket4j";

    /** The rate-limiter libraries the throughput scenarios compare. */
    static final List<String> LIMITERS = List.of(BATON, BATON_SCRIPT, REDISSON, BUCKET4J);

    /** Whether the contender is one of Baton's, not a peer. */
    static boolean isBaton(String kind) {
        return kind.equals(BATON) || kind.equals(BATON_SCRIPT);
    }

    /** {@code permits} per {@code period}, at most {@code burst} at once: the same limit for every contender. */
    record Rate(long permits, Duration period, long burst) {
        /**
         * Scenario (r1): 8 threads on one limiter ask for several times this, so most requests are refused. The
         * rate matters for the comparison: a contender that decides in the client from a read of the state
         * (Bucket4j) pays little for a refusal and much for a contended grant, so the fewer grants, the better it
         * looks (see docs/benchmarks.md).
         */
        static final Rate ONE_KEY = new Rate(1_000, Duration.ofSeconds(1), 1_000);
        /** Scenario (r2) and the memory measurement: spread over 10,000 limiters, nearly every request passes. */
        static final Rate PER_KEY = new Rate(100, Duration.ofSeconds(1), 100);

        /** Time for an emptied limit to be full again: {@code burst × period / permits}. */
        Duration fullRefill() {
            return period.multipliedBy(burst).dividedBy(permits);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d per %s, burst %,d", permits, human(period), burst);
        }
    }

    /** One limiter of one contender. */
    @FunctionalInterface
    interface Limiter {
        /** Asks for one permit now, never waiting; true if granted. */
        boolean tryAcquire();
    }

    /** Opens a contender of the given kind against the standalone server at {@code uri}. */
    static RateLimiterContender open(String kind, String uri) {
        return open(kind, RedisTarget.standalone(uri));
    }

    /** Opens a contender of the given kind against a target; Bucket4j's contender needs a standalone server. */
    static RateLimiterContender open(String kind, RedisTarget target) {
        switch (kind.toLowerCase(Locale.ROOT)) {
            case BATON:
                return new BatonLimiters(target, false);
            case BATON_SCRIPT:
                return new BatonLimiters(target, true);
            case REDISSON:
                return new RedissonLimiters(target, false);
            case REDISSON_KEEP_ALIVE:
                return new RedissonLimiters(target, true);
            case BUCKET4J:
                return new Bucket4jLimiters(target.uri());
            default:
                throw new IllegalArgumentException("unknown rate-limiter contender '" + kind + "', expected one of "
                        + List.of(BATON, BATON_SCRIPT, REDISSON, REDISSON_KEEP_ALIVE, BUCKET4J));
        }
    }

    /** How the contender is configured for {@code rate}, for the report. */
    static String describe(String kind, Rate rate) {
        String p = human(rate.period());
        return switch (kind) {
            case BATON -> "`baton.rateLimiter(name, RateLimit.builder(" + rate.permits() + ", " + p + ").burst("
                    + rate.burst() + ").build())` (GCRA), `tryAcquire()`";
            case BATON_SCRIPT -> "as baton, but a new `baton.rateLimiter(...)` object for every call, so that no"
                    + " refusal is repeated from memory: every decision is one script call";
            case REDISSON -> "`trySetRate(RateType.OVERALL, " + rate.permits() + ", " + p
                    + ")` once per name, `tryAcquire()`";
            case REDISSON_KEEP_ALIVE -> "`trySetRate(RateType.OVERALL, " + rate.permits() + ", " + p + ", " + p
                    + ")` (keepAliveTime " + p + ", the least allowed), `tryAcquire()`";
            case BUCKET4J -> "`Bucket4jLettuce.casBasedBuilder(redisClient).expirationAfterWrite("
                    + "basedOnTimeForRefillingBucketUpToMax(0 s))`, bandwidth `capacity(" + rate.burst()
                    + ").refillGreedy(" + rate.permits() + ", " + p + ")`, `tryConsume(1)`";
            default -> kind;
        };
    }

    /**
     * The limiter of this name for {@code rate}. Baton and Bucket4j make no Redis call here; Redisson sends its
     * {@code trySetRate} (one script call) the first time a name is used.
     */
    abstract Limiter limiter(String name, Rate rate);

    @Override
    public abstract void close();

    static String human(Duration d) {
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + " s";
        }
        return d.toMillis() + " ms";
    }

    private static final class BatonLimiters extends RateLimiterContender {
        private final Baton baton;
        private final boolean freshObjects;

        BatonLimiters(RedisTarget target, boolean freshObjects) {
            this.baton = Baton.connect(target.baton());
            this.freshObjects = freshObjects;
        }

        @Override
        Limiter limiter(String name, Rate rate) {
            RateLimit limit = RateLimit.builder(rate.permits(), rate.period()).burst(rate.burst()).build();
            if (freshObjects) {
                return () -> baton.rateLimiter(name, limit).tryAcquire().allowed();
            }
            dev.baton.RateLimiter limiter = baton.rateLimiter(name, limit);
            return () -> limiter.tryAcquire().allowed();
        }

        @Override
        public void close() {
            baton.close();
        }
    }

    private static final class RedissonLimiters extends RateLimiterContender {
        private final RedissonClient redisson;
        private final boolean keepAlive;

        RedissonLimiters(RedisTarget target, boolean keepAlive) {
            this.redisson = Redisson.create(target.redisson());
            this.keepAlive = keepAlive;
        }

        @Override
        Limiter limiter(String name, Rate rate) {
            if (rate.burst() != rate.permits()) {
                throw new IllegalArgumentException("Redisson's RRateLimiter has no burst apart from its rate: " + rate);
            }
            RRateLimiter limiter = redisson.getRateLimiter(name);
            if (keepAlive) {
                limiter.trySetRate(RateType.OVERALL, rate.permits(), rate.period(), rate.period());
            } else {
                limiter.trySetRate(RateType.OVERALL, rate.permits(), rate.period());
            }
            return limiter::tryAcquire;
        }

        @Override
        public void close() {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static final class Bucket4jLimiters extends RateLimiterContender {
        private final RedisClient client;
        private final ProxyManager<byte[]> buckets;

        Bucket4jLimiters(String uri) {
            this.client = RedisClient.create(uri);
            this.buckets = Bucket4jLettuce.casBasedBuilder(client)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ZERO))
                    .build();
        }

        @Override
        Limiter limiter(String name, Rate rate) {
            BucketConfiguration configuration = BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(rate.burst()).refillGreedy(rate.permits(), rate.period()))
                    .build();
            io.github.bucket4j.Bucket bucket =
                    buckets.builder().build(name.getBytes(StandardCharsets.UTF_8), () -> configuration);
            return () -> bucket.tryConsume(1);
        }

        @Override
        public void close() {
            // The proxy manager's connection belongs to the client: shutting the client down closes it.
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
