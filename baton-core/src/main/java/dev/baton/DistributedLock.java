package dev.baton;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant, non-fair mutual-exclusion lock shared by every process that uses the same Redis, namespace and name.
 *
 * <h2>Two ways to own it</h2>
 * <ul>
 *   <li><b>Thread-owned</b>, through the {@link Lock} methods and {@link #lock(Duration)}/{@link #tryLock(Duration)}:
 *       the owner is (this {@link Baton}, the calling thread). The same thread may lock again (the hold count goes up,
 *       the fencing token stays); {@link #unlock()} must be called from that thread as many times.</li>
 *   <li><b>Handle-owned</b>, through {@link #acquire}, {@link #tryAcquire} and {@link #acquireAsync}: the returned
 *       {@link Lease} owns the lock, any thread may release it, and leases are never reentrant (a second
 *       {@code acquire} waits like any other contender).</li>
 * </ul>
 *
 * <h2>Leases</h2>
 * Every acquisition has a lease, so a crashed owner blocks others for at most one lease. Without an explicit lease,
 * the {@link BatonConfig#watchdogLease() watchdog lease} applies and is renewed every third of it while held. With an
 * explicit lease there is no renewal: the lock expires after it. When the lock is lost while held (it expired, was
 * {@link #forceUnlock() force-unlocked}, or Redis lost it in a restart), the owner is told: {@link Lease#lost()}
 * completes, {@link Lease#isValid()} turns false, and the next {@code unlock()}/{@code release()} throws
 * {@link IllegalMonitorStateException}.
 *
 * <h2>Fencing tokens</h2>
 * Each acquisition (not re-entry) gets a token strictly greater than every token issued before for this name, even
 * after the lock expired or was force-unlocked. Pass it to the resource you protect and let the resource reject
 * writes carrying a lower token than one it has seen: that is what makes a paused, expired owner harmless.
 *
 * <h2>Failure behaviour</h2>
 * Arguments are checked before any Redis call ({@link IllegalArgumentException}/{@link NullPointerException} naming
 * the parameter). If Redis cannot be reached or does not answer within {@link BatonConfig#commandTimeout()}, calls
 * throw {@link BatonUnavailableException}; they never hang. Every method that talks to Redis throws
 * {@link IllegalStateException} once the {@link Baton} is closed. Redis replication is asynchronous: a failover can
 * lose a freshly acquired lock, and fencing tokens are what protects the resource in that case.
 *
 * <p>Waiting is not fair: a waiter is woken by a release notification and races any newcomer. A lost notification
 * delays a waiter by at most {@link BatonConfig#recheckInterval()}. Between threads of one {@link Baton}, a released
 * lock may go straight to a waiting thread (one Redis round trip, never free in between), at most
 * {@link BatonConfig#localHandoffLimit()} times in a row before it is released to everyone.
 */
public interface DistributedLock extends Lock {

    /** The lock name, as given to {@link Baton#lock(String)}. */
    String name();

    /**
     * Acquires the lock for the current thread with a watchdog lease, waiting as long as it takes. Not interruptible:
     * an interrupt is remembered and re-asserted on return.
     *
     * @throws BatonUnavailableException if Redis is unreachable
     */
    @Override
    void lock();

    /**
     * Acquires the lock for the current thread with a fixed {@code lease} and no watchdog, waiting as long as it
     * takes. The lock expires {@code lease} after it was acquired unless released first.
     *
     * @throws IllegalArgumentException if {@code lease} is not positive
     */
    void lock(Duration lease);

    /** Like {@link #lock()}, but gives up with {@link InterruptedException} when the thread is interrupted. */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /** One attempt, no waiting: true if the current thread now holds the lock (watchdog lease). */
    @Override
    boolean tryLock();

    /** Like {@link #tryLock(Duration)}; a negative time counts as zero. */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Waits at most {@code wait} for the lock (watchdog lease). Returns within about {@code wait} + 100 ms. A zero
     * wait makes exactly one attempt.
     *
     * @return true if the current thread now holds the lock
     * @throws IllegalArgumentException if {@code wait} is negative
     */
    boolean tryLock(Duration wait) throws InterruptedException;

    /**
     * Waits at most {@code wait} for the lock, held with a fixed {@code lease} and no watchdog.
     *
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} not positive
     */
    boolean tryLock(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Releases one hold of the current thread; the lock is free for others when the hold count reaches zero.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock, or its lease was lost
     *         (the message says which)
     */
    @Override
    void unlock();

    /** Unsupported: a distributed lock cannot back a local condition. */
    @Override
    Condition newCondition();

    /**
     * Acquires a handle-owned lease with a watchdog, waiting at most {@code wait}.
     *
     * @throws LockTimeoutException if the wait ran out
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws BatonUnavailableException if Redis is unreachable
     * @throws InterruptedException if interrupted while waiting (no lock is left behind)
     */
    Lease acquire(Duration wait) throws InterruptedException;

    /**
     * Acquires a handle-owned lease with a fixed {@code lease} (no watchdog), waiting at most {@code wait}.
     *
     * @return the lease, or empty if the wait ran out
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} is not positive
     * @throws BatonUnavailableException if Redis is unreachable
     * @throws InterruptedException if interrupted while waiting (no lock is left behind)
     */
    Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Asynchronous {@link #acquire(Duration)}: parks no thread while waiting. The future completes with the lease,
     * or exceptionally with {@link LockTimeoutException} after {@code wait} or {@link BatonUnavailableException}.
     * Cancelling the future abandons the attempt and leaves nothing behind.
     */
    CompletableFuture<Lease> acquireAsync(Duration wait);

    /**
     * Whether anyone holds the lock right now (one Redis call).
     *
     * @throws BatonUnavailableException if Redis is unreachable
     */
    boolean isLocked();

    /** Whether the current thread holds the lock through the thread-owned methods (no Redis call). */
    boolean isHeldByCurrentThread();

    /** The current thread's reentrant hold count, 0 if it does not hold the lock (no Redis call). */
    int holdCount();

    /**
     * The fencing token of the current thread's hold.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     */
    long fencingToken();

    /**
     * Administrative: deletes the lock whoever holds it and wakes waiters. The former owner learns that it lost the
     * lock at its next renewal or release. Fencing tokens keep increasing.
     *
     * @return true if the lock existed
     * @throws BatonUnavailableException if Redis is unreachable
     */
    boolean forceUnlock();
}
