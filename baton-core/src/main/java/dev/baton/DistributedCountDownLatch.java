package dev.baton;

import java.time.Duration;

/**
 * A count-down latch shared by every process that asks for the same name on the same Redis: one side sets a count,
 * any number count it down, and waiters anywhere are released together when it reaches zero. Obtained from
 * {@link Baton#countDownLatch(String)}; cheap, no Redis call, and safe to share between threads.
 *
 * <p>The count lives in one Redis key, changed only by atomic scripts, so it never goes below zero and the last
 * {@link #countDown()} is seen by everyone: it deletes the latch and announces it on the latch's channel, which wakes
 * every waiter at once; waiters re-check at the Baton's re-check interval in case a message is lost. A latch at zero
 * is gone from Redis, so it may be {@linkplain #trySetCount set} again. Every latch expires after its expiry in any
 * case, so one abandoned by its users does not live forever; its waiters then see it as released (count 0). Works on
 * standalone, Sentinel and Cluster; not on Redlock masters. See {@code docs/count-down-latch.md}.
 */
public interface DistributedCountDownLatch {

    /** How long a latch set with {@link #trySetCount(long)} lives at most: one day. */
    Duration DEFAULT_EXPIRY = Duration.ofDays(1);

    /**
     * The latch's name, as given to {@link Baton#countDownLatch(String)}.
     *
     * @return the name
     */
    String name();

    /**
     * Sets the count if none is set, with the {@link #DEFAULT_EXPIRY}.
     *
     * @param count the count, at least 1
     * @return true if set; false if a count was already set (nothing changed)
     * @throws IllegalArgumentException  if {@code count} is below 1
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean trySetCount(long count);

    /**
     * Sets the count if none is set; the latch's keys vanish after {@code expiry} in any case.
     *
     * @param count  the count, at least 1
     * @param expiry how long the latch lives at most, at least one millisecond
     * @return true if set; false if a count was already set (nothing changed)
     * @throws IllegalArgumentException  if {@code count} is below 1, or {@code expiry} is below one millisecond (or
     *                                   above about 146 years)
     * @throws NullPointerException      if {@code expiry} is null
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean trySetCount(long count, Duration expiry);

    /**
     * Decrements the count by one; the decrement that reaches zero releases every waiter. Does nothing on a latch at
     * zero or never set: the count never goes below zero.
     *
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout (the count may or may not
     *                                   have been decremented)
     */
    void countDown();

    /**
     * The current count.
     *
     * @return the count; 0 once released, expired or never set
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    long count();

    /**
     * Waits until the count reaches zero or {@code wait} runs out; returns at once if it is zero already. The last
     * count-down's announcement wakes the waiter at once; a latch that expired announces nothing, so its waiters
     * see it at their next re-check ({@link BatonConfig#recheckInterval()}), as they do a lost announcement. Waiting
     * threads of one Baton share one subscription per latch.
     *
     * @param wait how long to wait at most; zero to only check
     * @return true if the count is 0 (counted down, expired, or never set), false if {@code wait} ran out first
     * @throws InterruptedException      if the calling thread is interrupted while waiting
     * @throws IllegalArgumentException  if {@code wait} is negative
     * @throws NullPointerException      if {@code wait} is null
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout, also while waiting
     * @throws IllegalStateException     if the Baton is closed, also while waiting
     */
    boolean await(Duration wait) throws InterruptedException;
}
