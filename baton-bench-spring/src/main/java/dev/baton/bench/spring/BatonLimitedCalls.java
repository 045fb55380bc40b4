package dev.baton.bench.spring;

import dev.baton.spring.Limit;
import dev.baton.spring.RateLimited;

/**
 * The starter's {@link RateLimited} as applications write it (a limit per user), around {@link WorkCounter#run()}.
 * The limit is far above what one thread can ask for, so every decision is a grant made by Redis.
 */
public class BatonLimitedCalls {
    private final WorkCounter work;

    /**
     * Creates the bean.
     *
     * @param work the work done once a permit is granted
     */
    public BatonLimitedCalls(WorkCounter work) {
        this.work = work;
    }

    /**
     * Takes one permit of {@code user}'s limit, then works.
     *
     * @param user whose limit
     */
    @RateLimited(key = "'bench:rate:' + #user",
            limits = @Limit(permits = BenchLimits.PERMITS_PER_SECOND, period = "1s"))
    public void call(String user) {
        work.run();
    }
}
