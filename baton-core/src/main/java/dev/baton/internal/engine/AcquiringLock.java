package dev.baton.internal.engine;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Require;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The acquiring half of every {@link DistributedLock} facade, written once: the thread-owned methods
 * ({@code lock}, {@code tryLock} ...) and the lease methods ({@code acquire}, {@code acquireAsync} ...) turned into
 * one kind of call, {@link #attempt}, and waited for through {@link Waiting}. A grant that wins a race with an
 * interrupt is kept and the interrupt re-asserted, as {@code DistributedLock} documents. Subclasses say how to start
 * an attempt and what a grant becomes as a lease; releasing and reading stay theirs.
 *
 * @param <T> what an attempt yields: one hold, or the holds of a multi-lock
 */
public abstract class AcquiringLock<T> implements DistributedLock {
    protected final LockEngine engine;
    protected final Identity identity;
    protected final Waiting waiting;
    protected final long watchdogLeaseMillis;

    protected AcquiringLock(LockEngine engine) {
        this.engine = engine;
        this.identity = engine.identity();
        this.waiting = engine.waiting();
        this.watchdogLeaseMillis = engine.watchdogLeaseMillis();
    }

    /**
     * Starts an acquisition (after checking that this Baton is open).
     *
     * @param owner     the calling thread's owner id (re-entrant) or a fresh lease owner
     * @param waitNanos how long to wait, {@link Long#MAX_VALUE} for as long as it takes, 0 for a single try
     * @param reentrant whether the owner is the calling thread
     */
    protected abstract Pending<T> attempt(String owner, long leaseMillis, boolean watchdogLease, long waitNanos,
                                          boolean reentrant);

    /** What a grant becomes for a caller that asked for a lease. */
    protected abstract Lease lease(T grant);

    /** The lock as messages name it, for instance {@code lock 'orders'}. */
    protected abstract String describe();

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
        return waiting.awaitUninterruptibly(attempt(identity.threadOwner(), watchdogLeaseMillis, true, 0, true))
                != null;
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
    public Condition newCondition() {
        throw new UnsupportedOperationException("a distributed lock cannot back a java.util.concurrent Condition");
    }

    private void lockUninterruptibly(long leaseMillis, boolean watchdogLease) {
        T grant = waiting.awaitUninterruptibly(attempt(identity.threadOwner(), leaseMillis, watchdogLease,
                Long.MAX_VALUE, true));
        if (grant == null) {
            throw new IllegalStateException("an unbounded wait for " + describe() + " ended without it");
        }
    }

    private boolean acquireForThread(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        return waiting.await(attempt(identity.threadOwner(), leaseMillis, watchdogLease, waitNanos, true),
                Waiting.OnInterruptedGrant.KEEP, null) != null;
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
        return waiting.future(attempt(identity.newLeaseOwner(), watchdogLeaseMillis, true, waitNanos, false),
                this::lease, Lease::close, () -> timeout(wait));
    }

    private Optional<Lease> acquireLease(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        T grant = waiting.await(attempt(identity.newLeaseOwner(), leaseMillis, watchdogLease, waitNanos, false),
                Waiting.OnInterruptedGrant.KEEP, null);
        return grant == null ? Optional.empty() : Optional.of(lease(grant));
    }

    private LockTimeoutException timeout(Duration wait) {
        return new LockTimeoutException(describe() + " was not acquired within " + wait);
    }
}
