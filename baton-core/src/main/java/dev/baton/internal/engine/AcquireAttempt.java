package dev.baton.internal.engine;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One wait for a lock, driven entirely by callbacks so that no thread is parked (blocking callers simply wait on
 * {@link #result}).
 *
 * <p>The attempt is a state machine. Its {@link State} is the one thing that decides who may act, and it changes
 * only through {@link #transition}, one compare-and-set from the states an event applies to:
 *
 * <pre>
 *   from         event                                                    to
 *   FIRST_TRY    started while someone of this Baton is ahead             QUEUED
 *   FIRST_TRY    reply: held, and the caller waits                        SUBSCRIBING
 *   SUBSCRIBING  subscription confirmed after the try was sent            TRYING     (the re-check try)
 *   SUBSCRIBING  subscription was confirmed before the try was sent       SLEEPING
 *   TRYING       reply: held                                              SLEEPING
 *   WOKEN        reply: held (the release went to someone else)           TRYING, then SLEEPING
 *   QUEUED,      release message                                          WOKEN
 *   SLEEPING     re-check timer, or a release seen by the epoch           TRYING
 *                a releasing local holder claims it                       CLAIMED
 *   CLAIMED      the handoff failed                                       TRYING
 *   FIRST_TRY, TRYING, WOKEN, CLAIMED   reply: granted / handed over      ACQUIRED
 *   any of the above                    deadline, or a single try held    TIMED_OUT
 *   any of the above                    Redis failed, the Baton closed    FAILED
 *   any of the above                    the caller gave up                CANCELLED
 * </pre>
 *
 * <ul>
 *   <li>{@code FIRST_TRY}: the first try is in flight; no waiter is registered yet.</li>
 *   <li>{@code QUEUED}: registered without a try, because another owner of this Baton holds the lock or another
 *       local waiter sleeps after a try that found it held: the local holder will hand the lock over or publish its
 *       release because it sees this waiter, and the sleeping waiter's try already marked the lock, so the next
 *       release wakes this Baton. Asking Redis again would only cost a failed try. (A re-entry never queues.)</li>
 *   <li>{@code SUBSCRIBING}: the first try found the lock held; registered, and waiting for Redis to confirm the
 *       subscription, after which it tries again, so that a release before the subscription cannot slip through.
 *       If the subscription was already confirmed before the try was sent, it sleeps at once.</li>
 *   <li>{@code TRYING}: a try is in flight (a re-check, the try after subscribing, or after a failed handoff).</li>
 *   <li>{@code WOKEN}: a try that a release message started is in flight. If the attempt ends without the lock from
 *       here, it passes the wake-up on to the next local waiter; if the try finds the lock held, the release went to
 *       someone else and it is {@code TRYING} again (nothing to pass on).</li>
 *   <li>{@code SLEEPING}: the last try found the lock held. It waits until a release message wakes it, a local
 *       holder claims it for a handoff, or min(recheck interval, the holder's remaining lease, the deadline)
 *       passes; a release message that came while the try was in flight (the channel's epoch moved) re-checks at
 *       once rather than sleeping through it.</li>
 *   <li>{@code CLAIMED}: a local holder is handing the lock straight to it; it does not try meanwhile.</li>
 *   <li>Ends, exactly once, from any other state: {@code ACQUIRED} (only with a try or a handoff in flight),
 *       {@code TIMED_OUT} (the deadline passed, or a single try found the lock held; {@link #result} is null),
 *       {@code FAILED} (Redis unavailable, or the Baton closed) or {@code CANCELLED}.</li>
 * </ul>
 *
 * Only {@code QUEUED} and {@code SLEEPING} can be woken, re-checked or claimed, so at most one try is ever in flight.
 * However the attempt ends, it leaves nothing behind: timers cancelled, waiter unregistered, and an acquisition that
 * succeeded in Redis after the attempt had already ended is released again.
 */
public final class AcquireAttempt implements ReleaseNotifications.Waiter, Pending<Hold> {

    /** What a successful attempt got: the fencing token, Redis's hold count, and when the winning try was sent. */
    public record Grant(long token, int holdCount, long sentAtNanos) {
    }

    /** Where the attempt is; see the class comment for what each state means and where it may go. */
    public enum State {
        FIRST_TRY, QUEUED, SUBSCRIBING, TRYING, WOKEN, SLEEPING, CLAIMED, ACQUIRED, TIMED_OUT, FAILED, CANCELLED;

        boolean ended() {
            return ordinal() >= ACQUIRED.ordinal();
        }

        /** Whether the class comment's diagram has an arrow from this state to {@code next}. */
        boolean allows(State next) {
            if (ended()) {
                return false;
            }
            if (next == ACQUIRED) {
                return this == FIRST_TRY || this == TRYING || this == WOKEN || this == CLAIMED;
            }
            if (next.ended()) {
                return true;
            }
            return switch (this) {
                case FIRST_TRY -> next == QUEUED || next == SUBSCRIBING;
                case QUEUED, SLEEPING -> next == WOKEN || next == TRYING || next == CLAIMED;
                case SUBSCRIBING -> next == TRYING || next == SLEEPING;
                case TRYING -> next == SLEEPING;
                case WOKEN, CLAIMED -> next == TRYING;
                default -> false;
            };
        }
    }

    private static final Set<State> LIVE = EnumSet.range(State.FIRST_TRY, State.CLAIMED);
    private static final Set<State> ASLEEP = EnumSet.of(State.QUEUED, State.SLEEPING);
    private static final Set<State> TRY_IN_FLIGHT = EnumSet.of(State.FIRST_TRY, State.TRYING, State.WOKEN);
    private static final Set<State> ONLY_FIRST_TRY = EnumSet.of(State.FIRST_TRY);
    private static final Set<State> ONLY_SUBSCRIBING = EnumSet.of(State.SUBSCRIBING);
    private static final Set<State> ONLY_TRYING = EnumSet.of(State.TRYING);
    private static final Set<State> ONLY_WOKEN = EnumSet.of(State.WOKEN);
    private static final Set<State> ONLY_CLAIMED = EnumSet.of(State.CLAIMED);

    /** The hold, or null if the wait ran out; completed exceptionally if Redis failed or the attempt was cancelled. */
    public final CompletableFuture<Hold> result = new CompletableFuture<>();

    private final LockEngine engine;
    private final AcquireRequest request;
    private final LockKeys keys;
    private final boolean waits;
    private final boolean hasDeadline;
    private final long deadlineNanos;
    private final AtomicReference<State> state = new AtomicReference<>(State.FIRST_TRY);
    /**
     * Held while a try is handed to the transport, and while the attempt ends and sends its abandon: a try goes out
     * either before the abandon (on the same connection, so Redis runs it first and the abandon covers it) or not at
     * all. Without it, a try whose state was checked just before a deadline or a cancellation ended the attempt on
     * another thread could go out after the abandon and queue in Redis a waiter that nobody withdraws; a semaphore's
     * or a fair lock's release would then hand that dead waiter its permits or the lock, held for a whole lease (seen
     * once in CI: a semaphore's permits came back only with the dead waiter's lease). Neither side blocks inside:
     * both only hand commands to the transport.
     */
    private final Object sendGate = new Object();

    // Data, not decisions: what the current state needs to remember.
    private volatile long epochSeen = -1;
    /**
     * The last fencing token issued for the lock when the latest try found it busy (0 if the driver does not say): a
     * handoff message naming a token not above it predates that try.
     */
    private volatile long tokenSeen;
    /** When the latest try was sent, on the engine's ticker. */
    private volatile long lastSentAt;
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
        this.hasDeadline = waits && waitNanos != Long.MAX_VALUE;
        this.deadlineNanos = hasDeadline ? engine.nanos() + waitNanos : 0;
    }

    boolean waits() {
        return waits;
    }

    /** The current state; for tests and diagnostics. */
    public State state() {
        return state.get();
    }

    AcquireAttempt start() {
        if (hasDeadline) {
            deadlineTimer = engine.schedule(this::expire, deadlineNanos - engine.nanos());
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
     * Abandons the attempt. The returned future completes once the attempt has ended (here, or on the thread that
     * was ending it when this call came) and a try that was in flight has come back and, if it acquired the lock
     * after all, the lock was released again.
     */
    @Override
    public CompletableFuture<Hold> result() {
        return result;
    }

    @Override
    public CompletableFuture<Void> cancel() {
        end(LIVE, State.CANCELLED, null, null);
        return result.handle((hold, e) -> null).thenCompose(v -> settled);
    }

    @Override
    public boolean wake(String message) {
        long handedToken = grantIn(message);
        if (handedToken < 0 || transition(ASLEEP, State.WOKEN) == null) {
            return false;
        }
        cancelRecheck();
        if (handedToken > 0 && takeHandedLock(handedToken)) {
            return true;
        }
        send();
        return true;
    }

    /**
     * What a message means for this attempt (see {@link LockDriver#grantIn}); a handoff older than the latest try
     * that found the lock busy was meant for an earlier wait of the same owner (one that gave the lock up again), so
     * it is not for this one.
     */
    private long grantIn(String message) {
        if (ReleaseNotifications.WAKE_ALL.equals(message)) {
            return 0; // a wake-all (readers after a writer, everyone after a reconnect): a reason to try, for any kind
        }
        long token = request.driver().grantIn(message, request);
        return token > 0 && token <= tokenSeen ? -1 : token;
    }

    private boolean concerns(String message) {
        return grantIn(message) >= 0;
    }

    /**
     * The release script made this attempt's owner the holder and said so in the message: the attempt ends with the
     * lock without asking Redis. The lease is counted from this attempt's last try, which reached Redis before the
     * handoff could (the owner was queued by it), so the local estimate never outlives the lease in Redis. If that
     * leaves less than half the lease, the attempt asks Redis instead, whose acquire script recognises the handed
     * lock and grants it with a fresh lease.
     */
    private boolean takeHandedLock(long token) {
        long since = lastSentAt;
        if (engine.nanos() - since > TimeUnit.MILLISECONDS.toNanos(request.leaseMillis()) / 2) {
            return false;
        }
        Grant grant = new Grant(token, 1, since);
        settled = complete(ONLY_WOKEN, state.get().ended() ? null : engine.granted(request, grant), grant);
        return true;
    }

    /**
     * A local holder wants to hand the lock to this waiter; true if the waiter agreed (it will not try meanwhile). A
     * replica-acknowledged waiter never agrees: a handoff is a write no {@code WAIT} covers, so it acquires through
     * Redis instead (the releaser publishes, because it knows it has a local waiter).
     */
    @Override
    public boolean claim() {
        if (!request.driver().localQueueing() || transition(ASLEEP, State.CLAIMED) == null) {
            return false;
        }
        cancelRecheck();
        return true;
    }

    @Override
    public boolean sleepsOnHeldLock() {
        return state.get() == State.SLEEPING;
    }

    @Override
    public void closed(RuntimeException reason) {
        fail(reason);
    }

    public AcquireRequest request() {
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
        return state.get().ended() ? null : engine.granted(request, new Grant(token, 1, sentAtNanos));
    }

    /** Second half: completes the attempt with the hold, or undoes it if the caller gave up meanwhile. */
    CompletableFuture<Void> finishHandoff(Hold hold, long token, long sentAtNanos) {
        return complete(ONLY_CLAIMED, hold, new Grant(token, 1, sentAtNanos));
    }

    /** The handoff did not happen (the holder had lost the lock, or Redis failed): try on our own. */
    void handoffFailed() {
        if (transition(ONLY_CLAIMED, State.TRYING) != null) {
            send();
        }
    }

    /**
     * The only way the state changes: atomically, from whichever of {@code from} the attempt is in, to {@code to}.
     *
     * @return the state left, or null if the attempt was in none of {@code from} (another event came first)
     */
    private State transition(Set<State> from, State to) {
        while (true) {
            State current = state.get();
            if (!from.contains(current)) {
                return null;
            }
            assert current.allows(to) : "lock '" + keys.name() + "': no transition " + current + " -> " + to;
            if (state.compareAndSet(current, to)) {
                return current;
            }
        }
    }

    /**
     * Ends the attempt, if it is in one of {@code from}: completes {@link #result} and cleans up. A try in flight when
     * it ends without the lock may still grant it (its reply will be undone when it comes, if it comes).
     *
     * @return whether this call ended it
     */
    private boolean end(Set<State> from, State outcome, Hold hold, Throwable failure) {
        return end(from, outcome, hold, failure, null);
    }

    /**
     * @param replyLost true if the attempt ends because its try got no reply (it may have granted the lock, or may
     *                  still), false if it ends on its try's reply, null if a try in flight may grant it
     */
    private boolean end(Set<State> from, State outcome, Hold hold, Throwable failure, Boolean replyLost) {
        State left;
        synchronized (sendGate) {
            left = transition(from, outcome);
            if (left == null) {
                return false;
            }
            if (outcome != State.ACQUIRED) {
                withdraw(replyLost != null ? replyLost : TRY_IN_FLIGHT.contains(left));
            }
        }
        switch (outcome) {
            case ACQUIRED -> result.complete(hold);
            case TIMED_OUT -> {
                engine.timedOut(request);
                result.complete(null);
            }
            case FAILED -> result.completeExceptionally(engine.translate(failure));
            default -> result.cancel(false);
        }
        cleanUp(left, outcome);
        return true;
    }

    /**
     * Whether someone of this Baton is ahead of us: a local holder, or a local waiter asleep after a try. (Not a
     * waiter that is itself only queued: two newcomers must not queue behind each other with nobody asking Redis.)
     */
    private boolean queuedLocally() {
        if (!request.driver().localQueueing()) {
            return false;
        }
        return engine.heldLocallyByOther(keys, request.owner())
                || engine.notifications().hasSleepingWaiterOtherThan(keys.channel(), this);
    }

    private void waitInLocalQueue() {
        if (transition(ONLY_FIRST_TRY, State.QUEUED) == null) {
            return; // the deadline passed already
        }
        engine.waiting(request);
        // Register first, then look again: either the local holder's unlock (or the release message that wakes the
        // waiter ahead) sees us, or we see nobody ahead any more and try.
        CompletableFuture<Void> subscription = engine.notifications().register(keys.channel(), this);
        boolean stillQueued = queuedLocally();
        subscription.whenComplete((v, e) -> {
            if (state.get().ended()) {
                engine.notifications().unregister(keys.channel(), this); // clean-up may have run before we were added
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
        CompletableFuture<LockDriver.Acquired> sent;
        long sentAt;
        synchronized (sendGate) {
            if (state.get().ended()) {
                return;
            }
            if (engine.isClosed()) {
                fail(engine.closedWhileWaiting(keys));
                return;
            }
            epochSeen = engine.notifications().epoch(keys.channel());
            sentAt = engine.nanos();
            lastSentAt = sentAt;
            sent = engine.tryAcquire(request, waits);
        }
        settled = sent.handle((reply, error) -> onReply(reply, error, sentAt)).thenCompose(f -> f);
    }

    /** @return a future that completes when any clean-up this reply triggered is done */
    private CompletableFuture<Void> onReply(LockDriver.Acquired reply, Throwable error, long sentAt) {
        if (error != null) {
            // No reply (a timeout, a lost connection): the try may have run, or may still run when Redis resumes.
            // If the attempt ended already, the abandon it sent then came after this try and covers it.
            end(LIVE, State.FAILED, null, error, true);
            return CompletableFuture.completedFuture(null);
        }
        if (reply.granted()) {
            return acquired(new Grant(reply.token(), reply.holdCount(), sentAt));
        }
        tokenSeen = reply.lastToken();
        // Held. A try a release message started found it taken: that release went to someone else.
        transition(ONLY_WOKEN, State.TRYING);
        if (!waits || (hasDeadline && engine.nanos() - deadlineNanos >= 0)) {
            end(TRY_IN_FLIGHT, State.TIMED_OUT, null, null, false);
            return CompletableFuture.completedFuture(null);
        }
        long pttl = reply.pttl();
        if (transition(ONLY_TRYING, State.SLEEPING) != null) {
            arm(pttl); // registered already
            return CompletableFuture.completedFuture(null);
        }
        if (transition(ONLY_FIRST_TRY, State.SUBSCRIBING) == null) {
            return CompletableFuture.completedFuture(null); // ended meanwhile
        }
        engine.waiting(request);
        boolean listeningWhenSent = epochSeen != -1;
        CompletableFuture<Void> subscription = engine.notifications().register(keys.channel(), this);
        if (listeningWhenSent && subscription.isDone() && !subscription.isCompletedExceptionally()) {
            // The subscription was live before our try ran: a release after it moved the epoch.
            if (transition(ONLY_SUBSCRIBING, State.SLEEPING) != null) {
                arm(pttl);
            } else {
                engine.notifications().unregister(keys.channel(), this); // clean-up may have run before we were added
            }
        } else {
            subscription.whenComplete((v, e) -> {
                if (state.get().ended()) {
                    engine.notifications().unregister(keys.channel(), this); // as above
                } else if (e != null) {
                    fail(e);
                } else if (transition(ONLY_SUBSCRIBING, State.TRYING) != null) {
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
        return complete(TRY_IN_FLIGHT, state.get().ended() ? null : engine.granted(request, grant), grant);
    }

    /** Ends the attempt with a grant from one of {@code from}, or undoes the grant if the attempt ended first. */
    private CompletableFuture<Void> complete(Set<State> from, Hold hold, Grant grant) {
        if (hold != null && engine.isClosed()) {
            // Granted while the Baton closes: close() may not have seen this hold. Nobody would renew it or tell
            // its holder, so the caller gets the same answer as every other waiter, and the grant is undone.
            fail(engine.closedWhileWaiting(keys));
            engine.abandon(hold, grant);
            return engine.releaseOrphan(request.driver(), keys, request.owner(), grant.token());
        }
        if (hold != null) {
            if (end(from, State.ACQUIRED, hold, null)) {
                return CompletableFuture.completedFuture(null);
            }
            engine.abandon(hold, grant);
        }
        // The caller gave up while the grant was on its way: undo the acquisition it no longer wants.
        return engine.releaseOrphan(request.driver(), keys, request.owner(), grant.token());
    }

    /** Asleep: until woken, claimed, or the re-check delay passes (shortened by the reply's pttl or the driver). */
    private void arm(long pttlMillis) {
        if (!ASLEEP.contains(state.get())) {
            return; // woken, claimed or ended meanwhile: a timer now would only cause a needless try
        }
        long delay = request.driver().recheckNanos(engine.recheckNanos());
        if (pttlMillis > 0) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(pttlMillis + 1));
        }
        // The re-check and the holder's lease are the same question for every local waiter; the driver's limit (a
        // fairness threshold to cross) and the deadline are this waiter's own, and always end in a try.
        long ownLimit = request.driver().sleepLimitNanos(request);
        if (hasDeadline) {
            ownLimit = Math.min(ownLimit, Math.max(0, deadlineNanos - engine.nanos()));
        }
        boolean mayDelegate = delay < ownLimit;
        recheckTimer = engine.schedule(mayDelegate ? this::recheckUnlessElderDoes : this::recheck,
                Math.min(delay, ownLimit));
        if (engine.isClosed()) {
            // Registered before this look: either close() found us among the waiters, or we see it here.
            fail(engine.closedWhileWaiting(keys));
            return;
        }
        // A release that arrived since our try moved the epoch: go again rather than sleep through it (unless every
        // message since then named another waiter).
        if (engine.notifications().heardSince(keys.channel(), epochSeen, this::concerns)) {
            recheck();
        }
        if (state.get().ended()) {
            cancelRecheck();
        }
    }

    /**
     * The re-check timer fired for a reason every local waiter of this lock shares (no release heard within the
     * re-check interval, or the holder's lease about to run out). One try answers it for all of them, so only the
     * eldest local waiter of the same kind asks Redis; the others sleep another interval. Without this, n waiters
     * in one process would send n tries per interval: 10,000 waiters, 10,000 scripts a second, a polling storm the
     * pub/sub wake-ups exist to avoid. Whatever the eldest's try finds, the others lose nothing: a lock it finds
     * free becomes its own, and the others are then queued behind a local holder, which hands over or publishes.
     * When the eldest leaves without the lock, the next one's own timer, at most one interval away, takes over.
     */
    private void recheckUnlessElderDoes() {
        if (request.driver().localQueueing() && elderWaitsLocally()) {
            arm(0);
        } else {
            recheck();
        }
    }

    /** Whether a local waiter for the same lock and kind registered before this one and still waits. */
    private boolean elderWaitsLocally() {
        AcquireAttempt eldest = engine.notifications().eldest(keys.channel());
        return eldest != null && eldest != this && !eldest.state.get().ended()
                && eldest.request.driver().type() == request.driver().type()
                && eldest.request.driver().localQueueing();
    }

    private void recheck() {
        if (transition(ASLEEP, State.TRYING) != null) {
            cancelRecheck();
            send();
        }
    }

    private void fail(Throwable error) {
        end(LIVE, State.FAILED, null, error);
    }

    private void expire() {
        end(LIVE, State.TIMED_OUT, null, null);
    }

    /**
     * The attempt ended without the lock: withdraw what its tries may have left in Redis, a waiter's mark or, if
     * {@code mayHoldGrant}, a grant whose reply never came (docs/lock-protocol.md, "Acquisitions whose reply was
     * lost"). Sent after every try of ours, on the same connection, so Redis runs it after them; and sent before the
     * caller hears the outcome, so that the caller's next try comes after it.
     */
    private void withdraw(boolean mayHoldGrant) {
        if ((waits || mayHoldGrant) && !engine.isClosed()) {
            engine.abandon(request, mayHoldGrant);
        }
    }

    /** After the attempt ended, leaving {@code left}: nothing stays behind. */
    private void cleanUp(State left, State outcome) {
        cancelRecheck();
        ScheduledFuture<?> d = deadlineTimer;
        if (d != null) {
            d.cancel(false);
        }
        if (left == State.FIRST_TRY) {
            return; // never registered
        }
        engine.notifications().unregister(keys.channel(), this);
        if (left == State.WOKEN && outcome != State.ACQUIRED && !engine.isClosed()) {
            // We were woken for a release but gave up before using it: pass the wake-up on, from the scheduler
            // (inline, a chain of waiters failing at once would recurse through each other's clean-up).
            engine.schedule(() -> engine.notifications().wakeOne(keys.channel()), 0);
        }
    }

    private void cancelRecheck() {
        ScheduledFuture<?> t = recheckTimer;
        if (t != null) {
            t.cancel(false);
        }
    }
}
