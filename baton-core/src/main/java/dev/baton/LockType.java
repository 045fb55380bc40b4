package dev.baton;

/**
 * Which kind of Baton lock an event, a {@link HeldLock} or a {@link LockInfo} concerns, so that metrics and operators
 * can tell a fair lock's waits from a plain lock's, or a reader's from a writer's.
 */
public enum LockType {
    /** The plain reentrant lock of {@link Baton#lock(String)}; also each member of a {@link Baton#multiLock}. */
    LOCK,
    /** The fair lock of {@link Baton#fairLock(String)}. */
    FAIR,
    /** The shared side of a {@link Baton#readWriteLock(String) read-write lock}. */
    READ,
    /** The exclusive side of a {@link Baton#readWriteLock(String) read-write lock}. */
    WRITE,
    /** Permits of a {@link Baton#semaphore(String, int) semaphore}. */
    SEMAPHORE,
    /**
     * The leadership of a {@link Baton#election(String) leader election}: a lease of the election's own lock, whose
     * fencing token is the leader's epoch.
     */
    ELECTION,
    /**
     * A {@link Baton#countDownLatch(String) count-down latch}. Nobody holds a latch: {@link LockInfo} reports its
     * count in {@link LockInfo#permits()} and never a holder.
     */
    LATCH
}
