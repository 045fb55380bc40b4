package dev.baton.internal.primitives;

import dev.baton.BatonAdmin;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.BatonHealth;
import dev.baton.BatonUnavailableException;
import dev.baton.DistributedCountDownLatch;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.LeaderElection;
import dev.baton.LockInfo;
import dev.baton.LockOptions;
import dev.baton.ReplicaAcknowledgement;
import dev.baton.internal.election.ElectionDriver;
import dev.baton.internal.election.Elections;
import dev.baton.internal.engine.DriverLock;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.latch.LatchWaits;
import dev.baton.internal.latch.RedisCountDownLatch;
import dev.baton.internal.lock.AcknowledgedLockDriver;
import dev.baton.internal.lock.FairLockDriver;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.multi.MultiLockCalls;
import dev.baton.internal.multi.MultiLockMembers;
import dev.baton.internal.multi.RedisMultiLock;
import dev.baton.internal.redlock.RedlockDriver;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.Require;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.rw.ReadLockCalls;
import dev.baton.internal.rw.ReadWriteCalls;
import dev.baton.internal.rw.RedisReadWriteLock;
import dev.baton.internal.rw.WriteLockCalls;
import dev.baton.internal.semaphore.RedisSemaphore;
import dev.baton.internal.semaphore.SemaphoreCalls;
import dev.baton.internal.semaphore.SemaphoreTotals;
import dev.baton.internal.transport.QuorumTransport;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the primitives of one Baton on its engine, and is the one place that knows them all: it picks each family's
 * driver for the topology (the plain lock's is a {@link RedlockDriver} on independent masters), refuses what a
 * topology cannot run (every kind but the plain lock on Redlock masters; replica acknowledgement on a Cluster), reads
 * every kind under one name for operators, and checks health. The engine below it knows no family; each family knows
 * only the engine (and, for those built on the mutex, the plain lock's typed calls).
 *
 * <p>Thread-safe; building a primitive makes no Redis call.
 */
public final class Primitives {
    /** The lock name {@link #health()} inspects: nobody needs to hold it; reading it proves the scripts run. */
    private static final String HEALTH_PROBE = "baton-health-probe";

    private final BatonRuntime runtime;
    private final BatonConfig config;
    private final Transport gateway;
    private final Ticker ticker;
    private final LockEngine engine;
    private final LockCalls calls;
    /** The plain lock's driver: {@link #calls}, or a {@link RedlockDriver} on independent masters. */
    private final LockDriver mutex;
    /** How anyone reads or deletes a plain lock: through {@link #mutex}. */
    private final LockView mutexView;
    /** Why this Baton runs only plain locks (it is a Redlock), or null if it runs every kind. */
    private final String plainOnly;
    private final ReadLockCalls readCalls;
    private final WriteLockCalls writeCalls;
    private final FairLockDriver fair;
    /** Elections run on the plain lock's driver of the topology, Redlock masters included. */
    private final Elections elections;
    /** Every latch waiter of this Baton and their subscriptions (a pub/sub connection of their own, at first wait). */
    private final LatchWaits latchWaits;
    /** Warns once per semaphore name of a total in Redis other than the one asked for. */
    private final SemaphoreTotals semaphoreTotals = new SemaphoreTotals();
    /** What operators do to any object of the namespace ({@code Baton.admin()}). */
    private final Administration admin;

    public Primitives(BatonRuntime runtime, LockEngine engine) {
        this.runtime = runtime;
        this.config = runtime.config();
        this.gateway = runtime.gateway();
        this.ticker = runtime.ticker();
        this.engine = engine;
        this.calls = new LockCalls(gateway, config.fencingTokenRetention(), ticker, config.fairnessThreshold(),
                config.recheckInterval());
        if (gateway instanceof QuorumTransport masters) {
            RedlockDriver redlock = new RedlockDriver(masters, config, ticker);
            this.mutex = redlock;
            this.mutexView = redlock;
            this.plainOnly = "only plain locks run on Redlock masters (BatonConfig.redlock): see docs/redlock.md";
        } else {
            this.mutex = calls;
            this.mutexView = calls;
            this.plainOnly = null;
        }
        this.readCalls = new ReadLockCalls(gateway, config.fencingTokenRetention());
        this.writeCalls = new WriteLockCalls(gateway, config.fencingTokenRetention(), readCalls,
                config.recheckInterval());
        this.fair = new FairLockDriver(gateway, config, calls);
        // An election's candidates take the plain lock's protocol without its bounded-wait claims: a claim exists so
        // that no waiter of a busy lock waits forever behind faster ones, but candidates wait behind one long
        // leadership, where a claim would only make every waiting Baton write and re-read it at each re-check
        // (5-6 commands a try instead of 3, measured in ElectionBench's idle figure). On Redlock masters, the Redlock.
        if (plainOnly != null) {
            this.elections = new Elections(runtime, engine, mutex, mutexView);
            this.admin = new Administration(gateway, config.namespace(), plainOnly,
                    Map.of(BatonAdmin.Kind.LOCK, mutexView, BatonAdmin.Kind.ELECTION, mutexView), null);
        } else {
            LockCalls candidates = new LockCalls(gateway, config.fencingTokenRetention(), ticker, Duration.ZERO,
                    config.recheckInterval());
            this.elections = new Elections(runtime, engine, candidates, candidates);
            this.admin = new Administration(gateway, config.namespace(), null, Map.of(
                    BatonAdmin.Kind.LOCK, mutexView,
                    BatonAdmin.Kind.FAIR, fair,
                    BatonAdmin.Kind.READ_WRITE, writeCalls,
                    BatonAdmin.Kind.SEMAPHORE, SemaphoreCalls.of(gateway, config, 1, semaphoreTotals),
                    BatonAdmin.Kind.ELECTION, candidates), readCalls);
        }
        this.latchWaits = new LatchWaits(runtime);
    }

    /** What operators do to any object of the namespace (see {@link Administration}). */
    public BatonAdmin admin() {
        engine.checkOpen();
        return admin;
    }

    /** The plain lock's driver on this topology, for tools and tests that start attempts of their own. */
    public LockDriver mutex() {
        return mutex;
    }

    /** The plain lock of this name, with the Baton's default options. */
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * A plain lock with its own options.
     *
     * @throws UnsupportedOperationException if the options ask for replica acknowledgement on Redlock masters or a
     *                                       Cluster
     */
    public DistributedLock lock(String name, LockOptions options) {
        LockKeys keys = LockKeys.of(config.namespace(), Require.lockName(name));
        Objects.requireNonNull(options, "options");
        engine.checkOpen();
        ReplicaAcknowledgement ack = options.replicaAcknowledgement(config).orElse(null);
        if (ack == null) {
            return new DriverLock(engine, mutex, mutexView, keys, (k, owner) -> { });
        }
        if (plainOnly != null) {
            throw new UnsupportedOperationException("lock '" + name + "': replica-acknowledged locks are not supported "
                    + "on Redlock masters, whose safety comes from the majority; use LockOptions.unacknowledged()");
        }
        if (gateway.isCluster()) {
            throw new UnsupportedOperationException("lock '" + name + "': replica-acknowledged locks are not supported "
                    + "on a Redis Cluster (WAIT would have to reach the master of the lock's hash slot); use "
                    + "LockOptions.unacknowledged() there");
        }
        return new DriverLock(engine, new AcknowledgedLockDriver(calls, ack, engine), calls, keys, (k, owner) -> { });
    }

    /** The fair lock of this name (see {@link FairLockDriver}). */
    public DistributedLock fairLock(String name) {
        LockKeys keys = FairLockDriver.keys(config.namespace(), Require.lockName(name));
        engine.checkOpen();
        plainLocksOnly("fair lock '" + name + "'", "its queue");
        return new DriverLock(engine, fair, keys);
    }

    /**
     * The read-write lock of this name. Its acquisitions are never replica-acknowledged, whatever the Baton's
     * default (see docs/read-write-lock.md).
     */
    public DistributedReadWriteLock readWriteLock(String name) {
        LockKeys keys = ReadWriteCalls.keys(config.namespace(), Require.lockName(name));
        engine.checkOpen();
        plainLocksOnly("read-write lock '" + name + "'", "its readers and writer intents");
        return new RedisReadWriteLock(engine, readCalls, writeCalls, keys);
    }

    /** The semaphore of this name, with {@code permits} in total if it is new (docs/semaphore.md). */
    public DistributedSemaphore semaphore(String name, int permits) {
        LockKeys keys = SemaphoreCalls.keys(config.namespace(), Require.lockName(name));
        Require.positive(permits, "permits");
        engine.checkOpen();
        plainLocksOnly("semaphore '" + name + "'", "its holders, queue and total");
        return new RedisSemaphore(engine, SemaphoreCalls.of(gateway, config, permits, semaphoreTotals), keys);
    }

    /**
     * The multi-lock over these names: all of their plain locks, or none (see {@link RedisMultiLock}).
     *
     * @throws IllegalArgumentException      if no name is given, or a name is blank or too long
     * @throws UnsupportedOperationException if this Baton asks for replica acknowledgement by default
     */
    public DistributedLock multiLock(String... names) {
        MultiLockMembers members = MultiLockMembers.of(config.namespace(), gateway.isCluster(), names);
        engine.checkOpen();
        plainLocksOnly("multi-lock '" + members.name() + "'", "the locks it takes together in one script");
        if (config.replicaAcknowledgement().isPresent()) {
            throw new UnsupportedOperationException("multi-lock '" + members.name() + "': replica acknowledgement "
                    + "(BatonConfig.replicaAcknowledgement) is not supported by multi-locks");
        }
        return new RedisMultiLock(engine, calls, new MultiLockCalls(gateway, config.fencingTokenRetention()), members);
    }

    /** The leader election of this name (see {@code dev.baton.internal.election}). */
    public LeaderElection election(String name) {
        String checked = Require.lockName(name);
        engine.checkOpen();
        return elections.election(checked);
    }

    /** The count-down latch of this name (see {@code dev.baton.internal.latch}). */
    public DistributedCountDownLatch countDownLatch(String name) {
        String checked = Require.lockName(name);
        engine.checkOpen();
        plainLocksOnly("latch '" + name + "'", "its count");
        return RedisCountDownLatch.of(runtime, latchWaits, checked);
    }

    /**
     * Every kind of object under this name, read in one atomic script ({@link NameInspection#everyKind}); on Redlock
     * masters, where only plain locks and elections exist, the quorum reads of both (two reads, not one snapshot).
     */
    public LockInfo inspect(String name) {
        engine.checkOpen();
        String checked = Require.lockName(name);
        if (plainOnly != null) {
            return gateway.await(mutexView.inspect(LockKeys.of(config.namespace(), checked))
                    .thenCombine(mutexView.inspect(ElectionDriver.keys(config.namespace(), checked)),
                            NameInspection::onQuorum));
        }
        return gateway.await(NameInspection.everyKind(gateway, config.namespace(), checked));
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
            gateway.await(mutexView.inspect(LockKeys.of(config.namespace(), HEALTH_PROBE)));
            return BatonHealth.up(endpoint, topology, Duration.ofNanos(ticker.nanos() - start));
        } catch (BatonUnavailableException e) {
            return BatonHealth.down(BatonHealth.Status.UNREACHABLE, endpoint, topology, e.getMessage());
        } catch (BatonException e) {
            return BatonHealth.down(BatonHealth.Status.REFUSED, endpoint, topology, e.getMessage());
        } catch (IllegalStateException e) { // closed meanwhile
            return BatonHealth.down(BatonHealth.Status.CLOSED, endpoint, topology, e.getMessage());
        }
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
}
