package dev.baton.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One wait for a lock, driven entirely by callbacks so that no thread is parked (blocking callers simply wait on
 * {@link #result}).
 *
 * <pre>
 *   try --acquired--> done(grant)
 *    |--held, no wait allowed or deadline passed--> done(null)
 *    |--held, not yet subscribed--> subscribe, then try again (a release before the subscription is not missed)
 *    |--held, a release message came meanwhile (epoch moved)--> try again at once
 *    '--held--> arm: sleep until a release message wakes us, or min(recheck, lock's pttl, deadline) passes; try again
 * </pre>
 *
 * The attempt ends exactly once: acquired, timed out ({@code null}), failed (Redis unavailable) or cancelled. However
 * it ends, it leaves nothing behind: timers cancelled, waiter unregistered (the subscription goes with the last
 * waiter), and an acquisition that succeeded in Redis after the attempt had already ended is released again.
 */
final class AcquireAttempt implements ReleaseNotifications.Waiter {

    /** What a successful attempt got: the fencing token, Redis's hold count, and when the winning try was sent. */
    record Grant(long token, int holdCount, long sentAtNanos) {
    }

    final CompletableFuture<Grant> result = new CompletableFuture<>();

    private final LockEngine engine;
    private final AcquireRequest request;
    private final LockKeys keys;
    private final boolean waits;
    private final long deadlineNanos;
    private final AtomicBoolean armed = new AtomicBoolean();

    private volatile boolean registered;
    private volatile boolean holdsWakeUp;
    private volatile long epochAtSend;
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

    AcquireAttempt start() {
        if (waits && deadlineNanos != Long.MAX_VALUE) {
            deadlineTimer = engine.schedule(this::expire, deadlineNanos - System.nanoTime());
        }
        send();
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
        if (!armed.compareAndSet(true, false)) {
            return false;
        }
        holdsWakeUp = true;
        cancelRecheck();
        send();
        return true;
    }

    private void send() {
        if (result.isDone()) {
            return;
        }
        epochAtSend = engine.notifications().epoch(keys.channel());
        long sentAt = System.nanoTime();
        settled = engine.<List<Object>>tryAcquire(request)
                .handle((reply, error) -> onReply(reply, error, sentAt))
                .thenCompose(f -> f);
    }

    /** @return a future that completes when any clean-up this reply triggered is done */
    private CompletableFuture<Void> onReply(List<Object> reply, Throwable error, long sentAt) {
        if (error != null) {
            if (result.completeExceptionally(engine.translate(error))) {
                cleanUp();
            }
            return CompletableFuture.completedFuture(null);
        }
        if (((Long) reply.get(0)) == 1L) {
            Grant grant = new Grant((Long) reply.get(1), ((Long) reply.get(2)).intValue(), sentAt);
            if (result.complete(grant)) {
                cleanUp();
                return CompletableFuture.completedFuture(null);
            }
            // The caller gave up while this try was in flight: undo the acquisition it no longer wants.
            return engine.releaseOrphan(keys, request.owner(), grant.token());
        }
        holdsWakeUp = false;
        if (result.isDone()) {
            return CompletableFuture.completedFuture(null);
        }
        if (!waits || System.nanoTime() - deadlineNanos >= 0) {
            if (result.complete(null)) {
                cleanUp();
            }
            return CompletableFuture.completedFuture(null);
        }
        if (!registered) {
            registered = true;
            engine.notifications().register(keys.channel(), this).whenComplete((v, e) -> {
                if (result.isDone()) {
                    // Ended while subscribing: clean-up may have run before the waiter was added.
                    engine.notifications().unregister(keys.channel(), this);
                } else if (e != null) {
                    if (result.completeExceptionally(engine.translate(e))) {
                        cleanUp();
                    }
                } else {
                    send();
                }
            });
            return CompletableFuture.completedFuture(null);
        }
        arm((Long) reply.get(1));
        return CompletableFuture.completedFuture(null);
    }

    private void arm(long pttlMillis) {
        long delay = engine.recheckNanos();
        if (pttlMillis > 0) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(pttlMillis + 1));
        }
        if (deadlineNanos != Long.MAX_VALUE) {
            delay = Math.min(delay, Math.max(0, deadlineNanos - System.nanoTime()));
        }
        armed.set(true);
        recheckTimer = engine.schedule(this::recheck, delay);
        // A release that arrived between our try and arming moved the epoch: go again rather than sleep through it.
        if (engine.notifications().epoch(keys.channel()) != epochAtSend) {
            recheck();
        }
        if (result.isDone()) {
            cancelRecheck();
        }
    }

    private void recheck() {
        if (armed.compareAndSet(true, false)) {
            cancelRecheck();
            send();
        }
    }

    private void expire() {
        if (result.complete(null)) {
            cleanUp();
        }
    }

    private void cleanUp() {
        armed.set(false);
        cancelRecheck();
        ScheduledFuture<?> d = deadlineTimer;
        if (d != null) {
            d.cancel(false);
        }
        if (registered) {
            engine.notifications().unregister(keys.channel(), this);
            if (holdsWakeUp && !acquired()) {
                // We were woken for a release but gave up before using it: pass the wake-up on.
                engine.notifications().wakeOne(keys.channel());
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
