package dev.baton.internal.engine;

import dev.baton.HeldLock;
import dev.baton.internal.runtime.Identity;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One acquisition as this process sees it: owner, fencing token, hold count and the local belief about its lease.
 * Shared by the thread-owned lock (where re-entries raise {@link #count}) and by {@link HoldLease}.
 *
 * <p>A hold ends exactly once, either {@link #markReleased() released} or {@link #markLost(String, Loss) lost}; only a
 * loss completes {@link #lost} (the engine does, on its callback executor). The local expiry estimate is
 * conservative: it counts the lease from the moment the acquire or renew command was <em>sent</em>, so this process
 * believes the lease ended no later than Redis does.
 */
public final class Hold {
    public enum State { HELD, RELEASED, LOST }

    /**
     * Why a hold was lost, for callers that act on the cause rather than report it (an election tells its leader
     * LOST, UNAVAILABLE or CLOSED).
     */
    public enum Loss {
        /**
         * Redis no longer had it for this owner and token, or its fixed lease ran out (in Redis too).
         */
        GONE,
        /**
         * Its watchdog lease estimate ran out with no renewal outstanding: this process was paused or starved and did
         * not renew it in time. Redis may still have it for this owner, until its lease runs out there.
         */
        STALLED,
        /** Its lease estimate ran out while renewals got no answer from Redis. */
        UNANSWERED,
        /** Its Baton was closed. */
        CLOSED
    }

    /** The kind of lock, whose scripts release and renew this hold. */
    public final LockDriver driver;
    public final LockKeys keys;
    public final String owner;
    public final long token;
    public final CompletableFuture<Void> lost = new CompletableFuture<>();
    /** When the grant's try was sent, on the engine's ticker: the start of the hold time events report. */
    final long acquiredAtNanos;
    /** The holder description of the acquiring caller ({@code Identity.holderOfCallingThread()}), for snapshots. */
    final String holder;
    /**
     * The thread that owns a thread-owned hold, null for a lease: a watchdog-renewed hold whose thread ended is
     * released rather than renewed for as long as the process lives ({@link LockEngine#ownerThreadEnded}).
     */
    final Thread ownerThread;
    /**
     * This hold's key among the engine's re-entrant holds, built once when the hold is registered
     * ({@link LockEngine#granted}) so that the unlock that forgets it does not build it again; null if not registered.
     * Written before the hold is published to other threads.
     */
    LockEngine.HoldKey reentrantKey;

    private int count;
    private State state = State.HELD;
    private String lostReason = "";
    private Loss loss;
    /** Whether a renewal of this hold was sent and has not succeeded since (no reply yet, or a failure). */
    private boolean renewalUnanswered;
    private boolean watchdog;
    /** The hold count of a watchdog re-entry into a fixed-lease hold; 0 if none is active. */
    private int watchdogFromCount;
    private long expiresAtNanos;
    private ScheduledFuture<?> expiryTimer;

    Hold(LockDriver driver, LockKeys keys, String owner, long token, int count, boolean watchdog,
         long expiresAtNanos, long acquiredAtNanos, String holder, Thread ownerThread) {
        this.ownerThread = ownerThread;
        this.acquiredAtNanos = acquiredAtNanos;
        this.holder = holder;
        this.driver = driver;
        this.keys = keys;
        this.owner = owner;
        this.token = token;
        this.count = count;
        this.watchdog = watchdog;
        this.expiresAtNanos = expiresAtNanos;
    }

    public synchronized int count() {
        return count;
    }

    synchronized void setCount(int count) {
        this.count = count;
    }

    public synchronized boolean isHeld() {
        return state == State.HELD;
    }

    public synchronized State state() {
        return state;
    }

    /**
     * Why a hold is lost when Redis no longer has it for its owner and token: the one wording of every such finding.
     *
     * @param when the operation that found it ("release", "renewal", ...); "at " is added to a single word
     */
    static String goneAt(String when) {
        return "the lock was found deleted or owned by someone else " + (when.indexOf(' ') < 0 ? "at " + when : when)
                + " (expired, force-unlocked, or lost by Redis)";
    }

    public synchronized String lostReason() {
        return lostReason;
    }

    /** Why this hold was lost; null while it is not lost. */
    public synchronized Loss loss() {
        return loss;
    }

    /** A renewal of this hold is sent; until one succeeds, it counts as unanswered. */
    synchronized void renewalSent() {
        renewalUnanswered = true;
    }

    /** Whether a renewal was sent and none has succeeded since. */
    synchronized boolean isRenewalUnanswered() {
        return renewalUnanswered;
    }

    synchronized boolean watchdog() {
        return watchdog;
    }

    public synchronized long expiresAtNanos() {
        return expiresAtNanos;
    }

    /**
     * A re-entry: Redis may have lengthened the lease. A watchdog re-entry of a fixed-lease hold keeps the hold
     * renewed until that re-entry is released again ({@link #watchdogEndsAt}).
     */
    synchronized void reentered(int count, boolean watchdog, long expiresAtNanos) {
        this.count = count;
        if (watchdog && !this.watchdog) {
            this.watchdog = true;
            this.watchdogFromCount = count;
        }
        this.expiresAtNanos = later(this.expiresAtNanos, expiresAtNanos);
    }

    /**
     * Whether dropping to {@code count} holds ends the watchdog re-entry of a fixed-lease hold; if so, the hold is
     * fixed-lease again and expires at its last renewal's estimate.
     */
    synchronized boolean watchdogEndsAt(int count) {
        if (watchdogFromCount == 0 || count >= watchdogFromCount) {
            return false;
        }
        watchdog = false;
        watchdogFromCount = 0;
        return true;
    }

    /** A successful renewal sent at some instant: the lease now runs to at least {@code expiresAtNanos}. */
    synchronized void renewed(long expiresAtNanos) {
        if (state == State.HELD) {
            this.expiresAtNanos = later(this.expiresAtNanos, expiresAtNanos);
            renewalUnanswered = false;
        }
    }

    synchronized void expiryTimer(ScheduledFuture<?> timer) {
        if (expiryTimer != null) {
            expiryTimer.cancel(false);
        }
        expiryTimer = timer;
    }

    /** @return true if this call ended the hold (it was held) */
    boolean markReleased() {
        synchronized (this) {
            if (state != State.HELD) {
                return false;
            }
            state = State.RELEASED;
            cancelTimer();
        }
        return true;
    }

    /** @return true if this call ended the hold; the caller then completes {@link #lost}. */
    synchronized boolean markLost(String reason, Loss cause) {
        if (state != State.HELD) {
            return false;
        }
        state = State.LOST;
        lostReason = reason;
        loss = cause;
        cancelTimer();
        return true;
    }

    /** The later of two ticker readings, compared as a difference: a reading may wrap past Long.MAX_VALUE. */
    private static long later(long a, long b) {
        return b - a > 0 ? b : a;
    }

    private void cancelTimer() {
        if (expiryTimer != null) {
            expiryTimer.cancel(false);
            expiryTimer = null;
        }
    }

    /**
     * What this hold looks like now, for operators: the wall-clock start is derived from the ticker, so the hot path
     * never reads the wall clock.
     */
    HeldLock snapshot(long nowNanos, Instant wallNow) {
        int holdCount;
        boolean renewed;
        long expiresAt;
        synchronized (this) {
            holdCount = count;
            renewed = watchdog;
            expiresAt = expiresAtNanos;
        }
        // "instance pid host thread-name": the thread's name may itself contain spaces
        String[] parts = holder.split(" ", 4);
        String thread = parts.length == 4 ? parts[3] : holder;
        return new HeldLock(keys.name(), driver.type(), token, holdCount, thread, Identity.isLeaseOwner(owner),
                wallNow.minusNanos(Math.max(0, nowNanos - acquiredAtNanos)),
                Duration.ofNanos(Math.max(0, expiresAt - nowNanos)), renewed);
    }

    @Override
    public String toString() {
        return "Hold{lock=" + keys.name() + ", owner=" + owner + ", token=" + token + ", state=" + state() + "}";
    }
}
