package dev.baton;

import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.primitives.Primitives;
import dev.baton.internal.ratelimit.RedisRateLimiter;
import dev.baton.internal.runtime.BatonRuntime;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Entry point: one {@code Baton} per application and Redis, shared by all threads. It owns one command connection,
 * one pub/sub connection (opened on the first wait) and one watchdog thread, however many locks and rate limiters
 * are used (plus, for replica-acknowledged locks only, up to 4 connections that carry their {@code WAIT}s; see
 * {@link LockOptions}; a second pub/sub connection at the first {@link DistributedCountDownLatch#await}; and one
 * thread per open {@link Candidacy}).
 *
 * <pre>{@code
 * try (Baton baton = Baton.connect("redis://localhost:6379")) {
 *     DistributedLock lock = baton.lock("orders:42");
 *     lock.lock();
 *     try {
 *         long token = lock.fencingToken();   // hand it to the resource you protect
 *         ...
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops every watchdog renewal, so locks still held then expire with their lease; it does not
 * release them. Their holders are told: each such hold is marked lost ({@link Lease#lost()} completes,
 * {@link Lease#isValid()} turns false). Waits in progress end with {@link IllegalStateException}. Closing is
 * idempotent; using a closed {@code Baton} (including {@code unlock()} and {@code Lease.release()}) throws
 * {@link IllegalStateException}, except {@link Lease#close()}, which stays quiet.
 *
 * <p>Over independent masters ({@link BatonConfig.Builder#redlock(String...)}), the Baton holds those connections to
 * each master, {@link #lock(String)} returns a Redlock held by a majority of them, and the primitives that cannot
 * run on a quorum ({@link #fairLock}, {@link #readWriteLock}, {@link #semaphore}, {@link #multiLock},
 * {@link #rateLimiter}) throw {@link UnsupportedOperationException} naming why; see {@code docs/redlock.md}.
 */
public final class Baton implements AutoCloseable {
    private final BatonConfig config;
    private final BatonRuntime runtime;
    private final LockEngine engine;
    private final Primitives primitives;

    private Baton(BatonConfig config) {
        this.config = config;
        this.runtime = BatonRuntime.start(config);
        this.engine = LockEngine.start(runtime);
        this.primitives = new Primitives(runtime, engine);
    }

    /**
     * Connects with default settings.
     *
     * @param redisUri {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://...} for TLS, or
     *                 {@code redis-sentinel://host[:port][,host[:port]...][/database]#master}; see
     *                 {@link BatonConfig#uri()}
     * @return a connected Baton; close it when done
     * @throws IllegalArgumentException  if the URI is malformed (the message says what is wrong and never quotes
     *                                   the URI's user info)
     * @throws BatonException            if Redis answers but refuses the configuration: wrong or missing password,
     *                                   a missing ACL permission, a database number it does not have, or a plain
     *                                   port for a {@code rediss://} URI; retrying will not help
     * @throws BatonUnavailableException if Redis cannot be reached within the default command timeout
     */
    public static Baton connect(String redisUri) {
        Objects.requireNonNull(redisUri, "redisUri");
        return connect(BatonConfig.builder().uri(redisUri).build());
    }

    /**
     * Connects with the given settings.
     *
     * @param config the settings
     * @return a connected Baton; close it when done
     * @throws BatonException            if Redis answers but refuses the configuration: wrong or missing password,
     *                                   a missing ACL permission, a database number it does not have, or a plain
     *                                   port for a {@code rediss://} URI; retrying will not help
     * @throws BatonUnavailableException if Redis cannot be reached within {@link BatonConfig#commandTimeout()}; over
     *                                   Redlock masters, if fewer than a majority of them can (the others are then
     *                                   connected in the background)
     */
    public static Baton connect(BatonConfig config) {
        Objects.requireNonNull(config, "config");
        return new Baton(config);
    }

    /**
     * The reentrant, non-fair lock of this name. Cheap: no Redis call; lock objects of the same name are
     * interchangeable (a thread holding the lock through one holds it through all). Over Redlock masters it is a
     * Redlock: held once a majority of the masters granted it, valid for its lease less the time that took and a clock
     * drift allowance, renewed only with a majority, and its leases may not exceed
     * {@link BatonConfig#redlockMaxLease()} ({@link IllegalArgumentException} at the acquiring call otherwise).
     *
     * @param name 1 to 1024 bytes of UTF-8, not blank
     * @return the lock
     * @throws IllegalArgumentException if the name is blank or too long
     */
    public DistributedLock lock(String name) {
        return primitives.lock(name);
    }

    /**
     * The lock of this name, acquired as the options say: for instance replica-acknowledged
     * ({@link LockOptions#replicaAcknowledged(int, Duration)}), or not even though this Baton's default is
     * ({@link LockOptions#unacknowledged()}). Cheap: no Redis call. It is the same lock in Redis as
     * {@link #lock(String)} of that name; the options only change how this object acquires it.
     *
     * @param name    1 to 1024 bytes of UTF-8, not blank
     * @param options the lock's options; {@link LockOptions#defaults()} for the Baton's settings
     * @return the lock
     * @throws IllegalArgumentException      if the name is blank or too long
     * @throws NullPointerException          if the name or the options are null
     * @throws UnsupportedOperationException if the options make the lock replica-acknowledged on a Redis Cluster or
     *                                       on Redlock masters
     */
    public DistributedLock lock(String name, LockOptions options) {
        return primitives.lock(name, options);
    }

    /**
     * The fair lock of this name: reentrant like {@link #lock(String)}, and granted strictly in the order in which
     * waiters' first attempts reached Redis, across processes. Release hands the lock straight to the next waiter.
     * A fair lock is a lock of its own: it never excludes the plain lock of the same name. Cheap: no Redis call.
     *
     * <p>A waiter keeps its place by trying again at least every {@link BatonConfig#recheckInterval()}; one that
     * stops for longer than 3 re-check intervals plus 2 command timeouts (a dead process, a frozen one) is skipped,
     * and a frozen one joins the tail again when it comes back. A wait that times out, is interrupted or cancelled
     * leaves the queue at once. A waiter that dies just before the lock is handed to it holds it like a crashed
     * holder, until its lease runs out. See docs/fair-lock.md.
     *
     * @param name 1 to 1024 bytes of UTF-8, not blank
     * @return the lock
     * @throws IllegalArgumentException if the name is blank or too long
     * @throws UnsupportedOperationException on Redlock masters ({@link BatonConfig#redlockMasters()})
     */
    public DistributedLock fairLock(String name) {
        return primitives.fairLock(name);
    }

    /**
     * The read-write lock of this name; see {@link DistributedReadWriteLock}. Cheap: no Redis call.
     *
     * @param name 1 to 1024 bytes of UTF-8, not blank
     * @return the lock
     * @throws IllegalArgumentException if the name is blank or too long
     * @throws UnsupportedOperationException on Redlock masters ({@link BatonConfig#redlockMasters()})
     */
    public DistributedReadWriteLock readWriteLock(String name) {
        return primitives.readWriteLock(name);
    }

    /**
     * The semaphore of this name with expiring permits; see {@link DistributedSemaphore}. Cheap: no Redis call; the
     * total is written by the first acquisition that finds the semaphore new.
     *
     * @param name    1 to 1024 bytes of UTF-8, not blank
     * @param permits the total when the semaphore is new, at least 1; an existing semaphore keeps its own (see
     *                {@link DistributedSemaphore#setPermits(int)})
     * @return the semaphore
     * @throws IllegalArgumentException if the name is blank or too long, or {@code permits} is less than 1
     * @throws UnsupportedOperationException on Redlock masters ({@link BatonConfig#redlockMasters()})
     */
    public DistributedSemaphore semaphore(String name, int permits) {
        return primitives.semaphore(name, permits);
    }

    /**
     * One lock over several names, all or nothing: a caller holds every one of the plain locks of these names, or
     * none. Two callers asking for overlapping sets in different orders never deadlock. Cheap: no Redis call.
     *
     * <p>The locks are those of {@link #lock(String)}: a multi-lock on {a, b} excludes a {@code lock("a")} holder,
     * and a thread holding {@code lock("a")} re-enters it. They are taken in one order shared by every process (by
     * hash slot), several at a time where one script may touch them (all of them on one server or behind Sentinel,
     * those of one hash slot on a Cluster); an attempt that ends without all of them gives back what it took before
     * it returns. Its {@link DistributedLock#name() name} and {@link Lease#lockName()} are the names joined by
     * commas; its fencing token is the highest of the locks' tokens, strictly increasing for one set of names. See
     * docs/multi-lock.md.
     *
     * @param names at least one lock name, each 1 to 1024 bytes of UTF-8, not blank; duplicates count once
     * @return the lock
     * @throws IllegalArgumentException      if no name is given, or a name is blank or too long
     * @throws NullPointerException          if {@code names} or one of them is null
     * @throws UnsupportedOperationException if this Baton asks for replica acknowledgement by default, or runs on
     *                                       Redlock masters
     */
    public DistributedLock multiLock(String... names) {
        return primitives.multiLock(names);
    }

    /**
     * The rate limiter of this name with these limits, shared with every process that asks for the same name on the
     * same Redis. Cheap: no Redis call. Several limits are checked and charged together, all or nothing:
     * {@code baton.rateLimiter("api", RateLimit.of(100, Duration.ofSeconds(1)), RateLimit.of(10_000,
     * Duration.ofHours(1)))}. Asking again with other limits keeps the state; see {@link RateLimiter}.
     *
     * @param name   1 to 1024 bytes of UTF-8, not blank; a namespace of its own, apart from lock names
     * @param limits at least one
     * @return the rate limiter
     * @throws IllegalArgumentException if the name is blank or too long, or no limit is given
     * @throws UnsupportedOperationException on Redlock masters ({@link BatonConfig#redlockMasters()})
     */
    public RateLimiter rateLimiter(String name, RateLimit... limits) {
        return RedisRateLimiter.create(runtime, name, limits);
    }

    /**
     * The leader election of this name, shared with every process that asks for the same name on the same Redis (or
     * the same Redlock masters). Cheap: no Redis call. See {@link LeaderElection}.
     *
     * @param name 1 to 1024 bytes of UTF-8, not blank; a namespace of its own, apart from lock names
     * @return the election
     * @throws IllegalArgumentException if the name is blank or too long
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalStateException    if this Baton is closed
     */
    public LeaderElection election(String name) {
        return primitives.election(name);
    }

    /**
     * The count-down latch of this name, shared with every process that asks for the same name on the same Redis.
     * Cheap: no Redis call. See {@link DistributedCountDownLatch}.
     *
     * @param name 1 to 1024 bytes of UTF-8, not blank; a namespace of its own, apart from lock names
     * @return the latch
     * @throws IllegalArgumentException      if the name is blank or too long
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalStateException         if this Baton is closed
     * @throws UnsupportedOperationException on Redlock masters ({@link BatonConfig#redlockMasters()})
     */
    public DistributedCountDownLatch countDownLatch(String name) {
        return primitives.countDownLatch(name);
    }

    /**
     * What is held under this name right now, of every kind, with who holds it, how often, for how much longer, who
     * waits, and the last fencing token: one atomic Redis read (all keys of a name share one hash slot, so on a
     * Cluster too), meant for operators and diagnostics.
     *
     * <p>The plain lock, the fair lock, the read-write lock, the semaphore, the election and the count-down latch of
     * one name are different objects, which may be held (or set) at the same time. The answer describes the first one
     * found held, in that order, with its {@link LockInfo#kind() kind}, every holder ({@link LockInfo#allHolders()}:
     * the writer and each reader of a read-write lock, each live lease of a semaphore with its permits, an election's
     * leader with its epoch as the token), the waiters that keep a place in Redis and, for a semaphore, its total;
     * each other object found held or waited for is in {@link LockInfo#otherKinds()}, and so is a latch with a count
     * (in {@link LockInfo#permits()}).
     * So {@link LockInfo#isLocked()} is true whenever any of them is held: a held primitive is never reported free.
     * When nothing is held, the answer is the free plain lock (kind {@link LockType#LOCK}, with its last fencing
     * token). A multi-lock has no object of its own: its members are plain locks, inspected by their names.
     *
     * <p>On Redlock masters ({@link BatonConfig#redlockMasters()}), where only plain locks and elections exist, this
     * is the plain lock and the election as a majority of the masters sees each: two quorum reads, so not one atomic
     * snapshot of both.
     *
     * @param name the name
     * @return the state at the instant Redis ran the read
     * @throws BatonUnavailableException if Redis is unreachable
     */
    public LockInfo inspect(String name) {
        return primitives.inspect(name);
    }

    /**
     * What an operator does to any object of this Baton's namespace, whoever created it: list objects with
     * {@code SCAN}, read or reset a rate limiter without its configuration, take a lock, semaphore or leadership away
     * from its holder. The {@code baton} command line is built on it. Cheap: no Redis call.
     *
     * @return the administrative view, thread-safe
     * @throws IllegalStateException if this Baton is closed
     */
    public BatonAdmin admin() {
        return primitives.admin();
    }

    /**
     * The locks this Baton holds right now, as this process believes (no Redis call): every thread-owned hold and
     * every {@link Lease} not yet released or lost, with its kind, fencing token, hold count, holder thread, start
     * and remaining lease. Meant for operators (the Spring Boot starter's Actuator endpoint lists them). Sorted by
     * name, then token. Safe to call from any thread at any time; a closed Baton holds nothing.
     *
     * @return snapshots of the current holds, possibly empty
     */
    public List<HeldLock> heldLocks() {
        return engine.heldLocks();
    }

    /**
     * Checks that Redis answers and runs Baton's scripts: one read-only script call on a key of its own (it writes
     * nothing), bounded by {@link BatonConfig#commandTimeout()}, so that it never hangs on an unreachable Redis. Needs
     * no command beyond those of docs/acl.md. Never throws for a failure of Redis: the result says what went wrong.
     *
     * @return the check's result; {@link BatonHealth.Status#CLOSED} once this Baton is closed
     */
    public BatonHealth health() {
        return primitives.health();
    }

    /**
     * Random id of this instance; it appears in {@link LockInfo.Holder#batonInstance()}.
     *
     * @return the id
     */
    public String instanceId() {
        return runtime.instanceId();
    }

    /**
     * The settings this Baton runs with (credentials redacted in its {@code toString()}).
     *
     * @return the settings
     */
    public BatonConfig config() {
        return config;
    }

    /**
     * Stops renewals and closes connections. Idempotent. Held locks are not released: they expire with their lease,
     * and their holds are marked lost at once. Waits in progress fail with {@link IllegalStateException}.
     */
    @Override
    public void close() {
        runtime.close();
    }

    @Override
    public String toString() {
        return "Baton{instance=" + runtime.instanceId() + ", " + config + "}";
    }
}
