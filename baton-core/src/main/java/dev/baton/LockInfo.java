package dev.baton;

import java.time.Duration;
import java.util.Optional;

/**
 * What Redis says about a lock at one instant, for operators: see {@link Baton#inspect(String)}. A snapshot: it does
 * not change when the lock does. Immutable, so thread-safe.
 *
 * @param name             the lock name
 * @param holder           who holds it, empty if nobody does
 * @param lastFencingToken the last fencing token issued for this name, 0 if none is remembered
 * @param holders          how many owners hold it: 0 or 1 for an exclusive lock, the number of readers for the read
 *                         side of a read-write lock (of whom {@code holder} is one)
 */
public record LockInfo(String name, Optional<Holder> holder, long lastFencingToken, int holders) {

    /**
     * A snapshot of a lock held by at most one owner: {@code holders} is 1 if {@code holder} is present, else 0.
     *
     * @param name             the lock name
     * @param holder           who holds it, empty if nobody does
     * @param lastFencingToken the last fencing token issued for this name, 0 if none is remembered
     */
    public LockInfo(String name, Optional<Holder> holder, long lastFencingToken) {
        this(name, holder, lastFencingToken, holder.isPresent() ? 1 : 0);
    }

    /**
     * Whether somebody held the lock at that instant.
     *
     * @return true if {@link #holder()} is present
     */
    public boolean isLocked() {
        return holder.isPresent();
    }

    /**
     * The current holder of a lock.
     *
     * @param batonInstance  id of the {@link Baton} instance that holds it ({@link Baton#instanceId()})
     * @param host           host name of that process
     * @param pid            process id of that process
     * @param thread         name of the thread that acquired it (for a {@link Lease}, the thread that asked)
     * @param leaseOwned     true if held by a {@link Lease}, false if thread-owned
     * @param holdCount      reentrant hold count
     * @param remainingLease time until the lock expires unless renewed
     * @param fencingToken   fencing token of the current hold
     */
    public record Holder(String batonInstance, String host, long pid, String thread, boolean leaseOwned,
                         int holdCount, Duration remainingLease, long fencingToken) {
    }
}
