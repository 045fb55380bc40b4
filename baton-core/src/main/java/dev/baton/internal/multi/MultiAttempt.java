package dev.baton.internal.multi;

import dev.baton.internal.engine.AcquireAttempt;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.Pending;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One acquisition of a multi-lock, driven by callbacks like an {@link AcquireAttempt} (no thread is parked; blocking
 * callers wait on {@link #result}).
 *
 * <p>It takes the plain locks in the canonical order of {@link MultiLockMembers}, one run after the other:
 * <ul>
 *   <li>a run of several locks (locks a script may touch together) is taken by one {@code multi-acquire.lua} call:
 *       all of them at once, or, when the caller waits, the free ones before the first busy lock;</li>
 *   <li>a busy lock, and a run of one lock, is taken by an ordinary {@link AcquireAttempt} of the plain lock, which
 *       brings everything a plain waiter has: the pub/sub wake-up, the bounded re-check, local queueing and handoff,
 *       the deadline, and the plain lock's fairness;</li>
 *   <li>then it goes on after that lock.</li>
 * </ul>
 * So it waits only for a lock that comes after every lock it holds in the canonical order, which every multi-lock of
 * every process shares: no cycle of waiters can form (docs/multi-lock.md).
 *
 * <p>Every lock taken becomes an ordinary {@link Hold} of the plain lock (watchdog, thread re-entry and loss work as
 * for {@code lock(name)}). If the attempt ends without all of them (the deadline, a single try that found a lock
 * busy, a Redis failure, the caller giving up), it gives back one hold count of each lock it took, in reverse order,
 * and only then completes {@link #result}: whoever waits on it finds nothing left behind.
 *
 * <p>The steps run one at a time, each started by the completion of the one before; {@link #cancel} may come from
 * any thread.
 */
final class MultiAttempt implements Pending<List<Hold>> {

    /** How an attempt that does not get every lock ends. */
    private enum Outcome { TIMED_OUT, FAILED, CANCELLED }

    /** A lock this attempt took: its hold, and the grant (whose hold count tells a re-entry from a fresh hold). */
    private record Taken(Hold hold, AcquireAttempt.Grant grant) {
    }

    /**
     * Every lock's hold in canonical order, or null if the wait ran out (or a single try found a lock busy);
     * completed exceptionally if Redis failed, the Baton closed, or the attempt was cancelled. Completed only after
     * whatever a failed attempt took was given back.
     */
    final CompletableFuture<List<Hold>> result = new CompletableFuture<>();

    private final LockEngine engine;
    private final LockDriver mutex;
    private final MultiLockCalls calls;
    private final MultiLockMembers members;
    private final String owner;
    private final String holder;
    private final long leaseMillis;
    private final boolean watchdog;
    private final boolean reentrant;
    /** The thread that owns the holds of a thread-owned attempt (the caller's), null for a lease. */
    private final Thread ownerThread;
    private final boolean waits;
    private final boolean hasDeadline;
    private final long deadlineNanos;
    private final long startedNanos;
    /** What was taken so far, in canonical order; touched by one step at a time. */
    private final List<Taken> taken = new ArrayList<>();
    private volatile boolean cancelled;
    /** The plain attempt in progress for a busy lock, if any, so that {@link #cancel} can end it. */
    private volatile AcquireAttempt waiting;

    /**
     * @param waitNanos 0 for a single try, {@link Long#MAX_VALUE} for no deadline
     * @param holder    the caller's description ({@link LockEngine#holderOfCallingThread()}, taken on its thread)
     */
    MultiAttempt(LockEngine engine, LockDriver mutex, MultiLockCalls calls, MultiLockMembers members, String owner,
                 String holder, long leaseMillis, boolean watchdog, long waitNanos, boolean reentrant) {
        this.engine = engine;
        this.mutex = mutex;
        this.calls = calls;
        this.members = members;
        this.owner = owner;
        this.holder = holder;
        this.leaseMillis = leaseMillis;
        this.watchdog = watchdog;
        this.reentrant = reentrant;
        this.ownerThread = reentrant ? Thread.currentThread() : null;
        this.waits = waitNanos > 0;
        this.hasDeadline = waits && waitNanos != Long.MAX_VALUE;
        this.startedNanos = engine.nanos();
        this.deadlineNanos = hasDeadline ? startedNanos + waitNanos : 0;
    }

    MultiAttempt start() {
        next(0);
        return this;
    }

    /**
     * Abandons the attempt. The returned future completes once the attempt has ended and given back what it took;
     * if it got every lock before the cancellation could stop it, {@link #result} holds them and the caller decides.
     */
    @Override
    public CompletableFuture<List<Hold>> result() {
        return result;
    }

    /** One command per lock to give back, and the one in flight. */
    @Override
    public int undoCommands() {
        return members.size() + 1;
    }

    @Override
    public CompletableFuture<Void> cancel() {
        cancelled = true;
        AcquireAttempt w = waiting;
        if (w != null) {
            w.cancel();
        }
        return result.handle((holds, e) -> null);
    }

    /** Takes the locks from canonical index {@code index} on. */
    private void next(int index) {
        if (cancelled) {
            end(Outcome.CANCELLED, null);
        } else if (engine.isClosed()) {
            end(Outcome.FAILED, engine.closedWhileWaiting(members.get(index < members.size() ? index : 0)));
        } else if (index == members.size()) {
            List<Hold> holds = new ArrayList<>(taken.size());
            taken.forEach(t -> holds.add(t.hold()));
            result.complete(List.copyOf(holds));
        } else if (members.runEnd(index) - index == 1) {
            waitFor(index);
        } else {
            takeRun(index, members.runEnd(index));
        }
    }

    /** One script for the locks {@code from .. to - 1}, which share a run. */
    private void takeRun(int from, int to) {
        List<LockKeys> run = members.locks().subList(from, to);
        long[] heldTokens = new long[run.size()];
        if (reentrant) {
            for (int k = 0; k < heldTokens.length; k++) {
                Hold h = engine.reentrantHold(mutex, run.get(k), owner);
                heldTokens[k] = h != null && h.isHeld() ? h.token : 0;
            }
        }
        long sentAt = engine.nanos();
        CompletableFuture<MultiLockCalls.Reply> reply;
        try {
            reply = calls.acquire(run, owner, holder, leaseMillis, heldTokens, !waits);
        } catch (RuntimeException e) {
            end(Outcome.FAILED, e);
            return;
        }
        reply.whenComplete((r, e) -> {
            if (e != null) {
                // The script may have run before the reply was lost, or may still run: any lock it took is ours under a
                // token we do not know. Each is abandoned as a plain lock's try whose reply was lost, before the
                // caller hears, so that Redis runs the abandons after the script and before the caller's next try.
                if (!engine.isClosed()) {
                    for (int k = 0; k < run.size(); k++) {
                        engine.abandon(request(run.get(k), heldTokens[k]), true);
                    }
                }
                end(Outcome.FAILED, e);
                return;
            }
            for (int k = 0; k < r.taken(); k++) {
                AcquireRequest request = request(run.get(k), heldTokens[k]);
                AcquireAttempt.Grant grant = new AcquireAttempt.Grant(r.tokens()[k], r.counts()[k], sentAt);
                taken.add(new Taken(engine.granted(request, grant), grant));
            }
            if (r.taken() == run.size()) {
                next(to);
            } else if (!waits) {
                end(Outcome.TIMED_OUT, null);
            } else {
                waitFor(from + r.taken());
            }
        });
    }

    /** What this attempt asks of one lock of a run, as the plain lock's request. */
    private AcquireRequest request(LockKeys lock, long heldToken) {
        return new AcquireRequest(mutex, lock, owner, holder, 1, leaseMillis, heldToken, watchdog, reentrant,
                startedNanos, ownerThread);
    }

    /** Takes one lock with an attempt of the plain lock: a single try, or a wait bounded by what is left. */
    private void waitFor(int index) {
        if (cancelled) {
            end(Outcome.CANCELLED, null);
            return;
        }
        long waitNanos = 0;
        if (waits) {
            waitNanos = hasDeadline ? deadlineNanos - engine.nanos() : Long.MAX_VALUE;
            if (waitNanos <= 0) {
                end(Outcome.TIMED_OUT, null);
                return;
            }
        }
        AcquireAttempt attempt;
        try {
            attempt = engine.attempt(mutex, members.get(index), owner, holder, ownerThread, 1, leaseMillis, watchdog,
                    waitNanos, reentrant);
        } catch (RuntimeException e) {
            end(Outcome.FAILED, e);
            return;
        }
        waiting = attempt;
        if (cancelled) {
            attempt.cancel(); // cancel() may have looked for an attempt before this one was set
        }
        attempt.result.whenComplete((hold, e) -> {
            waiting = null;
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                end(cause instanceof CancellationException && cancelled ? Outcome.CANCELLED : Outcome.FAILED, cause);
            } else if (hold == null) {
                end(Outcome.TIMED_OUT, null);
            } else {
                taken.add(new Taken(hold, new AcquireAttempt.Grant(hold.token, hold.count(), 0)));
                next(index + 1);
            }
        });
    }

    /**
     * Ends without every lock: gives back one hold count of each lock taken, latest first, then completes
     * {@link #result}. Nothing is released in Redis once the Baton is closed: its holds were ended as lost by the
     * close, and expire with their leases, as every other hold of a closed Baton.
     */
    private void end(Outcome outcome, Throwable failure) {
        List<Taken> undo = new ArrayList<>(taken);
        taken.clear();
        Collections.reverse(undo);
        CompletableFuture<Void> released = CompletableFuture.completedFuture(null);
        for (Taken t : undo) {
            engine.abandon(t.hold(), t.grant());
            if (!engine.isClosed()) {
                released = released.thenCompose(v -> releaseQuietly(t.hold()));
            }
        }
        released.whenComplete((v, e) -> {
            switch (outcome) {
                case TIMED_OUT -> result.complete(null);
                case FAILED -> result.completeExceptionally(engine.translate(failure));
                default -> result.cancel(false);
            }
        });
    }

    /** Releases one hold count in Redis; a failure is logged by the engine, and the lock expires with its lease. */
    private CompletableFuture<Void> releaseQuietly(Hold hold) {
        try {
            return engine.releaseOrphan(mutex, hold.keys, owner, hold.token);
        } catch (RuntimeException closedMeanwhile) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
