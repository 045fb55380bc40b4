package dev.baton.internal.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One wait for a lock, driven entirely by callbacks so that no thread is parked (blocking callers simply wait on
 * {@link #result}).
 *
 * <pre>
 *   try --acquired--> done(grant)
 *    |--held, no wait allowed or deadline passed--> done(null)
 *    |--held, not subscribed when the try was sent--> subscribe, then try again (no release slips through)
 *    |--held, a release message came meanwhile (epoch moved)--> try again at once
 *    '--held--> WAITING: until a release message wakes us, min(recheck, lock's pttl, deadline) passes,
 *               or a local holder hands the lock straight to us (claim); then try again
 * </pre>
 *
 * When another owner of the same Baton holds the lock, or another local waiter is asleep after its try found it
 * held, the attempt skips the first try and queues at once: the local holder will either hand the lock over or
 * publish its release, because it sees this waiter; and the sleeping waiter's try already marked the lock, so the
 * next release wakes this Baton. Asking Redis again would only cost a failed try on a busy lock. (A re-entry never
 * queues.)
 *
 * <p>The phase ({@code SENDING}, {@code WAITING}, {@code CLAIMED}) decides who may act: only a WAITING attempt can
 * be woken, re-checked or claimed, each by one compare-and-set, so at most one try is ever in flight. The attempt
 * ends exactly once: acquired, timed out ({@code null}), failed (Redis unavailable) or cancelled. However it ends,
 * it leaves nothing behind: timers cancelled, waiter unregistered, and an acquisition that succeeded in Redis after
 * the attempt had already ended is released again.
 */
final class AcquireAttempt implements ReleaseNotifications.Waiter {

    /** What a successful attempt got: the fencing token, Redis's hold count, and when the winning try was sent. */
    record Grant(long token, int holdCount, long sentAtNanos) {
    }

    private static final int SENDING = 0;
    private static final int WAITING = 1;
    private static final int CLAIMED = 2;

    /** The hold, or null if the wait ran out; completed exceptionally if Redis failed or the attempt was cancelled. */
    final CompletableFuture<Hold> result = new CompletableFuture<>();

    private final LockEngine engine;
    private final AcquireRequest request;
    private final LockKeys keys;
    private final boolean waits;
    private final long deadlineNanos;
    private final AtomicInteger phase = new AtomicInteger(SENDING);

    private volatile boolean registered;
    private volatile boolean holdsWakeUp;
    /** Our last try found the lock held (and marked it as waited for); only such a waiter can be queued behind. */
    private volatile boolean sleptAfterTry;
    private volatile long epochSeen = -1;
    private volatile ScheduledFuture<?> recheckTimer;
    private volatile ScheduledFuture<?> deadlineTimer;
    private volatile CompletableFuture<Void> settled = CompletableFuture.completedFuture(null);

    /**
     * @param waitNanos 0 for a single try, {@link Long#MAX_VALUE} for no deadline
     */
    AcquireAttempt(LockEngine engine, AcquireRequest request, long waitNanos) {
        this.engine = engine;
        this.request = request;
        this.keys = request.keys();
        this.waits = waitNanos > 0;
        this.deadlineNanos = waitNanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + waitNanos;
    }

    boolean waits() {
        return waits;
    }

    AcquireAttempt start() {
        if (waits && deadlineNanos != Long.MAX_VALUE) {
            deadlineTimer = engine.schedule(this::expire, deadlineNanos - System.nanoTime());
        }
        // A re-entry never queues: its own hold is what the others wait for.
        if (waits && request.heldToken() == 0 && queuedLocally()) {
            waitInLocalQueue();
        } else {
            send();
        }
        return this;
    }

    /**
     * Abandons the attempt. The returned future completes once a try that was in flight has come back and, if it
     * acquired the lock after all, the lock was released again.
     */
    CompletableFuture<Void> cancel() {
        if (result.cancel(false)) {
            cleanUp();
        }
        return settled;
    }

    @Override
    public boolean wake() {
        if (result.isDone() || !phase.compareAndSet(WAITING, SENDING)) {
            return false;
        }
        holdsWakeUp = true;
        cancelRecheck();
        send();
        return true;
    }

    /**
     * A local holder wants to hand the lock to this waiter; true if the waiter agreed (it will not try meanwhile). A
     * replica-acknowledged waiter never agrees: a handoff is a write no {@code WAIT} covers, so it acquires through
     * Redis instead (the releaser publishes, because it knows it has a local waiter).
     */
    @Override
    public boolean claim() {
        if (request.acknowledgement() != null || result.isDone() || !phase.compareAndSet(WAITING, CLAIMED)) {
            return false;
        }
        cancelRecheck();
        return true;
    }

    @Override
    public boolean sleepsOnHeldLock() {
        return sleptAfterTry && phase.get() == WAITING && !result.isDone();
    }

    @Override
    public void closed(RuntimeException reason) {
        fail(reason);
    }

    AcquireRequest request() {
        return request;
    }

    /** The handoff of a claimed attempt is under way; it settles when {@code handoff} completes. */
    void settleWith(CompletableFuture<Void> handoff) {
        settled = handoff;
    }

    /**
     * First half of a handoff that succeeded: registers the hold of this attempt's owner (so the lock shows as held
     * locally), or returns null if the attempt already ended. {@link #finishHandoff} then wakes the caller.
     */
    Hold prepareHandoff(long token, long sentAtNanos) {
        return result.isDone() ? null : engine.granted(request, new Grant(token, 1, sentAtNanos));
    }

    /** Second half: completes the attempt with the hold, or undoes it if the caller gave up meanwhile. */
    CompletableFuture<Void> finishHandoff(Hold hold, long token, long sentAtNanos) {
        return complete(hold, new Grant(token, 1, sentAtNanos));
    }

    /** The handoff did not happen (the holder had lost the lock, or Redis failed): try on our own. */
    void handoffFailed() {
        if (phase.compareAndSet(CLAIMED, SENDING)) {
            send();
        }
    }

    /**
     * Whether someone of this Baton is ahead of us: a local holder, or a local waiter asleep after a try. (Not a
     * waiter that is itself only queued: two newcomers must not queue behind each other with nobody asking Redis.)
     */
    private boolean queuedLocally() {
        return engine.heldLocallyByOther(keys, request.owner())
                || engine.notifications().hasSleepingWaiterOtherThan(keys.channel(), this);
    }

    private void waitInLocalQueue() {
        registered = true;
        engine.waiting(keys);
        phase.set(WAITING);
        // Register first, then look again: either the local holder's unlock (or the release message that wakes the
        // waiter ahead) sees us, or we see nobody ahead any more and try.
        CompletableFuture<Void> subscription = engine.notifications().register(keys.channel(), this);
        boolean stillQueued = queuedLocally();
        subscription.whenComplete((v, e) -> {
            if (result.isDone()) {
                engine.notifications().unregister(keys.channel(), this);
            } else if (e != null) {
                fail(e);
            } else {
                epochSeen = engine.notifications().epoch(keys.channel());
                if (stillQueued && queuedLocally()) {
                    arm(0);
                } else {
                    recheck();
                }
            }
        });
    }

    private void send() {
        if (result.isDone()) {
            return;
        }
        if (engine.isClosed()) {
            fail(engine.closedWhileWaiting(keys));
            return;
        }
        epochSeen = engine.notifications().epoch(keys.channel());
        long sentAt = System.nanoTime();
        settled = engine.tryAcquire(request, waits)
                .handle((reply, error) -> onReply(reply, error, sentAt))
                .thenCompose(f -> f);
    }

    /** @return a future that completes when any clean-up this reply triggered is done */
    private CompletableFuture<Void> onReply(LockCalls.Acquired reply, Throwable error, long sentAt) {
        if (error != null) {
            fail(error);
            return CompletableFuture.completedFuture(null);
        }
        if (reply.granted()) {
            return acquired(new Grant(reply.token(), reply.holdCount(), sentAt));
        }
        holdsWakeUp = false;
        if (result.isDone()) {
            return CompletableFuture.completedFuture(null);
        }
        if (!waits || (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos >= 0)) {
            if (result.complete(null)) {
                cleanUp();
            }
            return CompletableFuture.completedFuture(null);
        }
        long pttl = reply.pttl();
        sleptAfterTry = true;
        if (registered) {
            phase.set(WAITING);
            arm(pttl);
            return CompletableFuture.completedFuture(null);
        }
        registered = true;
        engine.waiting(keys);
        boolean listeningWhenSent = epochSeen != -1;
        CompletableFuture<Void> subscription = engine.notifications().register(keys.channel(), this);
        if (listeningWhenSent && subscription.isDone() && !subscription.isCompletedExceptionally()) {
            // The subscription was live before our try ran: a release after it moved the epoch.
            phase.set(WAITING);
            arm(pttl);
        } else {
            subscription.whenComplete((v, e) -> {
                if (result.isDone()) {
                    engine.notifications().unregister(keys.channel(), this); // clean-up may have run before we were added
                } else if (e != null) {
                    fail(e);
                } else {
                    send(); // the re-check after subscribing: a release before it cannot be missed
                }
            });
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Redis granted the lock. The hold is registered right here, on the thread that heard it, so that other local
     * threads see the lock as held locally before the caller even wakes up.
     */
    private CompletableFuture<Void> acquired(Grant grant) {
        return complete(result.isDone() ? null : engine.granted(request, grant), grant);
    }

    private CompletableFuture<Void> complete(Hold hold, Grant grant) {
        if (hold != null && engine.isClosed()) {
            // Granted while the Baton closes: close() may not have seen this hold. Nobody would renew it or tell
            // its holder, so the caller gets the same answer as every other waiter, and the grant is undone.
            fail(engine.closedWhileWaiting(keys));
            engine.abandon(hold, grant);
            return engine.releaseOrphan(keys, request.owner(), grant.token());
        }
        if (hold != null) {
            if (result.complete(hold)) {
                cleanUp();
                return CompletableFuture.completedFuture(null);
            }
            engine.abandon(hold, grant);
        }
        // The caller gave up while the grant was on its way: undo the acquisition it no longer wants.
        return engine.releaseOrphan(keys, request.owner(), grant.token());
    }

    /** In phase WAITING: sleep until woken, claimed, or the re-check delay passes. */
    private void arm(long pttlMillis) {
        long delay = engine.recheckNanos();
        if (pttlMillis > 0) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(pttlMillis + 1));
        }
        if (deadlineNanos != Long.MAX_VALUE) {
            delay = Math.min(delay, Math.max(0, deadlineNanos - System.nanoTime()));
        }
        recheckTimer = engine.schedule(this::recheck, delay);
        if (engine.isClosed()) {
            // Registered before this look: either close() found us among the waiters, or we see it here.
            fail(engine.closedWhileWaiting(keys));
            return;
        }
        // A release that arrived since our try moved the epoch: go again rather than sleep through it.
        if (engine.notifications().epoch(keys.channel()) != epochSeen) {
            recheck();
        }
        if (result.isDone()) {
            cancelRecheck();
        }
    }

    private void recheck() {
        if (phase.compareAndSet(WAITING, SENDING)) {
            cancelRecheck();
            send();
        }
    }

    private void fail(Throwable error) {
        if (result.completeExceptionally(engine.translate(error))) {
            cleanUp();
        }
    }

    private void expire() {
        if (result.complete(null)) {
            cleanUp();
        }
    }

    private void cleanUp() {
        cancelRecheck();
        ScheduledFuture<?> d = deadlineTimer;
        if (d != null) {
            d.cancel(false);
        }
        if (registered) {
            engine.notifications().unregister(keys.channel(), this);
            if (holdsWakeUp && !acquired() && !engine.isClosed()) {
                // We were woken for a release but gave up before using it: pass the wake-up on, from the scheduler
                // (inline, a chain of waiters failing at once would recurse through each other's clean-up).
                engine.schedule(() -> engine.notifications().wakeOne(keys.channel()), 0);
            }
        }
    }

    private boolean acquired() {
        return result.isDone() && !result.isCompletedExceptionally() && result.join() != null;
    }

    private void cancelRecheck() {
        ScheduledFuture<?> t = recheckTimer;
        if (t != null) {
            t.cancel(false);
        }
    }
}
