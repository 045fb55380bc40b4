package dev.baton;

import java.time.Duration;
import java.util.List;

/**
 * What Redis says about a semaphore at one instant, for operators: see {@link DistributedSemaphore#inspect()}. A
 * snapshot: it does not change when the semaphore does. Leases that ran out and waiters that stopped trying are
 * left out even if Redis has not removed them yet. Immutable, so thread-safe.
 *
 * @param name             the semaphore's name
 * @param permits          the configured total (the one given to {@link Baton#semaphore(String, int)} if the
 *                         semaphore is new, with nothing stored in Redis)
 * @param availablePermits permits not held (never negative, also when the total was cut below what is held)
 * @param holders          the live leases, in the order their leases run out
 * @param waiting          how many waiters keep a place in the queue
 * @param lastFencingToken the last fencing token issued for this name, 0 if none is remembered
 */
public record SemaphoreInfo(String name, int permits, int availablePermits, List<Holder> holders, int waiting,
                            long lastFencingToken) {

    /**
     * Copies the holders, so the record stays immutable.
     *
     * @param name             the semaphore's name
     * @param permits          the configured total
     * @param availablePermits permits not held
     * @param holders          the live leases
     * @param waiting          how many waiters keep a place in the queue
     * @param lastFencingToken the last fencing token issued, 0 if none is remembered
     */
    public SemaphoreInfo {
        holders = List.copyOf(holders);
    }

    /**
     * One live lease of a semaphore.
     *
     * @param batonInstance  id of the {@link Baton} instance that holds it ({@link Baton#instanceId()})
     * @param host           host name of that process
     * @param pid            process id of that process
     * @param thread         name of the thread that asked for the permits
     * @param permits        how many permits the lease holds
     * @param remainingLease time until the lease runs out unless renewed
     * @param fencingToken   fencing token of the lease
     */
    public record Holder(String batonInstance, String host, long pid, String thread, int permits,
                         Duration remainingLease, long fencingToken) {
    }
}
