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
 *   <li>The total is set deliberately: by the first {@link Baton#semaphore(String, int)} that finds the semaphore
 *       new, or by {@link #setPermits(int)}; a release never changes it, and releasing a stale lease changes
 *       nothing.</li>
 *   <li>A lease's {@link Lease#fencingToken() fencing token} is strictly increasing per semaphore name;
 *       {@link Lease#lockName()} is the semaphore's name; {@link Lease#lost()} completes if its lease ran out while
 *       it was held.</li>
 * </ul>
 *
 * <p>Objects are cheap (no Redis call to create one) and thread-safe.
 */
public interface DistributedSemaphore {

    /**
     * The name given to {@link Baton#semaphore(String, int)}.
     *
     * @return the name
     */
    String name();

    /**
     * The configured total number of permits (one Redis call).
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
     * Changes the total. Leases already granted keep their permits; if the new total is below what is held, new
     * acquisitions wait until enough leases ended.
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
     * @throws IllegalArgumentException  if {@code permits} is less than 1 or {@code wait} is negative
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
     * @throws IllegalArgumentException  if {@code permits} is less than 1, or a duration is out of range
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    Optional<Lease> tryAcquire(int permits, Duration wait, Duration lease) throws InterruptedException;

    /**
     * Acquires {@code permits} permits with a watchdog lease without blocking the caller.
     *
     * @param permits how many, at least 1
     * @param wait    the longest wait; zero for a single attempt
     * @return the future lease; it completes exceptionally with {@link LockTimeoutException} after {@code wait}, or
     *         with {@link BatonUnavailableException}; cancelling it abandons the wait
     * @throws IllegalArgumentException if {@code permits} is less than 1 or {@code wait} is negative
     */
    CompletableFuture<Lease> acquireAsync(int permits, Duration wait);
}
