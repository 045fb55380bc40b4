package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What Redis says about a lock at one instant, for operators: see {@link Baton#inspect(String)} and
 * {@link DistributedLock#inspect()}. A snapshot: it does not change when the lock does. Holds, leases and waiters
 * whose time has passed are left out even if Redis has not removed them yet. Immutable, so thread-safe.
 *
 * <p>One snapshot describes one object of one {@link #kind() kind}: the plain lock, the fair lock, the read-write
 * lock (both sides at once) or the semaphore of a name. These are different objects with different keys, so several
 * of them may be held under one name at the same time; {@link Baton#inspect(String)} then reports the first held
 * one here and the others in {@link #otherKinds()}, never hiding one. Whatever is held, {@link #isLocked()} says
 * so: a snapshot never shows a held object as free.
 *
 * @param name             the lock name
 * @param holder           one holder, the first of {@code allHolders}; empty if nobody holds this object
 * @param lastFencingToken the last fencing token issued for this object, 0 if none is remembered
 * @param holders          how many holds there are: 0 or 1 for the plain and the fair lock, the writer and each
 *                         reader of a read-write lock (a writer that also holds the read lock counts once for each
 *                         side), one per live lease of a semaphore
 * @param kind             which object this is: {@link LockType#LOCK}, {@link LockType#FAIR},
 *                         {@link LockType#SEMAPHORE}, or for a read-write lock {@link LockType#WRITE} while a writer
 *                         holds it, {@link LockType#READ} while only readers do (when it is free: the side that was
 *                         asked)
 * @param allHolders       every holder, in the order {@link #holder()} is taken from: a read-write lock's writer
 *                         before its readers, readers and semaphore leases in the order their leases run out. A
 *                         snapshot made with one of the shorter constructors lists at most the one {@code holder}
 * @param waiting          how many waiters keep a place in Redis: the fair lock's queue, the semaphore's queue, the
 *                         writers waiting for a read-write lock; 0 for the plain lock, whose waiters keep no place in
 *                         Redis (they wait for the release notification)
 * @param permits          the semaphore's configured total of permits; a {@link LockType#LATCH latch}'s count (at
 *                         most {@link Integer#MAX_VALUE}); 0 for every other kind
 * @param otherKinds       the other objects found held or waited for under the same name at the same instant, each
 *                         described by a snapshot of its own (whose own {@code otherKinds} is empty); empty when only
 *                         one kind was found, and always empty from {@link DistributedLock#inspect()}
 */
public record LockInfo(String name, Optional<Holder> holder, long lastFencingToken, int holders, LockType kind,
                       List<Holder> allHolders, int waiting, int permits, List<LockInfo> otherKinds) {

    /**
     * Checks the arguments and copies the lists, so the record stays immutable.
     *
     * @param name             the lock name
     * @param holder           one holder, the first of {@code allHolders}; empty if nobody holds this object
     * @param lastFencingToken the last fencing token issued for this object, 0 if none is remembered
     * @param holders          how many holds there are
     * @param kind             which object this is
     * @param allHolders       every holder
     * @param waiting          how many waiters keep a place in Redis
     * @param permits          the semaphore's total or the latch's count, 0 for other kinds
     * @param otherKinds       the other objects found under the same name
     * @throws NullPointerException if an argument is null
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(kind, "kind");
        allHolders = List.copyOf(allHolders);
        otherKinds = List.copyOf(otherKinds);
    }

    /**
     * A snapshot of a lock with at most one holder known, as it was made before snapshots said their kind: kind
     * {@link LockType#LOCK}, {@code allHolders} the one {@code holder} if present, no waiters, no permits, no other
     * kinds.
     *
     * @param name             the lock name
     * @param holder           who holds it, empty if nobody does
     * @param lastFencingToken the last fencing token issued for this name, 0 if none is remembered
     * @param holders          how many owners hold it (of whom {@code holder} is one)
     */
    public LockInfo(String name, Optional<Holder> holder, long lastFencingToken, int holders) {
        this(name, holder, lastFencingToken, holders, LockType.LOCK, holder.stream().toList(), 0, 0, List.of());
    }

    /**
     * A snapshot of a lock held by at most one owner: {@code holders} is 1 if {@code holder} is present, else 0;
     * kind {@link LockType#LOCK}.
     *
     * @param name             the lock name
     * @param holder           who holds it, empty if nobody does
     * @param lastFencingToken the last fencing token issued for this name, 0 if none is remembered
     */
    public LockInfo(String name, Optional<Holder> holder, long lastFencingToken) {
        this(name, holder, lastFencingToken, holder.isPresent() ? 1 : 0);
    }

    /**
     * A snapshot of one object from its holders: {@code holder} is the first of them, {@code holders} their number,
     * and there are no other kinds.
     *
     * @param name             the lock name
     * @param kind             which object this is
     * @param allHolders       every holder, in the order the record's description gives
     * @param lastFencingToken the last fencing token issued for this object, 0 if none is remembered
     * @param waiting          how many waiters keep a place in Redis
     * @param permits          the semaphore's total or the latch's count, 0 for other kinds
     * @return the snapshot
     */
    public static LockInfo of(String name, LockType kind, List<Holder> allHolders, long lastFencingToken,
                              int waiting, int permits) {
        return new LockInfo(name, allHolders.stream().findFirst(), lastFencingToken, allHolders.size(), kind,
                allHolders, waiting, permits, List.of());
    }

    /**
     * This snapshot with the other objects found under the same name.
     *
     * @param others snapshots of the other objects
     * @return a copy of this snapshot whose {@link #otherKinds()} are {@code others}
     */
    public LockInfo withOtherKinds(List<LockInfo> others) {
        return new LockInfo(name, holder, lastFencingToken, holders, kind, allHolders, waiting, permits, others);
    }

    /**
     * Whether somebody held anything this snapshot describes at that instant: this object, or one of
     * {@link #otherKinds()}.
     *
     * @return true if a holder is present, of this object or of another kind of the same name
     */
    public boolean isLocked() {
        return holder.isPresent() || holders > 0 || otherKinds.stream().anyMatch(LockInfo::isLocked);
    }

    /**
     * The kinds this snapshot describes: {@link #kind()}, then the kind of each of {@link #otherKinds()}.
     *
     * @return at least one kind
     */
    public List<LockType> kinds() {
        List<LockType> kinds = new ArrayList<>(1 + otherKinds.size());
        kinds.add(kind);
        otherKinds.forEach(o -> kinds.add(o.kind()));
        return List.copyOf(kinds);
    }

    /**
     * For a semaphore, the permits no live lease holds: {@link #permits()} less those of {@link #allHolders()},
     * never negative (also when the total was cut below what is held); 0 for every other kind.
     *
     * @return the free permits
     */
    public int availablePermits() {
        if (kind != LockType.SEMAPHORE) {
            return 0;
        }
        return Math.max(0, permits - allHolders.stream().mapToInt(Holder::permits).sum());
    }

    /**
     * One holder of a lock.
     *
     * @param batonInstance  id of the {@link Baton} instance that holds it ({@link Baton#instanceId()})
     * @param host           host name of that process
     * @param pid            process id of that process
     * @param thread         name of the thread that acquired it (for a {@link Lease}, the thread that asked)
     * @param leaseOwned     true if held by a {@link Lease}, false if thread-owned
     * @param holdCount      reentrant hold count (1 for a semaphore lease)
     * @param remainingLease time until the hold expires unless renewed
     * @param fencingToken   fencing token of the hold
     * @param kind           what it holds: {@link LockType#LOCK} or {@link LockType#FAIR} for those locks,
     *                       {@link LockType#WRITE} or {@link LockType#READ} for a side of a read-write lock,
     *                       {@link LockType#SEMAPHORE} for permits of a semaphore
     * @param permits        how many permits it holds: the lease's for a semaphore, 1 for every other kind
     */
    public record Holder(String batonInstance, String host, long pid, String thread, boolean leaseOwned,
                         int holdCount, Duration remainingLease, long fencingToken, LockType kind, int permits) {

        /**
         * Checks the kind.
         *
         * @param batonInstance  id of the holding {@link Baton} instance
         * @param host           host name of that process
         * @param pid            process id of that process
         * @param thread         name of the thread that acquired it
         * @param leaseOwned     true if held by a {@link Lease}
         * @param holdCount      reentrant hold count
         * @param remainingLease time until the hold expires unless renewed
         * @param fencingToken   fencing token of the hold
         * @param kind           what it holds
         * @param permits        how many permits it holds
         * @throws NullPointerException if {@code kind} is null
         */
        public Holder {
            Objects.requireNonNull(kind, "kind");
        }

        /**
         * The holder of a plain lock ({@link LockType#LOCK}, one permit), as holders were described before they said
         * their kind.
         *
         * @param batonInstance  id of the holding {@link Baton} instance
         * @param host           host name of that process
         * @param pid            process id of that process
         * @param thread         name of the thread that acquired it
         * @param leaseOwned     true if held by a {@link Lease}
         * @param holdCount      reentrant hold count
         * @param remainingLease time until the lock expires unless renewed
         * @param fencingToken   fencing token of the current hold
         */
        public Holder(String batonInstance, String host, long pid, String thread, boolean leaseOwned,
                      int holdCount, Duration remainingLease, long fencingToken) {
            this(batonInstance, host, pid, thread, leaseOwned, holdCount, remainingLease, fencingToken,
                    LockType.LOCK, 1);
        }
    }
}
