package dev.baton.internal.engine;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockInfo;
import dev.baton.LockTimeoutException;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Require;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.BiConsumer;

/**
 * The {@link DistributedLock} of any {@link LockDriver}: checks arguments, turns the calling thread into a re-entrant
 * owner (thread ownership lives here; the engine sees owners), waits on the engine's attempts through
 * {@link Waiting} and maps outcomes to exceptions. The plain, fair, read and write locks are this facade over their
 * drivers; the protocol of each is in its driver and its {@code .lua} files.
 */
public final class DriverLock implements DistributedLock {
    /** Checks a thread's request before anything is sent; the default allows every request. */
    private static final BiConsumer<LockKeys, String> ANY_OWNER = (keys, owner) -> { };

    private final LockEngine engine;
    private final Identity identity;
    private final Waiting waiting;
    /** The kind of lock: plain (maybe replica-acknowledged), fair, the read or the write side of a read-write lock. */
    private final LockDriver driver;
    private final LockView view;
    private final LockKeys keys;
    private final long watchdogLeaseMillis;
    /** Refuses a thread's request that could never be granted (a read-write lock's upgrade), before any call. */
    private final BiConsumer<LockKeys, String> threadCheck;

    /** A lock whose driver also answers for it to anyone ({@code inspect}, {@code isLocked}, {@code forceUnlock}). */
    public <D extends LockDriver & LockView> DriverLock(LockEngine engine, D driver, LockKeys keys) {
        this(engine, driver, driver, keys, ANY_OWNER);
    }

    /**
     * @param view        answers {@code inspect}, {@code isLocked} and {@code forceUnlock}
     * @param threadCheck called with the lock and the calling thread's owner id before a thread's attempt sends
     *                    anything; throws {@link IllegalMonitorStateException} to refuse it
     */
    public DriverLock(LockEngine engine, LockDriver driver, LockView view, LockKeys keys,
                      BiConsumer<LockKeys, String> threadCheck) {
        this.engine = engine;
        this.identity = engine.identity();
        this.waiting = new Waiting(engine);
        this.driver = driver;
        this.view = view;
        this.keys = keys;
        this.threadCheck = threadCheck;
        this.watchdogLeaseMillis = engine.watchdogLeaseMillis();
    }

    @Override
    public String name() {
        return keys.name();
    }

    // ---- thread-owned ----

    @Override
    public void lock() {
        lockUninterruptibly(watchdogLeaseMillis, true);
    }

    @Override
    public void lock(Duration lease) {
        lockUninterruptibly(Require.positive(lease, "lease").toMillis(), false);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        acquireForThread(Long.MAX_VALUE, watchdogLeaseMillis, true);
    }

    @Override
    public boolean tryLock() {
        // A single try, bounded by the command timeout; like ReentrantLock.tryLock(), not affected by interrupts.
        return waiting.awaitUninterruptibly(threadAttempt(watchdogLeaseMillis, true, 0)) != null;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    @Override
    public boolean tryLock(Duration wait) throws InterruptedException {
        return acquireForThread(Waiting.waitNanos(wait), watchdogLeaseMillis, true);
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Waiting.waitNanos(wait);
        return acquireForThread(waitNanos, Require.positive(lease, "lease").toMillis(), false);
    }

    @Override
    public void unlock() {
        engine.checkOpen();
        Hold hold = threadHold();
        if (hold == null) {
            throw notHeld();
        }
        if (hold.state() == Hold.State.LOST) {
            engine.forgetReentrantHold(hold);
            engine.releaseOrphan(driver, keys, hold.owner, hold.token);
            throw lostException(hold);
        }
        int left;
        try {
            left = engine.release(hold);
        } finally {
            if (!hold.isHeld()) {
                engine.forgetReentrantHold(hold);
            }
        }
        if (left < 0) {
            throw lostException(hold);
        }
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return holdCount() > 0;
    }

    @Override
    public int holdCount() {
        Hold hold = threadHold();
        return hold == null || !hold.isHeld() ? 0 : hold.count();
    }

    @Override
    public long fencingToken() {
        Hold hold = threadHold();
        if (hold == null) {
            throw notHeld();
        }
        if (!hold.isHeld()) {
            throw lostException(hold);
        }
        return hold.token;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a distributed lock cannot back a java.util.concurrent Condition");
    }

    private Hold threadHold() {
        return engine.reentrantHold(driver, keys, identity.threadOwner());
    }

    private void lockUninterruptibly(long leaseMillis, boolean watchdogLease) {
        Hold hold = waiting.awaitUninterruptibly(threadAttempt(leaseMillis, watchdogLease, Long.MAX_VALUE));
        if (hold == null) {
            throw new IllegalStateException("an unbounded wait for lock '" + name() + "' ended without the lock");
        }
    }

    private boolean acquireForThread(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        // Acquired just before an interrupt won: the thread keeps the lock and the interrupt, like ReentrantLock.
        return waiting.await(threadAttempt(leaseMillis, watchdogLease, waitNanos),
                Waiting.OnInterruptedGrant.KEEP, null) != null;
    }

    private AcquireAttempt threadAttempt(long leaseMillis, boolean watchdogLease, long waitNanos) {
        String owner = identity.threadOwner();
        engine.checkOpen();
        threadCheck.accept(keys, owner);
        return engine.attempt(driver, keys, owner, 1, leaseMillis, watchdogLease, waitNanos, true,
                Thread.currentThread());
    }

    // ---- handle-owned ----

    @Override
    public Lease acquire(Duration wait) throws InterruptedException {
        long waitNanos = Waiting.waitNanos(wait);
        return acquireLease(waitNanos, watchdogLeaseMillis, true).orElseThrow(() -> timeout(wait));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Waiting.waitNanos(wait);
        return acquireLease(waitNanos, Require.positive(lease, "lease").toMillis(), false);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        long waitNanos = Waiting.waitNanos(wait);
        return waiting.future(leaseAttempt(watchdogLeaseMillis, true, waitNanos), this::lease, Lease::close,
                () -> timeout(wait));
    }

    private Optional<Lease> acquireLease(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        Hold hold = waiting.await(leaseAttempt(leaseMillis, watchdogLease, waitNanos),
                Waiting.OnInterruptedGrant.KEEP, null);
        return hold == null ? Optional.empty() : Optional.of(lease(hold));
    }

    private AcquireAttempt leaseAttempt(long leaseMillis, boolean watchdogLease, long waitNanos) {
        return engine.attempt(driver, keys, identity.newLeaseOwner(), 1, leaseMillis, watchdogLease, waitNanos,
                false, null);
    }

    private Lease lease(Hold hold) {
        return new HoldLease(engine, hold);
    }

    // ---- anyone ----

    @Override
    public boolean isLocked() {
        engine.checkOpen();
        return engine.gateway().await(view.isLocked(keys));
    }

    @Override
    public LockInfo inspect() {
        engine.checkOpen();
        return engine.gateway().await(view.inspect(keys));
    }

    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        return engine.gateway().await(view.forceUnlock(keys));
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name() + "}";
    }

    private IllegalMonitorStateException notHeld() {
        return new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
    }

    private IllegalMonitorStateException lostException(Hold hold) {
        return new IllegalMonitorStateException("lock '" + name() + "' was lost while held: " + hold.lostReason());
    }

    private LockTimeoutException timeout(Duration wait) {
        return new LockTimeoutException("lock '" + name() + "' was not acquired within " + wait);
    }
}
