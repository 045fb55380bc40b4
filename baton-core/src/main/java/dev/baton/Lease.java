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

    /** Name of the lock this lease holds. */
    String lockName();

    /** The fencing token of this acquisition: strictly greater than every earlier token for the lock name. */
    long fencingToken();

    /** False once released, expired or lost. A true answer is a local belief, not a Redis round trip. */
    boolean isValid();

    /** Completes (normally) when the lease is lost while not released; never completes if it is released first. */
    CompletableFuture<Void> lost();

    /**
     * Releases the lock.
     *
     * @throws IllegalMonitorStateException if already released, or if the lease was lost (the message says which)
     * @throws BatonUnavailableException if Redis is unreachable; the lock then expires with its lease
     */
    void release();

    /** Same as {@link #release()}, but quiet if the lease was already released or lost. */
    @Override
    void close();
}
