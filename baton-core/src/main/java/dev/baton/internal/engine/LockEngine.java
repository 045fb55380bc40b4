package dev.baton.internal.engine;

import dev.baton.internal.lock.FairLockDriver;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.multi.MultiLockCalls;
import dev.baton.internal.multi.MultiLockMembers;
import dev.baton.internal.multi.RedisMultiLock;
import dev.baton.internal.primitives.NameInspection;
import dev.baton.internal.redlock.RedlockDriver;
import dev.baton.internal.rw.ReadLockCalls;
import dev.baton.internal.rw.ReadWriteCalls;
import dev.baton.internal.rw.RedisReadWriteLock;
import dev.baton.internal.rw.WriteLockCalls;
import dev.baton.internal.semaphore.RedisSemaphore;
import dev.baton.internal.semaphore.SemaphoreCalls;
import dev.baton.internal.semaphore.SemaphoreTotals;

import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Require;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.QuorumTransport;
import dev.baton.internal.transport.Transport;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.BatonHealth;
import dev.baton.BatonUnavailableException;
import dev.baton.HeldLock;
import dev.baton.LockType;
import dev.baton.BatonListener;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.LockInfo;
import dev.baton.LockOptions;
import dev.baton.ReplicaAcknowledgement;
import dev.baton.ReplicaAcknowledgementException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock machinery of one Baton, shared by every kind of lock and by thread-owned locks and leases alike: it runs
 * attempts, turns grants into {@link Hold}s, hands watchdog holds to the {@link Watchdog}, times fixed leases out and
 * tells holders about lost leases. What differs between kinds of lock (the scripts, whether holds are exclusive) is
 * in their {@link LockDriver}; facades ({@link RedisDistributedLock}, {@link RedisLease}) only check arguments and
 * translate outcomes.
 *
 * <p>Owners are opaque strings: {@code <instance>:t<thread id>} for thread-owned holds, {@code <instance>:L<n>} for
 * leases. The runtime's single-threaded scheduler serves timers, re-checks and renewals; its tasks never block. The
 * engine depends on the {@link BatonRuntime}, never on other primitives, and the runtime tells it when it closes.
 */
public final class LockEngine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);
    /** The lock name {@link #health()} inspects: nobody needs to hold it; reading it proves the scripts run. */
    private static final String HEALTH_PROBE = "baton-health-probe";
    /** The first wait before an unconfirmed abandon is sent again; it doubles up to the maximum. */
    private static final long ABANDON_RETRY_FIRST_MILLIS = 100;
    private static final long ABANDON_RETRY_MAX_MILLIS = 1000;
    /**
     * At most this many unconfirmed abandons are sent again (each a script a second at most while Redis is down);
     * beyond, an orphaned grant expires with its lease, and the warning says so.
     */
    private static final int MAX_UNCONFIRMED_ABANDONS = 4096;

    private final BatonRuntime runtime;
    /** The runtime this engine started for itself ({@link #start(BatonConfig)}), closed with it; else null. */
    private final BatonRuntime ownRuntime;
    private final BatonConfig config;
    private final Identity identity;
    private final Transport gateway;
    private final Ticker ticker;
    private final ReleaseNotifications notifications;
    private final Watchdog watchdog;
    private final Map<HoldKey, Hold> threadHolds = new ConcurrentHashMap<>();
    /**
     * The hold of this Baton on each lock it holds, by lock key, for drivers with {@link LockDriver#localQueueing()}:
     * lets local waiters queue without asking Redis.
     */
    private final Map<String, Hold> localHolders = new ConcurrentHashMap<>();
    /** Every hold not yet ended, of every driver: what {@link #endEverything} must tell when the Baton closes. */
    private final Set<Hold> live = ConcurrentHashMap.newKeySet();
    /**
     * Abandons sent for attempts whose grant may be orphaned (a try got no reply) that Redis has not confirmed yet,
     * by owner, lock and kind; see {@link #abandon}. Empty but during and right after an outage.
     */
    private final Map<Unconfirmed, AcquireRequest> unconfirmedAbandons = new ConcurrentHashMap<>();
    /**
     * Held while an unconfirmed abandon is checked and handed to the connection, and while a try drops the abandons of
     * its owner: the connection sends commands in the order they were handed to it, so no abandon can follow a later
     * try of its owner onto the wire.
     */
    private final Object abandonOrder = new Object();
    private final LockCalls calls;
    /** The plain lock's driver: {@link #calls}, or a {@link RedlockDriver} on independent masters. */
    private final LockDriver mutex;
    /** Why this Baton runs only plain locks (it is a Redlock), or null if it runs every kind. */
    private final String plainOnly;
    private final ReadLockCalls readCalls;
    private final WriteLockCalls writeCalls;
    private final FairLockDriver fair;
    private final long recheckNanos;
    private final int localHandoffLimit;
    /** Warns once per semaphore name of a total in Redis other than the one asked for. */
    private final SemaphoreTotals semaphoreTotals = new SemaphoreTotals();

    private LockEngine(BatonRuntime runtime, boolean owned) {
        this.runtime = runtime;
        this.ownRuntime = owned ? runtime : null;
        this.config = runtime.config();
        this.identity = runtime.identity();
        this.gateway = runtime.gateway();
        this.ticker = runtime.ticker();
        // Keep a subscription a little after its last waiter left, so a hot lock does not resubscribe every time.
        long lingerNanos = Math.min(config.recheckInterval().toNanos(), TimeUnit.SECONDS.toNanos(1));
        this.notifications = new ReleaseNotifications(gateway, this::schedule, lingerNanos);
        this.watchdog = new Watchdog(this, config.watchdogLease().toMillis());
        this.recheckNanos = config.recheckInterval().toNanos();
        this.calls = new LockCalls(gateway, config.fencingTokenRetention(), ticker, config.fairnessThreshold(),
                config.recheckInterval());
        if (gateway instanceof QuorumTransport masters) {
            this.mutex = new RedlockDriver(masters, config, ticker);
            this.plainOnly = "only plain locks run on Redlock masters (BatonConfig.redlock): see docs/redlock.md";
        } else {
            this.mutex = calls;
            this.plainOnly = null;
        }
        this.readCalls = new ReadLockCalls(gateway, config.fencingTokenRetention());
        this.writeCalls = new WriteLockCalls(gateway, config.fencingTokenRetention(), readCalls,
                config.recheckInterval());
        this.fair = new FairLockDriver(gateway, config, calls);
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

    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * A lock with its own options.
     *
     * @throws UnsupportedOperationException if the options ask for replica acknowledgement on a cluster
     */
    public DistributedLock lock(String name, LockOptions options) {
        LockKeys keys = LockKeys.of(config.namespace(), Require.lockName(name));
        Objects.requireNonNull(options, "options");
        checkOpen();
        ReplicaAcknowledgement ack = options.replicaAcknowledgement(config).orElse(null);
        if (ack != null && plainOnly != null) {
            throw new UnsupportedOperationException("lock '" + name + "': replica-acknowledged locks are not supported "
                    + "on Redlock masters, whose safety comes from the majority; use LockOptions.unacknowledged()");
        }
        if (ack != null && gateway.isCluster()) {
            throw new UnsupportedOperationException("lock '" + name + "': replica-acknowledged locks are not supported "
                    + "on a Redis Cluster (WAIT would have to reach the master of the lock's hash slot); use "
                    + "LockOptions.unacknowledged() there");
        }
        return new RedisDistributedLock(this, mutex, keys, ack);
    }

    /** The fair lock of this name (see {@link FairLockDriver}). */
    public DistributedLock fairLock(String name) {
        LockKeys keys = FairLockDriver.keys(config.namespace(), Require.lockName(name));
        checkOpen();
        plainLocksOnly("fair lock '" + name + "'", "its queue");
        return new RedisDistributedLock(this, fair, keys, null);
    }

    /**
     * The read-write lock of this name. Its acquisitions are never replica-acknowledged, whatever the Baton's
     * default (see docs/read-write-lock.md).
     */
    public DistributedReadWriteLock readWriteLock(String name) {
        LockKeys keys = ReadWriteCalls.keys(config.namespace(), Require.lockName(name));
        checkOpen();
        plainLocksOnly("read-write lock '" + name + "'", "its readers and writer intents");
        return new RedisReadWriteLock(this, readCalls, writeCalls, keys);
    }

    /** The semaphore of this name, with {@code permits} in total if it is new (docs/semaphore.md). */
    public DistributedSemaphore semaphore(String name, int permits) {
        LockKeys keys = SemaphoreCalls.keys(config.namespace(), Require.lockName(name));
        Require.positive(permits, "permits");
        checkOpen();
        plainLocksOnly("semaphore '" + name + "'", "its holders, queue and total");
        return new RedisSemaphore(this, SemaphoreCalls.of(gateway, config, permits, semaphoreTotals), keys);
    }

    /**
     * The multi-lock over these names: all of their plain locks, or none (see {@link RedisMultiLock}).
     *
     * @throws IllegalArgumentException      if no name is given, or a name is blank or too long
     * @throws UnsupportedOperationException if this Baton asks for replica acknowledgement by default
     */
    public DistributedLock multiLock(String... names) {
        MultiLockMembers members = MultiLockMembers.of(config.namespace(), gateway.isCluster(), names);
        checkOpen();
        plainLocksOnly("multi-lock '" + members.name() + "'", "the locks it takes together in one script");
        if (config.replicaAcknowledgement().isPresent()) {
            throw new UnsupportedOperationException("multi-lock '" + members.name() + "': replica acknowledgement "
                    + "(BatonConfig.replicaAcknowledgement) is not supported by multi-locks");
        }
        return new RedisMultiLock(this, calls, new MultiLockCalls(gateway, config.fencingTokenRetention()), members);
    }

    /**
     * Every kind of object under this name, read in one atomic script ({@link NameInspection#everyKind}); on Redlock
     * masters, where only plain locks exist, the plain lock's quorum read.
     */
    public LockInfo inspect(String name) {
        checkOpen();
        String checked = Require.lockName(name);
        if (plainOnly != null) {
            return gateway.await(mutex.inspect(LockKeys.of(config.namespace(), checked)));
        }
        return gateway.await(NameInspection.everyKind(gateway, config.namespace(), checked));
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

    /**
     * Runs the plain lock's read-only inspect script on a name of its own, bounded by the command timeout: it
     * reaches Redis and needs Baton's scripts (sent by SHA, or loaded on NOSCRIPT); see {@code Baton.health()}.
     */
    public BatonHealth health() {
        String endpoint = gateway.endpoint();
        String topology = plainOnly != null ? "redlock" : gateway.isCluster() ? "cluster"
                : config.uri().startsWith("redis-sentinel") || config.uri().startsWith("rediss-sentinel") ? "sentinel"
                : "standalone";
        if (runtime.isClosed()) {
            return BatonHealth.down(BatonHealth.Status.CLOSED, endpoint, topology, "this Baton is closed");
        }
        long start = ticker.nanos();
        try {
            gateway.await(mutex.inspect(LockKeys.of(config.namespace(), HEALTH_PROBE)));
            return BatonHealth.up(endpoint, topology, Duration.ofNanos(ticker.nanos() - start));
        } catch (BatonUnavailableException e) {
            return BatonHealth.down(BatonHealth.Status.UNREACHABLE, endpoint, topology, e.getMessage());
        } catch (BatonException e) {
            return BatonHealth.down(BatonHealth.Status.REFUSED, endpoint, topology, e.getMessage());
        } catch (IllegalStateException e) { // closed meanwhile
            return BatonHealth.down(BatonHealth.Status.CLOSED, endpoint, topology, e.getMessage());
        }
    }

    /** The driver of the plain reentrant lock. */
    public LockDriver mutex() {
        return mutex;
    }

    /**
     * Refuses a kind of lock on Redlock masters, before any Redis call.
     *
     * @param what  the lock, for the message
     * @param state what of it would have to live on a quorum
     * @throws UnsupportedOperationException on Redlock masters
     */
    private void plainLocksOnly(String what, String state) {
        if (plainOnly != null) {
            throw new UnsupportedOperationException(what + " cannot run on Redlock masters: " + state + " would have "
                    + "to be agreed by a majority of independent masters, which Baton does not do; " + plainOnly);
        }
    }

    /** This Baton's namespace, the first part of every key. */
    String namespace() {
        return config.namespace();
    }

    // ---- owners ----

    public String threadOwner() {
        return identity.threadOwner();
    }

    public String newLeaseOwner() {
        return identity.newLeaseOwner();
    }

    /** The holder description of the calling thread, as acquire scripts record it for operators. */
    public String holderOfCallingThread() {
        return identity.holderOfCallingThread();
    }

    // ---- acquiring ----

    /**
     * Starts an attempt for the calling thread (its name is recorded as the holder's thread). A thread-owned attempt
     * may re-enter the thread's current hold; a lease attempt never re-enters.
     */
    public AcquireAttempt attempt(LockKeys keys, String owner, long leaseMillis, boolean watchdogLease, long waitNanos,
                           boolean threadOwned, ReplicaAcknowledgement ack) {
        return attempt(mutex, keys, owner, 1, leaseMillis, watchdogLease, waitNanos, threadOwned, ack);
    }

    /**
     * Starts an attempt on a lock of any kind; see {@link #attempt(LockKeys, String, long, boolean, long, boolean,
     * ReplicaAcknowledgement)}.
     *
     * @param permits how much of the lock to ask for (1, or n permits of a semaphore)
     * @param ack     replica acknowledgement, only for the plain lock ({@link #mutex()}); null otherwise
     */
    public AcquireAttempt attempt(LockDriver driver, LockKeys keys, String owner, int permits, long leaseMillis,
                           boolean watchdogLease, long waitNanos, boolean threadOwned, ReplicaAcknowledgement ack) {
        return attempt(driver, keys, owner, identity.holderOfCallingThread(), threadOwned ? Thread.currentThread() : null,
                permits, leaseMillis, watchdogLease, waitNanos, threadOwned, ack);
    }

    /**
     * Starts an attempt on behalf of a caller described by {@code holder} ({@link #holderOfCallingThread()}, taken on
     * the caller's thread), owned by {@code ownerThread} if thread-owned: for composite acquisitions that go on from
     * callbacks, such as a multi-lock's.
     */
    public AcquireAttempt attempt(LockDriver driver, LockKeys keys, String owner, String holder, Thread ownerThread,
                           int permits, long leaseMillis, boolean watchdogLease, long waitNanos, boolean threadOwned,
                           ReplicaAcknowledgement ack) {
        checkOpen();
        driver.checkLease(leaseMillis);
        if (threadOwned) {
            driver.checkThreadOwner(this, keys, owner);
        }
        Hold current = threadOwned ? threadHolds.get(holdKey(driver, keys, owner)) : null;
        long heldToken = current != null && current.isHeld() ? current.token : 0;
        AcquireRequest request = new AcquireRequest(driver, keys, owner, holder, permits, leaseMillis, heldToken,
                watchdogLease, threadOwned, ticker.nanos(), ack, threadOwned ? ownerThread : null);
        return new AcquireAttempt(this, request, waitNanos).start();
    }

    CompletableFuture<LockDriver.Acquired> tryAcquire(AcquireRequest r, boolean willWait) {
        if (!unconfirmedAbandons.isEmpty()) {
            sendUnconfirmedAbandonsBefore(r);
        }
        ReplicaAcknowledgement ack = r.acknowledgement();
        return ack == null ? r.driver().acquire(r, willWait)
                : calls.acquireAcknowledged(r, willWait, ack).thenCompose(reply -> confirm(r, ack, reply));
    }

    /**
     * A grant counts once enough replicas acknowledged it. Otherwise it is undone, precisely (owner and token: a
     * fresh hold is deleted, a re-entry's count goes back), before the attempt fails, so that the caller's exception
     * arrives with nothing left behind. A try that found the lock held passes through: it wrote at most the
     * {@code waiters} mark, which needs no acknowledgement.
     */
    private CompletableFuture<LockDriver.Acquired> confirm(AcquireRequest r, ReplicaAcknowledgement ack,
                                                           LockCalls.AcknowledgedAcquire reply) {
        LockDriver.Acquired acquired = reply.acquired();
        if (!acquired.granted()) {
            return CompletableFuture.completedFuture(acquired);
        }
        String name = r.keys().name();
        if (reply.waitFailure() == null && reply.acknowledged() >= ack.replicas()) {
            if (log.isDebugEnabled()) {
                log.debug("lock '{}' (fencing token {}, hold count {}): {} replicas acknowledged, {} required",
                        name, acquired.token(), acquired.holdCount(), reply.acknowledged(), ack.replicas());
            }
            return CompletableFuture.completedFuture(acquired);
        }
        if (log.isDebugEnabled() && reply.waitFailure() == null) {
            log.debug("lock '{}' (fencing token {}, hold count {}): {} replicas acknowledged within {}, {} required",
                    name, acquired.token(), acquired.holdCount(), reply.acknowledged(), ack.timeout(), ack.replicas());
        }
        RuntimeException failure = reply.waitFailure() != null ? reply.waitFailure()
                : new ReplicaAcknowledgementException(name, reply.acknowledged(), ack.replicas(), ack.timeout());
        log.warn("undoing the acquisition of lock '{}' (fencing token {}, hold count {}, owner {}): {}", name,
                acquired.token(), acquired.holdCount(), r.owner(), failure.getMessage());
        return r.driver().release(r.keys(), r.owner(), acquired.token(),
                        notifications.hasWaiters(r.keys().channel()))
                .handle((left, e) -> {
                    if (e != null) {
                        RuntimeException undo = translate(e);
                        failure.addSuppressed(undo);
                        log.warn("could not undo the acquisition of lock '{}' (fencing token {}); it expires with its "
                                + "lease: {}", name, acquired.token(), undo.getMessage());
                    }
                    throw new CompletionException(failure);
                });
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
        Hold existing = r.threadOwned() ? threadHolds.get(holdKey(r.driver(), r.keys(), r.owner())) : null;
        if (existing != null && existing.isHeld()) {
            if (existing.token == grant.token()) {
                // The count is the caller's own: Redis may count more, if a re-entry whose reply was lost ran after
                // all, and the caller's last unlock must still end the hold (see release).
                existing.reentered(existing.count() + 1, r.watchdog(), expiresAt);
                track(existing);
                return existing;
            }
            // Redis granted a fresh acquisition, so the hold we believed in was lost before we noticed.
            lost(existing, "the lock was found deleted or owned by someone else at re-entry");
        }
        Hold hold = new Hold(r.driver(), r.keys(), r.owner(), grant.token(), grant.holdCount(), r.watchdog(),
                expiresAt, grant.sentAtNanos(), r.holder(), r.ownerThread());
        if (log.isDebugEnabled()) {
            log.debug("acquired lock '{}' (fencing token {}, owner {}, lease {} ms{})", r.keys().name(), grant.token(),
                    r.owner(), r.leaseMillis(), r.watchdog() ? ", renewed by the watchdog" : "");
        }
        if (r.threadOwned()) {
            threadHolds.put(holdKey(r.driver(), r.keys(), r.owner()), hold);
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
        threadHolds.remove(holdKey(hold), hold);
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
            ReleaseNotifications.Waiter next = localHandoffLimit == 0 || !hold.driver.localQueueing() ? null
                    : notifications.claimForHandoff(hold.keys.channel(), localHandoffLimit);
            if (next != null) {
                return handOver(hold, (AcquireAttempt) next);
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
            lost(hold, "the lock was found deleted or owned by someone else at release (expired, force-unlocked, "
                    + "or lost by Redis)");
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
            lost(hold, "the lock was found deleted or owned by someone else when it was to be left to expire "
                    + "(expired, force-unlocked, or lost by Redis)");
            return false;
        }
        hold.markReleased();
        live.remove(hold);
        threadHolds.remove(holdKey(hold), hold);
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
            lost(from, "the lock was found deleted or owned by someone else at release (expired, force-unlocked, "
                    + "or lost by Redis)");
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
     * After an attempt ended without the lock: removes a mark it left in Redis (a queue entry, a claim) and, if
     * {@code mayHoldGrant} (a try of it got no reply), releases the grant such a try may have made
     * ({@link LockDriver#abandon}). Sent at once, on the command connection that carried the attempt's tries, so
     * Redis runs it after them, even if Redis was frozen and runs them all later.
     *
     * <p>If Redis does not confirm it while a grant may be orphaned, it is sent again, at growing intervals of at most
     * {@value #ABANDON_RETRY_MAX_MILLIS} ms, until Redis answers (see {@link #sendAbandon}); and a later attempt of the
     * same owner on the same lock sends it once more right before its own try ({@link #tryAcquire}) and then drops it,
     * so that a retry can never run after, and release, that later acquisition.
     */
    public void abandon(AcquireRequest request, boolean mayHoldGrant) {
        Unconfirmed key = null;
        if (mayHoldGrant && unconfirmedAbandons.size() < MAX_UNCONFIRMED_ABANDONS) {
            key = new Unconfirmed(request.owner(), request.keys().lock(), request.driver());
            unconfirmedAbandons.put(key, request);
        }
        sendAbandon(request, mayHoldGrant, key, ABANDON_RETRY_FIRST_MILLIS);
    }

    /**
     * One sending of an attempt's abandon; on a failure while the grant may be orphaned (and this request is still the
     * one to confirm for its owner and lock), schedules the next after {@code retryMillis}.
     *
     * @param key the request's entry in {@link #unconfirmedAbandons}, or null for a last sending that is not retried
     */
    private void sendAbandon(AcquireRequest request, boolean mayHoldGrant, Unconfirmed key, long retryMillis) {
        CompletableFuture<Long> reply;
        // Checked and sent in one step against the gate (sendUnconfirmedAbandonsBefore): a retry either goes out
        // before a later try of its owner, or finds itself dropped by that try and sends nothing.
        synchronized (abandonOrder) {
            if (key != null && unconfirmedAbandons.get(key) != request) {
                return; // a later try of the same owner sent it ahead of itself and dropped it
            }
            try {
                reply = request.driver().abandon(request, mayHoldGrant);
            } catch (RuntimeException e) { // a closed connection may refuse at once
                reply = CompletableFuture.failedFuture(e);
            }
        }
        reply.whenComplete((orphan, e) -> {
            String name = request.keys().name();
            if (e == null) {
                if (key != null) {
                    unconfirmedAbandons.remove(key, request);
                }
                if (orphan != null && orphan > 0) {
                    log.warn("lock '{}': an acquisition by {} whose reply was lost (its caller was told it failed) "
                            + "was granted after all, with fencing token {}; releasing it", name, request.owner(),
                            orphan);
                    releaseOrphan(request.driver(), request.keys(), request.owner(), orphan);
                }
                return;
            }
            RuntimeException failure = translate(e);
            boolean retry = key != null && failure instanceof BatonUnavailableException && !isClosed()
                    && unconfirmedAbandons.get(key) == request;
            if (!retry) {
                if (key != null) {
                    unconfirmedAbandons.remove(key, request);
                }
                log.warn("could not withdraw the wait of {} for lock '{}'; what it left expires with its lease: {}",
                        request.owner(), name, failure.getMessage());
                return;
            }
            if (retryMillis == ABANDON_RETRY_FIRST_MILLIS) {
                log.warn("lock '{}': an acquisition by {} got no reply and may have been granted after its caller was "
                        + "told it failed; asking Redis to release it again until it answers: {}", name,
                        request.owner(), failure.getMessage());
            }
            schedule(() -> sendAbandon(request, true, key, Math.min(2 * retryMillis, ABANDON_RETRY_MAX_MILLIS)),
                    TimeUnit.MILLISECONDS.toNanos(retryMillis));
        });
    }

    /**
     * Before a try of {@code r}: sends once more, and then forgets, every unconfirmed abandon of the same owner on the
     * same lock, so that Redis runs it before the try (one connection keeps its commands in order) and no retry of
     * it can come after the try and release what the try acquired.
     */
    private void sendUnconfirmedAbandonsBefore(AcquireRequest r) {
        synchronized (abandonOrder) {
            for (Map.Entry<Unconfirmed, AcquireRequest> e : unconfirmedAbandons.entrySet()) {
                Unconfirmed k = e.getKey();
                if (k.owner().equals(r.owner()) && k.lock().equals(r.keys().lock())
                        && unconfirmedAbandons.remove(k, e.getValue())) {
                    sendAbandon(e.getValue(), true, null, 0);
                }
            }
        }
    }

    void forgetThreadHold(Hold hold) {
        threadHolds.remove(holdKey(hold), hold);
    }

    public Hold threadHold(LockDriver driver, LockKeys keys, String owner) {
        return threadHolds.get(holdKey(driver, keys, owner));
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
        threadHolds.remove(holdKey(hold), hold);
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
        watchdog.unwatch(hold);
        localHolders.remove(hold.keys.lock(), hold);
        live.remove(hold);
        if (hold.markLost(reason)) {
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

    boolean forceUnlock(LockDriver driver, LockKeys keys) {
        checkOpen();
        return gateway.await(driver.forceUnlock(keys));
    }

    boolean isLocked(LockDriver driver, LockKeys keys) {
        checkOpen();
        return gateway.await(driver.isLocked(keys));
    }

    LockInfo inspect(LockDriver driver, LockKeys keys) {
        checkOpen();
        return gateway.await(driver.inspect(keys));
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

    ReleaseNotifications notifications() {
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
    public record Bookkeeping(int renewedHolds, int threadHolds, int localHolders, int waitedLockNames, int waiters,
                       int sleepingWaiters, int scheduledTasks) {
    }

    public Bookkeeping bookkeeping() {
        return new Bookkeeping(watchdog.watchedCount(), threadHolds.size(), localHolders.size(),
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
        held.addAll(threadHolds.values());
        held.addAll(watchdog.watched());
        for (Hold hold : held) {
            lost(hold, "its Baton was closed, so nothing renews it; it expires with its lease");
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
    private record HoldKey(String owner, String lock, LockDriver driver) {
    }

    /** An attempt's owner, lock and kind of lock, for {@link #unconfirmedAbandons}. */
    private record Unconfirmed(String owner, String lock, LockDriver driver) {
    }

    private static HoldKey holdKey(LockDriver driver, LockKeys keys, String owner) {
        return new HoldKey(owner, keys.lock(), driver);
    }

    private static HoldKey holdKey(Hold hold) {
        return holdKey(hold.driver, hold.keys, hold.owner);
    }
}
