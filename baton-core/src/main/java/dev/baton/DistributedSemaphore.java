package dev.baton;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore shared by every process on the same Redis, whose permits expire: each acquisition is a
 * {@link Lease} owning its permits, with a lease of its own (renewed by the watchdog, or fixed), so the permits of a
 * crashed holder come back after its lease instead of being lost for good.
 *
 * <ul>
 *   <li>At most {@link #permits()} permits are held at any moment, counting every lease whose lease has not run out
 *       in Redis.</li>
 *   <li>The total is set deliberately: by the first acquisition that finds the semaphore new (nothing stored in
 *       Redis), with the total given to {@link Baton#semaphore(String, int)}, or by {@link #setPermits(int)}; a
 *       release never changes it. It is kept as long as any lease is held and for the fencing token retention
 *       ({@link BatonConfig#fencingTokenRetention()}, one day by default) after the last lease ended; after that the
 *       semaphore is new again.</li>
 *   <li>Releasing a lease that already ended (released, or its lease ran out) changes nothing in Redis: a stale
 *       handle can never give back permits that are someone else's now.</li>
 *   <li>A lease's {@link Lease#fencingToken() fencing token} is strictly increasing per semaphore name;
 *       {@link Lease#lockName()} is the semaphore's name; {@link Lease#lost()} completes if its lease ran out while
 *       it was held.</li>
 *   <li><b>Fair.</b> Waiters are served in the order in which their first try reached Redis, across processes: a
 *       request is granted only when enough permits are free and no live waiter is ahead of it. A waiter for many
 *       permits is therefore never overtaken by a stream of small requests; the price is that free permits stay
 *       unused while the first waiter waits for more than are free. A single try ({@code wait} zero) does not jump
 *       the queue either. A waiter that dies or hangs loses its place once it has not tried for the recheck interval
 *       plus twice the command timeout (by default 7 s), and stops blocking those behind it.</li>
 * </ul>
 *
 * <p>Objects are cheap (no Redis call to create one) and thread-safe; leases are not reentrant (each acquisition is
 * a lease of its own). The protocol and the keys are described in {@code docs/semaphore.md}.
 */
public interface DistributedSemaphore {

    /**
     * The name given to {@link Baton#semaphore(String, int)}.
     *
     * @return the name
     */
    String name();

    /**
     * The configured total number of permits (one Redis call); for a semaphore that is new, the total given to
     * {@link Baton#semaphore(String, int)}.
     *
     * @return the total
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    int permits();

    /**
     * Permits not held right now (one Redis call; permits of expired leases count as available).
     *
     * @return the available permits, never negative
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    int availablePermits();

    /**
     * Changes the total (and writes it, if the semaphore is new). Leases already granted keep their permits; if the
     * new total is below what is held, new acquisitions wait until enough leases ended. Every waiter is woken to look
     * again; a waiter for more permits than the new total fails with {@link IllegalArgumentException}.
     *
     * @param permits the new total, at least 1
     * @throws IllegalArgumentException  if {@code permits} is less than 1
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    void setPermits(int permits);

    /**
     * Acquires {@code permits} permits with a watchdog lease, waiting up to {@code wait}.
     *
     * @param permits how many, at least 1
     * @param wait    the longest wait; zero for a single attempt
     * @return the lease owning the permits
     * @throws LockTimeoutException      if the permits were not acquired within {@code wait}
     * @throws InterruptedException      if the thread was interrupted while waiting (nothing is left acquired)
     * @throws IllegalArgumentException  if {@code permits} is less than 1 or {@code wait} is negative (before any
     *                                   Redis call), or more than the semaphore's total (found when a try reaches
     *                                   Redis, which may be after a wait if the total was cut meanwhile: waiting for
     *                                   more permits than exist would never end)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    Lease acquire(int permits, Duration wait) throws InterruptedException;

    /**
     * Acquires {@code permits} permits with a fixed lease (no renewal), waiting up to {@code wait}.
     *
     * @param permits how many, at least 1
     * @param wait    the longest wait; zero for a single attempt
     * @param lease   how long the permits are held unless released before, at least 1 ms
     * @return the lease owning the permits, or empty if they were not acquired within {@code wait}
     * @throws InterruptedException      if the thread was interrupted while waiting (nothing is left acquired)
     * @throws IllegalArgumentException  if {@code permits} is less than 1, or a duration is out of range (before any
     *                                   Redis call), or {@code permits} is more than the semaphore's total
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    Optional<Lease> tryAcquire(int permits, Duration wait, Duration lease) throws InterruptedException;

    /**
     * Acquires {@code permits} permits with a watchdog lease without blocking the caller.
     *
     * @param permits how many, at least 1
     * @param wait    the longest wait; zero for a single attempt
     * @return the future lease; it completes exceptionally with {@link LockTimeoutException} after {@code wait}, or
     *         with {@link BatonUnavailableException}, or with {@link IllegalArgumentException} if {@code permits} is
     *         more than the semaphore's total; cancelling it abandons the wait, leaving nothing acquired
     * @throws IllegalArgumentException if {@code permits} is less than 1 or {@code wait} is negative
     */
    CompletableFuture<Lease> acquireAsync(int permits, Duration wait);

    /**
     * The semaphore's state at one instant (one atomic Redis read), for operators and diagnostics: the total, the
     * live leases, the waiters and the last fencing token.
     *
     * @return the state
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    SemaphoreInfo inspect();
}
