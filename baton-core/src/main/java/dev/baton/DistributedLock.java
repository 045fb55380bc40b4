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
 * <h2>Threads</h2>
 * Lock objects are thread-safe: one object may be shared by every thread of the application, and objects of the same
 * name from the same {@link Baton} are interchangeable. What is not shared is ownership: for the thread-owned methods
 * it is per thread (a thread holds the lock, or does not, whichever lock object it uses), and for {@link #acquire}
 * and its siblings it is per {@link Lease}.
 *
 * <h2>Leases</h2>
 * Every acquisition has a lease, so a crashed owner blocks others for at most one lease. Without an explicit lease,
 * the {@link BatonConfig#watchdogLease() watchdog lease} applies and is renewed every third of it while held. With an
 * explicit lease there is no renewal: the lock expires after it. An explicit lease must be at least 1 ms (the
 * resolution of Redis expiry) and at most 53375 days (about 146 years, so that no deadline arithmetic can overflow);
 * any other is rejected with an {@link IllegalArgumentException} that names the bound. When the lock is lost while
 * held (it expired, was {@link #forceUnlock() force-unlocked}, or Redis lost it in a restart), the owner is told:
 * {@link Lease#lost()} completes, {@link Lease#isValid()} turns false, and the next {@code unlock()}/{@code release()}
 * throws {@link IllegalMonitorStateException}.
 *
 * <h2>Replica-acknowledged locks</h2>
 * A lock obtained with {@link LockOptions#replicaAcknowledged(int, Duration)} (or from a {@link Baton} configured with
 * {@link BatonConfig.Builder#replicaAcknowledged(int, Duration)}) counts an acquisition only once enough replicas have
 * it. When they do not confirm it in time, every acquire method, {@code tryLock()} included, throws
 * {@link ReplicaAcknowledgementException} (and {@link #acquireAsync} completes exceptionally with it) after undoing
 * the acquisition.
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
 * <p>A waiting call that declares {@link InterruptedException} abandons the attempt when its thread is interrupted
 * and leaves nothing behind: no lock, no subscription, no renewal. If the lock was granted at the very moment of the
 * interrupt, the call succeeds instead, with the lock held and the thread's interrupt status set again.
 *
 * <p>Waiting is not fair: a waiter is woken by a release notification and races any newcomer. A lost notification
 * delays a waiter by at most {@link BatonConfig#recheckInterval()}. Between threads of one {@link Baton}, a released
 * lock may go straight to a waiting thread (one Redis round trip, never free in between), at most
 * {@link BatonConfig#localHandoffLimit()} times in a row before it is released to everyone.
 *
 * <p>Waits are bounded nonetheless (for the lock of {@link Baton#lock(String)}): a waiter that has waited longer
 * than {@link BatonConfig#fairnessThreshold()} (default 2 s) takes precedence, so that the lock goes to it next, in
 * every process, and waiters past the threshold are served oldest first. Under sustained contention from any number
 * of threads and processes, a wait then lasts about the threshold plus a few holds; the setting's documentation
 * gives the bound and its limits.
 */
public interface DistributedLock extends Lock {

    /**
     * The lock name, as given to {@link Baton#lock(String)}.
     *
     * @return the name
     */
    String name();

    /**
     * Acquires the lock for the current thread with a watchdog lease, waiting as long as it takes. Not interruptible:
     * an interrupt is remembered and re-asserted on return.
     *
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    @Override
    void lock();

    /**
     * Acquires the lock for the current thread with a fixed {@code lease} and no watchdog, waiting as long as it
     * takes. The lock expires {@code lease} after it was acquired unless released first. Not interruptible, like
     * {@link #lock()}.
     *
     * @param lease how long the lock is held unless released first: 1 ms to 53375 days
     * @throws IllegalArgumentException if {@code lease} is out of that range
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    void lock(Duration lease);

    /**
     * Like {@link #lock()}, but gives up when the thread is interrupted.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * One attempt, no waiting (watchdog lease). Like {@link java.util.concurrent.locks.ReentrantLock#tryLock()},
     * not affected by interrupts.
     *
     * @return true if the current thread now holds the lock
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    @Override
    boolean tryLock();

    /**
     * Like {@link #tryLock(Duration)}.
     *
     * @param time the longest wait, in {@code unit}; a negative time counts as zero
     * @param unit the unit of {@code time}
     * @return true if the current thread now holds the lock
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Waits at most {@code wait} for the lock (watchdog lease). Returns within about {@code wait} + 100 ms. A zero
     * wait makes exactly one attempt.
     *
     * @param wait the longest wait
     * @return true if the current thread now holds the lock
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean tryLock(Duration wait) throws InterruptedException;

    /**
     * Waits at most {@code wait} for the lock, held with a fixed {@code lease} and no watchdog.
     *
     * @param wait  the longest wait
     * @param lease how long the lock is held unless released first: 1 ms to 53375 days
     * @return true if the current thread now holds the lock
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} out of range
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean tryLock(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Releases one hold of the current thread; the lock is free for others when the hold count reaches zero.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock, or its lease was lost
     *         (the message says which)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout; if this was the last
     *         hold, the thread no longer holds the lock, which expires in Redis with its lease
     */
    @Override
    void unlock();

    /**
     * Unsupported: a distributed lock cannot back a local condition.
     *
     * @return never
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();

    /**
     * Acquires a handle-owned lease with a watchdog, waiting at most {@code wait}.
     *
     * @param wait the longest wait; zero for a single attempt
     * @return the lease, held until released, closed or lost
     * @throws LockTimeoutException if the wait ran out
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    Lease acquire(Duration wait) throws InterruptedException;

    /**
     * Acquires a handle-owned lease with a fixed {@code lease} (no watchdog), waiting at most {@code wait}.
     *
     * @param wait  the longest wait; zero for a single attempt
     * @param lease how long the lock is held unless released first: 1 ms to 53375 days
     * @return the lease, or empty if the wait ran out
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} out of range
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is left behind)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Asynchronous {@link #acquire(Duration)}: parks no thread while waiting. The future completes with the lease,
     * or exceptionally with {@link LockTimeoutException} after {@code wait} or {@link BatonUnavailableException} if
     * Redis is unreachable within the command timeout. Cancelling the future abandons the attempt and leaves nothing
     * behind.
     *
     * @param wait the longest wait; zero for a single attempt
     * @return the future lease
     * @throws IllegalArgumentException if {@code wait} is negative
     */
    CompletableFuture<Lease> acquireAsync(Duration wait);

    /**
     * Whether anyone holds the lock right now (one Redis call). Also true for the moment a released lock is reserved
     * for a waiter that takes precedence (see {@link BatonConfig#fairnessThreshold()}), when nobody else could
     * acquire it either.
     *
     * @return true if the lock is held, by any process, or reserved for a waiter with precedence
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean isLocked();

    /**
     * Who holds the lock right now, how often, for how much longer, and the last fencing token of its name: one
     * atomic Redis read, meant for operators and diagnostics. The answer says its {@link LockInfo#kind() kind} and
     * lists every holder ({@link LockInfo#allHolders()}), and for a fair lock the waiters in its queue
     * ({@link LockInfo#waiting()}). Each side of a read-write lock reports the whole read-write lock (see
     * {@link DistributedReadWriteLock}), so that neither side looks free while the other holds it. A multi-lock
     * reports its plain locks together, held when any of them is (one read per lock). The answer describes this
     * object only: {@link Baton#inspect(String)} looks at every kind of lock under a name.
     *
     * @return the lock's state at the instant Redis ran the read
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    LockInfo inspect();

    /**
     * Whether the current thread holds the lock through the thread-owned methods (no Redis call).
     *
     * @return true if the current thread holds it, as far as this process knows
     */
    boolean isHeldByCurrentThread();

    /**
     * The current thread's reentrant hold count (no Redis call).
     *
     * @return the hold count, 0 if the current thread does not hold the lock
     */
    int holdCount();

    /**
     * The fencing token of the current thread's hold (no Redis call).
     *
     * @return the token, strictly greater than every earlier token for this name
     * @throws IllegalMonitorStateException if the current thread does not hold the lock, or its lease was lost
     */
    long fencingToken();

    /**
     * Administrative: deletes the lock whoever holds it and wakes waiters. The former owner learns that it lost the
     * lock at its next renewal or release. Fencing tokens keep increasing.
     *
     * @return true if the lock existed
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     */
    boolean forceUnlock();
}
