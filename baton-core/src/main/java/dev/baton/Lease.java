package dev.baton;

import java.util.concurrent.CompletableFuture;

/**
 * A handle-owned hold of a {@link DistributedLock}: the lease, not a thread, owns the lock, so any thread (including
 * a virtual thread or a callback) may release it. Thread-safe.
 *
 * <p>A lease ends in exactly one of two ways: {@link #release() released} by its holder, or <b>lost</b> (it expired,
 * its renewal found the lock gone or taken, or it could not be renewed before it ran out). Losing it completes
 * {@link #lost()}; a released lease never completes {@code lost()}.
 */
public interface Lease extends AutoCloseable {

    /**
     * Name of the lock this lease holds.
     *
     * @return the lock name
     */
    String lockName();

    /**
     * The fencing token of this acquisition (no Redis call).
     *
     * @return the token, strictly greater than every earlier token for the lock name
     */
    long fencingToken();

    /**
     * Whether this lease still holds the lock, as far as this process knows: a true answer is a local belief, not a
     * Redis round trip.
     *
     * @return false once released, expired or lost
     */
    boolean isValid();

    /**
     * Tells when the lease is lost. Callbacks attached before the loss never run on the Redis client's event loop.
     * Each call returns a new copy, so a caller that completes it cannot fake a loss.
     *
     * @return a future that completes normally when the lease is lost while not released, and never completes if it
     *         is released first
     */
    CompletableFuture<Void> lost();

    /**
     * Releases the lock.
     *
     * @throws IllegalMonitorStateException if already released, or if the lease was lost (the message says which)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout; the lease counts as
     *         released all the same, and the lock expires in Redis with its lease
     * @throws IllegalStateException if the {@link Baton} is closed
     */
    void release();

    /**
     * Same as {@link #release()}, but quiet if the lease was already released or lost, or the {@link Baton} is
     * closed (the lock then expires with its lease).
     *
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout; as for
     *         {@link #release()}, the lock then expires with its lease
     */
    @Override
    void close();
}
