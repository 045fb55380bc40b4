package dev.baton.bench.spring;

import io.github.bucket4j.BucketConfiguration;
import java.time.Duration;

/**
 * The one rate limit every rate-limiter contender applies: so generous that one thread never exhausts it, so that
 * each decision is a grant and goes to Redis (an exhausted Baton limiter answers from memory, which would measure
 * something else).
 */
final class BenchLimits {
    /** Permits per second, and the burst. */
    static final long PERMITS_PER_SECOND = 1_000_000_000L;

    private BenchLimits() {
    }

    /**
     * The same limit for Bucket4j: one bandwidth of {@link #PERMITS_PER_SECOND}, refilled greedily each second.
     *
     * @return a new configuration
     */
    static BucketConfiguration bucket4j() {
        return BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(PERMITS_PER_SECOND)
                        .refillGreedy(PERMITS_PER_SECOND, Duration.ofSeconds(1)))
                .build();
    }
}
