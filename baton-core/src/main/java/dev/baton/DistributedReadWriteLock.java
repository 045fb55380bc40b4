package dev.baton;

/**
 * A read-write lock shared by every process on the same Redis: many readers at once, or one writer. Both sides are
 * {@link DistributedLock}s with every guarantee of that interface (leases, watchdog, lost-lease notification, fencing
 * tokens, thread-owned and handle-owned acquisition).
 *
 * <ul>
 *   <li>Both sides are reentrant. Each reader has its own lease, so a crashed reader stops blocking writers after
 *       one lease, without waiting for the other readers.</li>
 *   <li>A thread holding the write lock may also take the read lock (downgrade: take the read lock, then release the
 *       write lock). A thread holding only the read lock that asks for the write lock fails at once with
 *       {@link IllegalMonitorStateException} rather than deadlocking against itself, from every acquire method,
 *       {@code tryLock()} included. (Leases are owners of their own: a read lease and a write lease wait for each
 *       other like any two owners, even when one thread asked for both.)</li>
 *   <li>No writer starvation: once a writer waits, new readers queue behind it (re-entries and a writer's own
 *       downgrade excepted), so the readers drain and the writer gets in. A writer that dies while waiting holds
 *       readers back for at most {@code max(3 x recheckInterval, 2 s)}. Conversely, readers wait while writers keep
 *       waiting; writers are not ordered among themselves.</li>
 *   <li>Fencing tokens of both sides come from one counter per name, so they are strictly increasing across reads
 *       and writes of the name; every read acquisition gets a token of its own.</li>
 * </ul>
 *
 * <p>Each side answers for itself: {@code writeLock().isLocked()} says whether a writer holds the lock,
 * {@code readLock().isLocked()} whether at least one reader does; {@code forceUnlock()} removes that side's holds.
 * {@code inspect()}, for operators, reports the whole read-write lock from either side, so that a side never looks
 * free while the other one holds it: {@link LockInfo#isLocked()} is true while anybody holds either side,
 * {@link LockInfo#allHolders()} lists the writer (kind {@link LockType#WRITE}) before the readers (kind
 * {@link LockType#READ}), {@link LockInfo#holders()} counts them all, {@link LockInfo#kind()} is
 * {@link LockType#WRITE} while a writer holds the lock, {@link LockType#READ} while only readers do (and the side
 * asked when nobody does), and {@link LockInfo#waiting()} counts the waiting writers. Acquisitions are never replica-acknowledged, whatever {@link BatonConfig#replicaAcknowledgement()}
 * says. The protocol and keys are described in docs/read-write-lock.md.
 *
 * <p>Objects are cheap (no Redis call to create one) and thread-safe; objects of the same name from the same
 * {@link Baton} are interchangeable.
 */
public interface DistributedReadWriteLock {

    /**
     * The name given to {@link Baton#readWriteLock(String)}.
     *
     * @return the name
     */
    String name();

    /**
     * The shared side: held by any number of owners at once while no writer holds or waits.
     *
     * @return the read lock
     */
    DistributedLock readLock();

    /**
     * The exclusive side: held by one owner, and only while no reader holds the lock (other than the writer itself,
     * after a downgrade).
     *
     * @return the write lock
     */
    DistributedLock writeLock();
}
