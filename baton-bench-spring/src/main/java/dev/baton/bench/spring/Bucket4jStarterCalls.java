package dev.baton.bench.spring;

import com.giffing.bucket4j.spring.boot.starter.context.RateLimiting;

/**
 * Bucket4j's Spring Boot starter doing the job of {@link BatonLimitedCalls}: {@code @RateLimiting} with a cache key
 * per user; the limit itself is configured under {@code bucket4j.methods[0]} (see {@link BenchApp}).
 */
public class Bucket4jStarterCalls {
    /** The name under {@code bucket4j.methods[*].name} that the annotation refers to. */
    static final String METHOD_NAME = "bench";

    private final WorkCounter work;

    /**
     * Creates the bean.
     *
     * @param work the work done once a token is consumed
     */
    public Bucket4jStarterCalls(WorkCounter work) {
        this.work = work;
    }

    /**
     * Consumes one token of {@code user}'s bucket, then works.
     *
     * @param user whose bucket
     */
    @RateLimiting(name = METHOD_NAME, cacheKey = "'bench:b4j-starter:' + #user")
    public void call(String user) {
        work.run();
    }
}
