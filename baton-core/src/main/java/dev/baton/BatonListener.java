package dev.baton;


import java.time.Duration;

/**
 * Receives what a {@link Baton} does, for metrics, tracing and audit: register one with
 * {@link BatonConfig.Builder#listener(BatonListener)}. Every method has an empty default, so a listener overrides
 * only what it needs, and later versions can add events without breaking it. An event record may gain components
 * in a later version (as the lock {@link LockType} and hold times were added); it keeps a constructor of its earlier
 * shape.
 *
 * <pre>{@code
 * BatonConfig.builder().uri(uri).listener(new BatonListener() {
 *     public void leaseLost(LeaseLost e) {
 *         meterRegistry.counter("baton.lease.lost", "lock", e.lock()).increment();
 *     }
 * }).build();
 * }</pre>
 *
 * <p><b>Threading.</b> Events are delivered on one thread of Baton's own, in the order they happened, never in the
 * path of a lock operation or a rate-limit decision: a slow listener delays only later events, never Baton. If it
 * falls more than {@value #MAX_PENDING} events behind, newer events are dropped (counted, and logged as a warning)
 * rather than slowing Baton down or growing without bound. A listener that throws is logged and keeps receiving
 * events. Events still queued when the {@code Baton} closes are delivered before its event thread ends.
 */
public interface BatonListener {
    /** Events pending delivery beyond which newer ones are dropped. */
    int MAX_PENDING = 10_000;

    /**
     * A caller found the lock held by another owner and started waiting for it.
     *
     * @param event the lock waited for
     */
    default void lockWaiting(LockWaiting event) {
    }

    /**
     * A lock was acquired (or re-entered) by this Baton.
     *
     * @param event the lock, its fencing token and how long the caller waited
     */
    default void lockAcquired(LockAcquired event) {
    }

    /**
     * A wait for a lock ended without it: its wait time ran out, or a single try ({@code tryLock()} without a wait)
     * found it held. Waits that failed (Redis unreachable, the Baton closed) or were cancelled are not reported here.
     * A {@link Baton#multiLock multi-lock} reports it under the member whose wait ran out, and not when a single
     * script found a member held before any wait began.
     *
     * @param event the lock, its kind and how long the caller waited
     */
    default void lockTimedOut(LockTimedOut event) {
    }

    /**
     * A hold of this Baton was released: the lock is free in Redis (re-entries that only lowered a hold count are not
     * reported).
     *
     * @param event the lock and the token of the hold that ended
     */
    default void lockReleased(LockReleased event) {
    }

    /**
     * A lock went straight from one owner of this Baton to another that waited for it, without being free in between
     * (the local handoff, {@link BatonConfig#localHandoffLimit()}).
     *
     * @param event the lock and both tokens
     */
    default void lockHandedOver(LockHandedOver event) {
    }

    /**
     * A renewal round could not reach Redis; it is retried while the leases last.
     *
     * @param event how many holds it concerned and why it failed
     */
    default void renewalFailed(RenewalFailed event) {
    }

    /**
     * A hold of this Baton was lost while held: its lease ran out unrenewed, or Redis no longer had it. Its holder is
     * told as well ({@link Lease#lost()}).
     *
     * @param event the lock, the token of the lost hold and why
     */
    default void leaseLost(LeaseLost event) {
    }

    /**
     * A rate limiter of this Baton decided (whether Redis or the limiter itself answered, and fail-open grants), or
     * answered a {@link RateLimiter#peek} ({@link RateLimitDecided#peek()}).
     *
     * @param event the limiter and its decision
     */
    default void rateLimitDecided(RateLimitDecided event) {
    }

    /**
     * A candidacy of this Baton was elected leader ({@link LeadershipListener#elected} is called right after).
     *
     * @param event the election and the new epoch
     */
    default void leaderElected(LeaderElected event) {
    }

    /**
     * A leadership of this Baton ended ({@link LeadershipListener#revoked} is called right after, for a candidacy).
     *
     * @param event the election, the epoch that ended, why, and for how long it led
     */
    default void leaderRevoked(LeaderRevoked event) {
    }

    /**
     * This Baton counted a latch down.
     *
     * @param event the latch and the count left (0: this call released it)
     */
    default void latchCountedDown(LatchCountedDown event) {
    }

    /**
     * See {@link BatonListener#lockWaiting}.
     *
     * @param lock the lock's name
     * @param type which kind of lock
     */
    record LockWaiting(String lock, LockType type) {
        /**
         * An event of a plain lock, as before lock types were reported.
         *
         * @param lock the lock's name
         */
        public LockWaiting(String lock) {
            this(lock, LockType.LOCK);
        }
    }

    /**
     * See {@link BatonListener#lockAcquired}.
     *
     * @param lock         the lock's name
     * @param fencingToken the hold's fencing token
     * @param holdCount    the hold count after this acquisition: 1 for a fresh one, more for a re-entry
     * @param waited       from the call to the grant (zero or close to it for an uncontended lock)
     * @param type         which kind of lock
     */
    record LockAcquired(String lock, long fencingToken, int holdCount, Duration waited, LockType type) {
        /**
         * An event of a plain lock, as before lock types were reported.
         *
         * @param lock         the lock's name
         * @param fencingToken the hold's fencing token
         * @param holdCount    the hold count after this acquisition
         * @param waited       from the call to the grant
         */
        public LockAcquired(String lock, long fencingToken, int holdCount, Duration waited) {
            this(lock, fencingToken, holdCount, waited, LockType.LOCK);
        }
    }

    /**
     * See {@link BatonListener#lockTimedOut}.
     *
     * @param lock   the lock's name
     * @param type   which kind of lock
     * @param waited from the call until it gave up (zero or close to it for a single try)
     */
    record LockTimedOut(String lock, LockType type, Duration waited) {
    }

    /**
     * See {@link BatonListener#lockReleased}.
     *
     * @param lock         the lock's name
     * @param fencingToken the token of the hold that ended
     * @param type         which kind of lock
     * @param held         from the grant of the hold to its release, as this process measured it
     */
    record LockReleased(String lock, long fencingToken, LockType type, Duration held) {
        /**
         * An event of a plain lock, as before lock types and hold times were reported (held: zero).
         *
         * @param lock         the lock's name
         * @param fencingToken the token of the hold that ended
         */
        public LockReleased(String lock, long fencingToken) {
            this(lock, fencingToken, LockType.LOCK, Duration.ZERO);
        }
    }

    /**
     * See {@link BatonListener#lockHandedOver}.
     *
     * @param lock      the lock's name
     * @param fromToken the token of the hold that ended
     * @param toToken   the token of the new hold
     * @param type      which kind of lock (only exclusive, unordered locks are handed over locally)
     * @param held      from the grant of the hold that ended to the handover, as this process measured it
     */
    record LockHandedOver(String lock, long fromToken, long toToken, LockType type, Duration held) {
        /**
         * An event of a plain lock, as before lock types and hold times were reported (held: zero).
         *
         * @param lock      the lock's name
         * @param fromToken the token of the hold that ended
         * @param toToken   the token of the new hold
         */
        public LockHandedOver(String lock, long fromToken, long toToken) {
            this(lock, fromToken, toToken, LockType.LOCK, Duration.ZERO);
        }
    }

    /**
     * See {@link BatonListener#renewalFailed}.
     *
     * @param holds  how many holds the failed round was renewing
     * @param reason what went wrong, as Baton's exception message (never a secret)
     */
    record RenewalFailed(int holds, String reason) {
    }

    /**
     * See {@link BatonListener#leaseLost}.
     *
     * @param lock         the lock's name
     * @param fencingToken the token of the lost hold
     * @param reason       why it was lost
     * @param type         which kind of lock
     */
    record LeaseLost(String lock, long fencingToken, String reason, LockType type) {
        /**
         * An event of a plain lock, as before lock types were reported.
         *
         * @param lock         the lock's name
         * @param fencingToken the token of the lost hold
         * @param reason       why it was lost
         */
        public LeaseLost(String lock, long fencingToken, String reason) {
            this(lock, fencingToken, reason, LockType.LOCK);
        }
    }

    /**
     * See {@link BatonListener#rateLimitDecided}.
     *
     * @param limiter  the rate limiter's name
     * @param decision what it decided
     * @param peek     true for a {@link RateLimiter#peek} (nothing was charged), false for an acquisition
     */
    record RateLimitDecided(String limiter, RateLimitDecision decision, boolean peek) {
        /**
         * The decision of an acquisition, as before peeks were told apart.
         *
         * @param limiter  the rate limiter's name
         * @param decision what it decided
         */
        public RateLimitDecided(String limiter, RateLimitDecision decision) {
            this(limiter, decision, false);
        }
    }

    /**
     * A leadership began.
     *
     * @param election the election's name
     * @param epoch    the leadership's epoch
     * @param instance this Baton's instance id
     */
    record LeaderElected(String election, long epoch, String instance) {
    }

    /**
     * A leadership ended.
     *
     * @param election the election's name
     * @param epoch    the epoch that ended
     * @param reason   why
     * @param led      for how long it led, as this process measured it
     */
    record LeaderRevoked(String election, long epoch, RevocationReason reason, Duration led) {
    }

    /**
     * A latch was counted down.
     *
     * @param latch     the latch's name
     * @param remaining the count left after this decrement; 0 if it released the latch or it was not set
     */
    record LatchCountedDown(String latch, long remaining) {
    }
}
