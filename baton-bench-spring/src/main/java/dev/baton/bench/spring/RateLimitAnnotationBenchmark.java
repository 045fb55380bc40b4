package dev.baton.bench.spring;

import dev.baton.Baton;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.openjdk.jmh.annotations.Param;
import redis.clients.jedis.JedisPool;

/**
 * One thread asks for one permit of a limit it never exhausts (see {@link BenchLimits}), does the work, again and
 * again: the starter's {@code @RateLimited} against {@code RateLimiter.tryAcquire()} and against Bucket4j, directly
 * and behind Spring, all in one Spring Boot application on one Redis.
 *
 * <ul>
 *   <li>{@value #BATON_DIRECT}: {@code rateLimiter.tryAcquire()} on a limiter made once.</li>
 *   <li>{@value #BATON_ANNOTATED}: {@code @RateLimited(key = "'bench:rate:' + #user", limits = @Limit(...))}.</li>
 *   <li>{@value #BUCKET4J_DIRECT}: {@code bucket.tryConsume(1)} on a bucket of Bucket4j's Lettuce compare-and-swap
 *       proxy manager, made once.</li>
 *   <li>{@value #BUCKET4J_INTERCEPTOR}: the same proxy manager behind {@link Bucket4jLimitInterceptor}.</li>
 *   <li>{@value #BUCKET4J_JEDIS_DIRECT}: {@code bucket.tryConsume(1)} on Bucket4j's Jedis proxy manager built as
 *       Bucket4j's starter builds it, on the same pool.</li>
 *   <li>{@value #BUCKET4J_STARTER}: Bucket4j's Spring Boot starter, {@code @RateLimiting} (on Jedis, the only Redis
 *       client its method annotation works with).</li>
 * </ul>
 */
public class RateLimitAnnotationBenchmark extends GuardedCallBenchmark {
    static final String BATON_DIRECT = "baton-direct";
    static final String BATON_ANNOTATED = "baton-annotated";
    static final String BUCKET4J_DIRECT = "bucket4j-direct";
    static final String BUCKET4J_INTERCEPTOR = "bucket4j-interceptor";
    static final String BUCKET4J_JEDIS_DIRECT = "bucket4j-jedis-direct";
    static final String BUCKET4J_STARTER = "bucket4j-starter";

    /** Every contender, in the order of the report. */
    static final List<String> CONTENDERS = List.of(BATON_DIRECT, BATON_ANNOTATED, BUCKET4J_DIRECT,
            BUCKET4J_INTERCEPTOR, BUCKET4J_JEDIS_DIRECT, BUCKET4J_STARTER);

    /** Which contender this trial measures. */
    @Param({BATON_DIRECT, BATON_ANNOTATED, BUCKET4J_DIRECT, BUCKET4J_INTERCEPTOR, BUCKET4J_JEDIS_DIRECT,
            BUCKET4J_STARTER})
    public String contender;

    /** The benchmark, for JMH. */
    public RateLimitAnnotationBenchmark() {
        super(SpringBenchRun.RATE_LIMITS);
    }

    @Override
    protected String contender() {
        return contender;
    }

    @Override
    GuardedCall callOf(BenchApp app, WorkCounter work) {
        switch (contender) {
            case BATON_DIRECT: {
                RateLimiter limiter = app.bean(Baton.class).rateLimiter("bench:rate:direct",
                        RateLimit.of(BenchLimits.PERMITS_PER_SECOND, Duration.ofSeconds(1)));
                return () -> grantedThen(limiter.tryAcquire().allowed(), work, contender);
            }
            case BATON_ANNOTATED: {
                BatonLimitedCalls calls = app.bean(BatonLimitedCalls.class);
                return () -> calls.call("annotated");
            }
            case BUCKET4J_DIRECT: {
                @SuppressWarnings("unchecked")
                ProxyManager<byte[]> buckets = app.bean("bucket4jLettuceBuckets", ProxyManager.class);
                return consumeThen(buckets, "bench:b4j:direct", work, contender);
            }
            case BUCKET4J_INTERCEPTOR: {
                Bucket4jInterceptedCalls calls = app.bean(Bucket4jInterceptedCalls.class);
                return () -> calls.call("intercepted");
            }
            case BUCKET4J_JEDIS_DIRECT: {
                ProxyManager<byte[]> buckets = Bucket4jJedis.casBasedBuilder(app.bean(JedisPool.class))
                        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                                Duration.ofSeconds(10)))
                        .build();
                return consumeThen(buckets, "bench:b4j-jedis:direct", work, contender);
            }
            case BUCKET4J_STARTER: {
                Bucket4jStarterCalls calls = app.bean(Bucket4jStarterCalls.class);
                return () -> calls.call("starter");
            }
            default:
                throw new IllegalArgumentException("contender: unknown rate-limit contender '" + contender
                        + "', expected one of " + CONTENDERS);
        }
    }

    private static GuardedCall consumeThen(ProxyManager<byte[]> buckets, String key, WorkCounter work,
                                           String contender) {
        Bucket bucket = buckets.builder().build(key.getBytes(StandardCharsets.UTF_8), BenchLimits::bucket4j);
        return () -> grantedThen(bucket.tryConsume(1), work, contender);
    }

    /** Works if granted; a refusal is a broken benchmark, since the limit is never reached. */
    private static void grantedThen(boolean granted, WorkCounter work, String contender) {
        if (!granted) {
            throw new IllegalStateException(contender + " refused a permit of a limit it should never reach");
        }
        work.run();
    }
}
