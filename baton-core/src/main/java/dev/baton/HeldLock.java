package dev.baton;

import java.time.Duration;
import java.time.Instant;

/**
 * One lock this {@link Baton} holds right now, as {@link Baton#heldLocks()} reports it: what this process believes,
 * without asking Redis (use {@link Baton#inspect(String)} for Redis's view). A snapshot; immutable, so thread-safe.
 *
 * @param name           the lock's name (a multi-lock is reported as its member locks)
 * @param type           which kind of lock
 * @param fencingToken   the hold's fencing token
 * @param holdCount      the reentrant hold count (1 for a lease or a semaphore acquisition)
 * @param thread         name of the thread that acquired it (for a {@link Lease}, the thread that asked)
 * @param leaseOwned     true if held by a {@link Lease}, false if owned by that thread
 * @param since          when it was acquired (the grant's request was sent), by this machine's clock
 * @param remainingLease how long the lease lasts from now by this process's conservative estimate, unless renewed
 * @param watchdog       whether the watchdog keeps renewing the lease (a lock taken without a fixed lease)
 */
public record HeldLock(String name, LockType type, long fencingToken, int holdCount, String thread,
                       boolean leaseOwned, Instant since, Duration remainingLease, boolean watchdog) {
}
