package dev.baton.internal.engine;

/**
 * What one acquisition asks Redis for (the arguments of its driver's acquire script).
 *
 * @param driver      the kind of lock, whose scripts serve the request
 * @param keys        the lock
 * @param owner       owner id (thread-owned or lease)
 * @param holder      description of the requesting process and thread, for operators
 * @param permits     how much of the lock the request asks for: 1 for a lock, n for n permits of a semaphore
 * @param leaseMillis lease to set (or lengthen, on re-entry)
 * @param heldToken   token of the hold the owner already has and may re-enter, 0 if none
 * @param watchdog    whether the hold is renewed by the watchdog (no explicit lease)
 * @param reentrant   whether the owner may hold the lock more than once (a thread, as the facades name it) rather
 *                    than being a lease
 * @param startedNanos when the caller asked (on the runtime's ticker), for the time it waited
 * @param ownerThread the thread whose end ends a re-entrant owner's watchdog hold (the facade's calling thread),
 *                    null for a lease
 */
public record AcquireRequest(LockDriver driver, LockKeys keys, String owner, String holder, int permits,
        long leaseMillis,
                             long heldToken, boolean watchdog, boolean reentrant, long startedNanos,
                             Thread ownerThread) {
}
