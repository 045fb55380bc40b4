package dev.baton;

import java.time.Duration;
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
     * Ends this lease without freeing the lock now: the lock stays held in Redis until {@code delay} from now and then
     * expires, whatever lease it had (a shorter one is lengthened, a longer one or the watchdog's is cut to it). For a
     * job that must not run again too soon after a fast run elsewhere (a scheduled task shared by a fleet whose
     * clocks differ: "hold at least until"). Nobody can acquire the lock before that moment; anyone can right after,
     * at their next try (no release message is sent, so waiters find it free at their next re-check).
     *
     * <p>The lease counts as released here at once: {@link #isValid()} turns false, the watchdog stops renewing it,
     * {@link #lost()} never completes, and a later {@link #release()} throws. The new expiry is set by one
     * owner-checked script, so it can never touch a later acquisition of the lock. A zero delay is {@link #release()}.
     *
     * <p>Supported by the plain, fair, read and write locks and by multi-locks; a semaphore's permit refuses it.
     *
     * @param delay how long from now the lock stays held; zero releases it now; rounded up to whole milliseconds
     * @throws IllegalArgumentException      if {@code delay} is negative or longer than 53375 days
     * @throws NullPointerException          if {@code delay} is null
     * @throws UnsupportedOperationException if this kind of lease cannot be left to expire (nothing changed)
     * @throws IllegalMonitorStateException  if already released, or if the lease was lost (the message says which)
     * @throws BatonUnavailableException     if Redis is unreachable within the command timeout; the lease counts as
     *                                       released all the same, and the lock expires in Redis with its lease
     * @throws IllegalStateException         if the {@link Baton} is closed
     */
    void releaseAfter(Duration delay);

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
