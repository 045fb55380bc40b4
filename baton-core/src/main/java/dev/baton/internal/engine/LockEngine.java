package dev.baton.internal.engine;


import dev.baton.BatonConfig;
import dev.baton.BatonListener;
import dev.baton.HeldLock;
import dev.baton.LockType;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Require;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hold lifecycle of one Baton, shared by every kind of lock and by re-entrant owners and leases alike: it runs
 * attempts, turns grants into {@link Hold}s, hands watchdog holds to the {@link Watchdog}, times fixed leases out,
 * releases and hands over, abandons attempts whose reply was lost, and tells holders about lost leases. What differs
 * between kinds of lock (the scripts, whether holds are exclusive) is in their {@link LockDriver}; facades
 * ({@link DriverLock}, {@link HoldLease}) only check arguments and translate outcomes; which primitives exist and on
 * which topology is decided above, in {@code Primitives}.
 *
 * <p>Owners are opaque strings chosen by the facades ({@code <instance>:t<thread id>} for a thread, re-entrant;
 * {@code <instance>:L<n>} for a lease). The engine sees owners, not threads: a re-entrant hold may name a thread
 * whose end releases it ({@link #ownerThreadEnded}). The runtime's single-threaded scheduler serves timers, re-checks
 * and renewals; its tasks never block. The engine depends on the {@link BatonRuntime} and the drivers it is given,
 * never on a family, and the runtime tells it when it closes.
 */
public final class LockEngine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    private final BatonRuntime runtime;
    /** The runtime this engine started for itself ({@link #start(BatonConfig)}), closed with it; else null. */
    private final BatonRuntime ownRuntime;
    private final BatonConfig config;
    private final Identity identity;
    private final Transport gateway;
    private final Ticker ticker;
    private final ReleaseNotifications<AcquireAttempt> notifications;
    private final Watchdog watchdog;
    private final Map<HoldKey, Hold> reentrantHolds = new ConcurrentHashMap<>();
    /**
     * The hold of this Baton on each lock it holds, by lock key, for drivers with {@link LockDriver#localQueueing()}:
     * lets local waiters queue without asking Redis.
     */
    private final Map<String, Hold> localHolders = new ConcurrentHashMap<>();
    /** Every hold not yet ended, of every driver: what {@link #endEverything} must tell when the Baton closes. */
    private final Set<Hold> live = ConcurrentHashMap.newKeySet();
    /** Attempts that ended without the lock, withdrawn in Redis (and sent again while a lost reply is unconfirmed). */
    private final Abandons abandons = new Abandons(this);
    private final long recheckNanos;
    /** How every facade of this engine waits for its attempts: stateless apart from the engine, so shared. */
    private final Waiting waiting = new Waiting(this);
    private final int localHandoffLimit;

    private LockEngine(BatonRuntime runtime, boolean owned) {
        this.runtime = runtime;
        this.ownRuntime = owned ? runtime : null;
        this.config = runtime.config();
        this.identity = runtime.identity();
        this.gateway = runtime.gateway();
        this.ticker = runtime.ticker();
        // Keep a subscription a little after its last waiter left, so a hot lock does not resubscribe every time.
        long lingerNanos = Math.min(config.recheckInterval().toNanos(), TimeUnit.SECONDS.toNanos(1));
        this.notifications = new ReleaseNotifications<>(gateway, this::schedule, lingerNanos);
        this.watchdog = new Watchdog(this, config.watchdogLease().toMillis());
        this.recheckNanos = config.recheckInterval().toNanos();
        this.localHandoffLimit = config.localHandoffLimit();
        runtime.onClose(this::endEverything);
        watchdog.start();
    }

    /**
     * The lock engine of a runtime: it shares the runtime's connection, scheduler and identity, and ends its waits
     * and holds when the runtime closes.
     */
    public static LockEngine start(BatonRuntime runtime) {
        return new LockEngine(runtime, false);
    }

    /** An engine on a runtime of its own, closed with the engine: for tests and tools that need locks only. */
    public static LockEngine start(BatonConfig config) {
        return new LockEngine(BatonRuntime.start(config), true);
    }

    public String instanceId() {
        return runtime.instanceId();
    }

    /** The holds of this engine still held, as snapshots; see {@code Baton.heldLocks()}. */
    public List<HeldLock> heldLocks() {
        long now = ticker.nanos();
        Instant wallNow = Instant.now();
        List<HeldLock> snapshot = new ArrayList<>();
        for (Hold hold : live) {
            if (hold.isHeld()) {
                snapshot.add(hold.snapshot(now, wallNow));
            }
        }
        snapshot.sort(Comparator.comparing(HeldLock::name).thenComparingLong(HeldLock::fencingToken));
        return snapshot;
    }

    /** The bridge from this engine's attempts to blocking calls and futures, shared by every facade. */
    public Waiting waiting() {
        return waiting;
    }

    /** Who is asking: owner ids and holder descriptions, for the facades (the engine itself sees only owners). */
    public Identity identity() {
        return identity;
    }

    // ---- acquiring ----

    /**
     * Starts an attempt on behalf of the calling thread (its description is recorded as the holder's). A re-entrant
     * attempt may re-enter the owner's current hold of this lock; a lease attempt never re-enters.
     *
     * @param permits     how much of the lock to ask for (1, or n permits of a semaphore)
     * @param ownerThread the thread whose end ends a watchdog-renewed hold of a re-entrant owner (see
     *                    {@link #ownerThreadEnded}), or null
     */
    public AcquireAttempt attempt(LockDriver driver, LockKeys keys, String owner, int permits, long leaseMillis,
                                  boolean watchdogLease, long waitNanos, boolean reentrant, Thread ownerThread) {
        return attempt(driver, keys, owner, identity.holderOfCallingThread(), ownerThread, permits, leaseMillis,
                watchdogLease, waitNanos, reentrant);
    }

    /**
     * Starts an attempt on behalf of a caller described by {@code holder} (taken on the caller's thread): for
     * composite acquisitions that go on from callbacks, such as a multi-lock's.
     */
    public AcquireAttempt attempt(LockDriver driver, LockKeys keys, String owner, String holder, Thread ownerThread,
                                  int permits, long leaseMillis, boolean watchdogLease, long waitNanos,
                                  boolean reentrant) {
        checkOpen();
        driver.validityMillis(leaseMillis); // refuses a lease the driver cannot grant, before anything is sent
        Hold current = reentrant ? reentrantHolds.get(holdKey(driver, keys, owner)) : null;
        long heldToken = current != null && current.isHeld() ? current.token : 0;
        AcquireRequest request = new AcquireRequest(driver, keys, owner, holder, permits, leaseMillis, heldToken,
                watchdogLease, reentrant, ticker.nanos(), reentrant ? ownerThread : null);
        return new AcquireAttempt(this, request, waitNanos).start();
    }

    CompletableFuture<LockDriver.Acquired> tryAcquire(AcquireRequest r, boolean willWait) {
        abandons.beforeTry(r);
        return r.driver().acquire(r, willWait);
    }

    /**
     * Whether a release of {@code keys} must publish even if no waiter marked the lock in Redis: this Baton has local
     * waiters on its channel.
     */
    public boolean hasLocalWaiters(LockKeys keys) {
        return notifications.hasWaiters(keys.channel());
    }

    /**
     * Whether another owner of this Baton holds the lock, as far as this Baton knows; only known for drivers with
     * {@link LockDriver#localQueueing()}.
     */
    boolean heldLocallyByOther(LockKeys keys, String owner) {
        Hold h = localHolders.get(keys.lock());
        return h != null && h.isHeld() && !h.owner.equals(owner);
    }

    /** Turns a grant into a hold: a new one, or the thread's existing hold re-entered. */
    public Hold granted(AcquireRequest r, AcquireAttempt.Grant grant) {
        if (runtime.events().enabled()) {
            Duration waited = Duration.ofNanos(Math.max(0, ticker.nanos() - r.startedNanos()));
            String name = r.keys().name();
            LockType type = r.driver().type();
            runtime.events().emit(l -> l.lockAcquired(new BatonListener.LockAcquired(name, grant.token(),
                    grant.holdCount(), waited, type)));
        }
        long expiresAt = grant.sentAtNanos()
                + TimeUnit.MILLISECONDS.toNanos(r.driver().validityMillis(r.leaseMillis()));
        // One key for the look-up and the registration (and, kept in the hold, for the unlock that forgets it).
        HoldKey key = r.reentrant() ? holdKey(r.driver(), r.keys(), r.owner()) : null;
        Hold existing = key != null ? reentrantHolds.get(key) : null;
        if (existing != null && existing.isHeld()) {
            if (existing.token == grant.token()) {
                // The count is the caller's own: Redis may count more, if a re-entry whose reply was lost ran after
                // all, and the caller's last unlock must still end the hold (see release).
                existing.reentered(existing.count() + 1, r.watchdog(), expiresAt);
                track(existing);
                return existing;
            }
            // Redis granted a fresh acquisition, so the hold we believed in was lost before we noticed.
            lost(existing, Hold.goneAt("re-entry"));
        }
        Hold hold = new Hold(r.driver(), r.keys(), r.owner(), grant.token(), grant.holdCount(), r.watchdog(),
                expiresAt, grant.sentAtNanos(), r.holder(), r.ownerThread());
        if (log.isDebugEnabled()) {
            log.debug("acquired lock '{}' (fencing token {}, owner {}, lease {} ms{})", r.keys().name(), grant.token(),
                    r.owner(), r.leaseMillis(), r.watchdog() ? ", renewed by the watchdog" : "");
        }
        if (key != null) {
            hold.reentrantKey = key;
            reentrantHolds.put(key, hold);
        }
        track(hold);
        return hold;
    }

    /** Undoes {@link #granted} for a caller that gave up meanwhile (the orphan is then released in Redis). */
    public void abandon(Hold hold, AcquireAttempt.Grant grant) {
        if (grant.holdCount() > 1) {
            hold.setCount(hold.count() - 1); // it was a re-entry: the outer hold stays
            endWatchdogReentryIfOver(hold);
            return;
        }
        watchdog.unwatch(hold);
        localHolders.remove(hold.keys.lock(), hold);
        reentrantHolds.remove(holdKey(hold), hold);
        hold.markReleased();
        live.remove(hold);
    }

    /**
     * After a hold count went down: if that ended a watchdog re-entry into a fixed-lease hold, renewal stops and the
     * hold runs out one lease after its last renewal. Returns whether it did.
     */
    private boolean endWatchdogReentryIfOver(Hold hold) {
        if (!hold.watchdogEndsAt(hold.count())) {
            return false;
        }
        watchdog.unwatch(hold);
        track(hold);
        return true;
    }

    private void track(Hold hold) {
        live.add(hold);
        if (hold.driver.localQueueing()) {
            localHolders.put(hold.keys.lock(), hold);
        }
        if (hold.watchdog()) {
            watchdog.watch(hold);
            hold.expiryTimer(null);
        } else {
            long delay = hold.expiresAtNanos() - ticker.nanos();
            hold.expiryTimer(schedule(() -> lost(hold, "its lease ran out"), delay));
        }
        if (!hold.isHeld()) {
            watchdog.unwatch(hold); // lost or released while being tracked
            live.remove(hold);
        }
    }

    // ---- releasing ----

    /**
     * Releases one hold count in Redis. When the last count goes, the hold leaves the watchdog first, so no renewal
     * can follow the release; and if another owner of this Baton is waiting, the lock goes straight to it (at most
     * {@code localHandoffLimit} times in a row, so other processes get their turn).
     *
     * @return the hold count left in Redis, or -1 if Redis no longer had the lock for this owner
     */
    public int release(Hold hold) {
        boolean last = hold.count() <= 1;
        if (last) {
            watchdog.unwatch(hold);
            // Before looking for local waiters: a waiter registers first and then looks for us (Dekker-style), so
            // either we see it here or it sees the lock as no longer held locally and asks Redis.
            localHolders.remove(hold.keys.lock(), hold);
            AcquireAttempt next = localHandoffLimit == 0 || !hold.driver.localQueueing() ? null
                    : notifications.claimForHandoff(hold.keys.channel(), localHandoffLimit);
            if (next != null) {
                return handOver(hold, next);
            }
        }
        long left;
        try {
            left = gateway.await(hold.driver.releaseHold(hold,
                    notifications.hasWaiters(hold.keys.channel())));
            if (left > 0 && last) {
                left = releaseUncounted(hold, left);
            }
        } catch (RuntimeException e) {
            if (last) {
                hold.markReleased(); // we gave it up; it expires with its lease
                live.remove(hold);
            }
            throw e;
        }
        if (left > 0) {
            hold.setCount(hold.count() - 1);
            endWatchdogReentryIfOver(hold);
        } else if (left == 0) {
            hold.markReleased();
            live.remove(hold);
            released(hold);
        } else {
            lost(hold, Hold.goneAt("release"));
        }
        return (int) left;
    }

    /**
     * The owner's last release left counts in Redis that the owner never took: re-entries whose reply was lost (the
     * caller was told they failed) that ran after all. They are released too, so the hold ends with the caller's last
     * unlock rather than staying held, renewed, by nobody.
     *
     * @return what the last of those releases answered: 0 released, -1 gone
     */
    private long releaseUncounted(Hold hold, long left) {
        log.warn("lock '{}' (fencing token {}): Redis counted {} more hold{} than its owner took (a re-entry whose "
                + "reply was lost ran after all); releasing {} too", hold.keys.name(), hold.token, left,
                left == 1 ? "" : "s", left == 1 ? "it" : "them");
        for (long extra = left; extra > 0 && left > 0; extra--) {
            left = gateway.await(hold.driver.releaseHold(hold, notifications.hasWaiters(hold.keys.channel())));
        }
        return left;
    }

    /**
     * The delay of {@code Lease.releaseAfter} in whole milliseconds, rounded up (Redis expiry resolution), after the
     * checks every lease duration gets; 0 for a zero delay, which releases at once.
     *
     * @param delay not negative
     */
    public static long keepMillis(Duration delay) {
        if (Require.notNegative(delay, "delay").isZero()) {
            return 0;
        }
        long belowMilli = delay.getNano() % 1_000_000;
        Duration roundedUp = belowMilli == 0 ? delay : delay.plusNanos(1_000_000 - belowMilli);
        return Require.positive(roundedUp, "delay").toMillis();
    }

    /**
     * Ends a hold locally while leaving it in Redis to expire {@code millis} from now (Lease.releaseAfter). The hold
     * leaves the watchdog and the local holders first, so no renewal can stretch the new expiry; it counts as
     * released here (its {@code lost} future never completes), and waiters take the lock when it expires. No release
     * message is published: waiters find the lock free at their next re-check.
     *
     * @return true if the expiry was set, false if Redis no longer had the lock for this owner (the hold is then
     *         marked lost)
     * @throws UnsupportedOperationException if the hold's kind of lock cannot leave a hold to expire (nothing changed)
     */
    public boolean keep(Hold hold, long millis) {
        // Out of the watchdog before the script is sent: a renewal sent after it could lengthen the lease again.
        watchdog.unwatch(hold);
        localHolders.remove(hold.keys.lock(), hold);
        CompletableFuture<Boolean> reply;
        try {
            reply = hold.driver.keep(hold, millis);
        } catch (UnsupportedOperationException refused) {
            track(hold); // nothing was sent: the hold goes on as before
            throw refused;
        }
        boolean set;
        try {
            set = gateway.await(reply);
        } catch (RuntimeException e) {
            hold.markReleased(); // we gave it up; it expires with its lease, or sooner if the script ran
            live.remove(hold);
            throw e;
        }
        if (!set) {
            lost(hold, Hold.goneAt("when it was to be left to expire"));
            return false;
        }
        hold.markReleased();
        live.remove(hold);
        reentrantHolds.remove(holdKey(hold), hold);
        if (log.isDebugEnabled()) {
            log.debug("left lock '{}' (fencing token {}) to expire in {} ms", hold.keys.name(), hold.token, millis);
        }
        released(hold);
        return true;
    }

    /** The event and the log line of a hold released for the last time. */
    private void released(Hold hold) {
        if (runtime.events().enabled()) { // no lambda to allocate on the release path without a listener
            Duration held = heldSoFar(hold);
            runtime.events().emit(l -> l.lockReleased(new BatonListener.LockReleased(hold.keys.name(), hold.token,
                    hold.driver.type(), held)));
        }
        if (log.isDebugEnabled()) {
            log.debug("released lock '{}' (fencing token {})", hold.keys.name(), hold.token);
        }
    }

    /**
     * Passes the lock from {@code from} to a claimed local waiter in one script; the waiter's try never happens. If a
     * waiter of another Baton has claimed the lock (it waited past the fairness threshold), the script releases it to
     * that waiter instead, and the local waiter tries on its own.
     */
    private int handOver(Hold from, AcquireAttempt to) {
        AcquireRequest next = to.request();
        long sentAt = ticker.nanos();
        CompletableFuture<Long> reply = from.driver.handoff(from, next);
        // Order matters for a hot lock: register the new owner's hold, let the releasing thread go on, and only then
        // wake the new owner. A releasing thread that loops back to lock() then sees the lock held locally and
        // queues for the next handoff, instead of racing to Redis.
        CompletableFuture<Long> outcome = new CompletableFuture<>();
        reply.whenComplete((token, e) -> {
            if (e != null || token <= 0) { // 0: released to another waiter's claim instead; the waiter tries
                to.handoffFailed();
                if (e != null) {
                    outcome.completeExceptionally(e);
                } else {
                    outcome.complete(token);
                }
                return;
            }
            Hold nextHold = to.prepareHandoff(token, sentAt);
            outcome.complete(token);
            to.settleWith(to.finishHandoff(nextHold, token, sentAt));
        });
        long token;
        try {
            token = gateway.await(outcome);
        } catch (RuntimeException e) {
            from.markReleased(); // we gave it up; it expires with its lease
            live.remove(from);
            throw e;
        }
        if (token < 0) {
            lost(from, Hold.goneAt("release"));
            return -1;
        }
        from.markReleased();
        live.remove(from);
        if (token == 0) { // another waiter (of any Baton) had a claim: the script released the lock to it
            released(from);
            return 0;
        }
        if (runtime.events().enabled()) {
            Duration held = heldSoFar(from);
            runtime.events().emit(l -> l.lockHandedOver(new BatonListener.LockHandedOver(from.keys.name(), from.token,
                    token, from.driver.type(), held)));
        }
        if (log.isDebugEnabled()) {
            log.debug("handed lock '{}' from {} to {} (fencing token {})", from.keys.name(), from.owner, next.owner(),
                    token);
        }
        return 0;
    }

    /** Best-effort release of an acquisition nobody wants any more (its caller timed out or was cancelled). */
    public CompletableFuture<Void> releaseOrphan(LockDriver driver, LockKeys keys, String owner, long token) {
        return driver.release(keys, owner, token, notifications.hasWaiters(keys.channel()))
                .handle((v, e) -> {
                    if (e != null) {
                        log.warn("could not release lock '{}' (fencing token {}) that its caller no longer wanted; it "
                                + "expires with its lease: {}", keys.name(), token, translate(e).getMessage());
                    }
                    return null;
                });
    }

    /**
     * After an attempt ended without the lock: removes a mark it left in Redis and, if {@code mayHoldGrant} (a try of
     * it got no reply), releases the grant such a try may have made; see {@link Abandons}.
     */
    public void abandon(AcquireRequest request, boolean mayHoldGrant) {
        abandons.abandon(request, mayHoldGrant);
    }

    /**
     * For a driver whose tries travel on another connection than its abandons: completes once no abandon of the
     * request's owner on its lock can still run in Redis (and release what the try acquires); fails, translated, if
     * Redis does not answer one. See {@link Abandons}.
     */
    public CompletableFuture<Void> abandonsSettled(AcquireRequest request) {
        return abandons.settled(request);
    }

    void forgetReentrantHold(Hold hold) {
        reentrantHolds.remove(holdKey(hold), hold);
    }

    public Hold reentrantHold(LockDriver driver, LockKeys keys, String owner) {
        return reentrantHolds.get(holdKey(driver, keys, owner));
    }

    /**
     * The thread that owns a watchdog-renewed hold ended without unlocking it. Nobody can unlock it any more, so
     * renewing it would keep every other process out for as long as this one lives; it is released at once rather than
     * left to run out its lease, since waiting would protect nothing: what the thread left half done is the same
     * either way, and fencing tokens are what keeps a resource safe from it (docs/lock-protocol.md, "A thread that
     * ends holding a lock"). The holder is told as for any lost lease: a warning naming the lock and the thread, and a
     * {@code LeaseLost} event.
     */
    void ownerThreadEnded(Hold hold) {
        reentrantHolds.remove(holdKey(hold), hold);
        lost(hold, "its owning thread '" + hold.ownerThread.getName() + "' ended without unlocking it; released, "
                + "since nobody can unlock it any more");
        releaseWhole(hold, Math.max(1, hold.count()));
    }

    /** Releases every count of a hold that nobody holds any more, one release script per count; failures logged. */
    private void releaseWhole(Hold hold, int counts) {
        hold.driver.release(hold.keys, hold.owner, hold.token, notifications.hasWaiters(hold.keys.channel()))
                .whenComplete((left, e) -> {
                    if (e != null) {
                        log.warn("could not release lock '{}' (fencing token {}); it expires with its lease: {}",
                                hold.keys.name(), hold.token, translate(e).getMessage());
                    } else if (left > 0 && counts > 1) {
                        releaseWhole(hold, counts - 1);
                    }
                });
    }

    void lost(Hold hold, String reason) {
        lost(hold, reason, Hold.Loss.GONE);
    }

    /**
     * Whether a hold is still held here, marking it lost first if its local lease estimate has run out. The watchdog's
     * sweep (or a fixed lease's timer) marks it too, but on the scheduler's thread, which may run late: after a pause
     * ({@code SIGSTOP}, a long GC), the application's threads often run before it does, and must not be told that a
     * lease Redis may already have given to someone else is still valid.
     */
    public boolean checkExpiry(Hold hold) {
        if (!hold.isHeld()) {
            return false;
        }
        if (ticker.nanos() - hold.expiresAtNanos() < 0) {
            return true;
        }
        expired(hold);
        return false;
    }

    /** A hold whose local lease estimate ran out: lost, with the cause as far as this process can tell it. */
    void expired(Hold hold) {
        if (!hold.watchdog()) {
            lost(hold, "its lease ran out");
        } else if (hold.isRenewalUnanswered()) {
            // A renewal was sent and none succeeded since: Redis did not answer in time.
            lost(hold, "its lease could not be renewed before it ran out (Redis did not answer)",
                    Hold.Loss.UNANSWERED);
        } else {
            // No renewal even went out since the last success: this process did not run it in time, and Redis may
            // have let the lease run out and granted the lock to someone else while it answered everyone.
            lost(hold, "its lease ran out before this process renewed it (the process was paused or too busy to run "
                    + "the renewal in time)", Hold.Loss.STALLED);
        }
    }

    void lost(Hold hold, String reason, Hold.Loss cause) {
        watchdog.unwatch(hold);
        localHolders.remove(hold.keys.lock(), hold);
        live.remove(hold);
        if (hold.markLost(reason, cause)) {
            log.warn("lost lock '{}' (fencing token {}, owner {}): {}", hold.keys.name(), hold.token, hold.owner,
                    reason);
            runtime.events().emit(l -> l.leaseLost(new BatonListener.LeaseLost(hold.keys.name(), hold.token, reason,
                    hold.driver.type())));
            completeForUser(() -> hold.lost.complete(null));
        }
    }

    public void completeForUser(Runnable completion) {
        runtime.completeForUser(completion);
    }

    // ---- plumbing for the engine's parts ----

    public Transport gateway() {
        return gateway;
    }

    /** The runtime's time: every reading of the engine's (deadlines, waits, lease estimates) comes from here. */
    public long nanos() {
        return ticker.nanos();
    }

    /** A caller found the lock held and waits: for the listener. */
    void waiting(AcquireRequest r) {
        if (runtime.events().enabled()) {
            runtime.events().emit(l -> l.lockWaiting(new BatonListener.LockWaiting(r.keys().name(),
                    r.driver().type())));
        }
    }

    /** A wait ran out, or a single try found the lock held: for the listener. */
    void timedOut(AcquireRequest r) {
        if (runtime.events().enabled()) {
            Duration waited = Duration.ofNanos(Math.max(0, ticker.nanos() - r.startedNanos()));
            runtime.events().emit(l -> l.lockTimedOut(new BatonListener.LockTimedOut(r.keys().name(),
                    r.driver().type(), waited)));
        }
    }

    /** How long a hold has lasted, by the engine's ticker: for the events that end it. */
    private Duration heldSoFar(Hold hold) {
        return Duration.ofNanos(Math.max(0, ticker.nanos() - hold.acquiredAtNanos));
    }

    /** A renewal round failed: for the listener. */
    void renewalFailed(int holds, String reason) {
        runtime.events().emit(l -> l.renewalFailed(new BatonListener.RenewalFailed(holds, reason)));
    }

    ReleaseNotifications<AcquireAttempt> notifications() {
        return notifications;
    }

    public long watchdogLeaseMillis() {
        return config.watchdogLease().toMillis();
    }

    long recheckNanos() {
        return recheckNanos;
    }



    public RuntimeException translate(Throwable e) {
        return gateway.translate(e);
    }

    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return runtime.schedule(task, delayNanos);
    }

    void scheduleRepeating(Runnable task, long periodNanos) {
        runtime.scheduleRepeating(task, periodNanos);
    }

    /** What this engine is keeping track of right now; for leak tests and diagnostics. */
    public record Bookkeeping(int renewedHolds, int reentrantHolds, int localHolders, int waitedLockNames, int waiters,
                       int sleepingWaiters, int scheduledTasks) {
    }

    public Bookkeeping bookkeeping() {
        return new Bookkeeping(watchdog.watchedCount(), reentrantHolds.size(), localHolders.size(),
                notifications.channelCount(), notifications.waiterCount(), notifications.sleepingWaiterCount(),
                runtime.scheduledTasks());
    }

    public void checkOpen() {
        runtime.checkOpen();
    }

    public boolean isClosed() {
        return runtime.isClosed();
    }

    public IllegalStateException closedWhileWaiting(LockKeys keys) {
        return new IllegalStateException("this Baton was closed while waiting for lock '" + keys.name() + "'");
    }

    /**
     * Ends everything in progress when the runtime closes, so that nobody is left hanging or uninformed: every wait
     * fails with {@link IllegalStateException}; every hold still held is marked lost (nothing renews it any more, it
     * expires with its lease in Redis). The runtime closes the connection afterwards, which fails any command still
     * in flight.
     */
    private void endEverything() {
        notifications.closeAll(new IllegalStateException("this Baton was closed while waiting for a lock"));
        Set<Hold> held = Collections.newSetFromMap(new IdentityHashMap<>());
        held.addAll(localHolders.values());
        held.addAll(live);
        held.addAll(reentrantHolds.values());
        held.addAll(watchdog.watched());
        for (Hold hold : held) {
            lost(hold, "its Baton was closed, so nothing renews it; it expires with its lease", Hold.Loss.CLOSED);
        }
    }

    /** Closes the runtime this engine started for itself; an engine on a shared runtime closes with the runtime. */
    @Override
    public void close() {
        if (ownRuntime != null) {
            ownRuntime.close();
        }
    }

    /**
     * A thread's hold on one lock, by owner, lock key and kind of lock (a read and a write hold of one thread on one
     * read-write lock are two holds). Not a concatenated string: it is looked up several times per lock() and
     * unlock(), and both strings are long-lived, with their hashes cached.
     */
    record HoldKey(String owner, String lock, LockType type) {
    }

    private static HoldKey holdKey(LockDriver driver, LockKeys keys, String owner) {
        return new HoldKey(owner, keys.lock(), driver.type());
    }

    private static HoldKey holdKey(Hold hold) {
        return hold.reentrantKey != null ? hold.reentrantKey : holdKey(hold.driver, hold.keys, hold.owner);
    }
}
