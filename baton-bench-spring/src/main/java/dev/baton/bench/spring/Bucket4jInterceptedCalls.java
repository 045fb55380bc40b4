package dev.baton.bench.spring;

/**
 * {@link Bucket4jLimited} doing the job of {@link BatonLimitedCalls}: Bucket4j on Lettuce behind a Spring interceptor.
 */
public class Bucket4jInterceptedCalls {
    private final WorkCounter work;

    /**
     * Creates the bean.
     *
     * @param work the work done once a token is consumed
     */
    public Bucket4jInterceptedCalls(WorkCounter work) {
        this.work = work;
    }

    /**
     * Consumes one token of {@code user}'s bucket, then works.
     *
     * @param user whose bucket
     */
    @Bucket4jLimited(key = "'bench:b4j:' + #user")
    public void call(String user) {
        work.run();
    }
}
