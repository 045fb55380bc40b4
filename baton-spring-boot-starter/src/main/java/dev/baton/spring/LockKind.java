package dev.baton.spring;

/** Which Baton lock a {@link DistributedLock} method holds. */
public enum LockKind {
    /** A reentrant mutex ({@code Baton.lock(name)}). */
    MUTEX,
    /** A fair lock: waiters get it in the order they asked across every process ({@code Baton.fairLock(name)}). */
    FAIR,
    /** The shared side of a read-write lock ({@code Baton.readWriteLock(name).readLock()}). */
    READ,
    /** The exclusive side of a read-write lock ({@code Baton.readWriteLock(name).writeLock()}). */
    WRITE
}
