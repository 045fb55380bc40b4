package dev.baton.internal.engine;

import dev.baton.internal.runtime.Require;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockInfo;
import dev.baton.LockTimeoutException;
import dev.baton.ReplicaAcknowledgement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;

/**
 * The facade of {@link DistributedLock}: checks arguments, turns the calling thread into an owner id, waits on the
 * engine's asynchronous attempts and maps outcomes to exceptions. The protocol itself is in {@link LockEngine},
 * {@link AcquireAttempt} and {@code lock-*.lua}.
 */
public final class RedisDistributedLock implements DistributedLock {
    /** Waits longer than this are treated as "forever" (they would overflow the deadline arithmetic on the ticker). */
    private static final long FOREVER_SECONDS = 100L * 365 * 24 * 3600;

    private final LockEngine engine;
    /** The kind of lock: plain, fair, the read or the write side of a read-write lock. */
    private final LockDriver driver;
    private final LockKeys keys;
    private final long watchdogLeaseMillis;
    /** How many replicas must acknowledge each acquisition, or null for none. */
    private final ReplicaAcknowledgement acknowledgement;

    public RedisDistributedLock(LockEngine engine, LockDriver driver, LockKeys keys, ReplicaAcknowledgement acknowledgement) {
        this.engine = engine;
        this.driver = driver;
        this.keys = keys;
        this.acknowledgement = acknowledgement;
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
        return awaitUninterruptibly(attempt(engine.threadOwner(), watchdogLeaseMillis, true, 0, true)) != null;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    @Override
    public boolean tryLock(Duration wait) throws InterruptedException {
        return acquireForThread(waitNanos(wait), watchdogLeaseMillis, true);
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        return acquireForThread(waitNanos, Require.positive(lease, "lease").toMillis(), false);
    }

    @Override
    public void unlock() {
        engine.checkOpen();
        Hold hold = engine.threadHold(driver, keys, engine.threadOwner());
        if (hold == null) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
        }
        if (hold.state() == Hold.State.LOST) {
            engine.forgetThreadHold(hold);
            engine.releaseOrphan(driver, keys, hold.owner, hold.token);
            throw lostException(hold);
        }
        int left;
        try {
            left = engine.release(hold);
        } finally {
            if (!hold.isHeld()) {
                engine.forgetThreadHold(hold);
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
        Hold hold = engine.threadHold(driver, keys, engine.threadOwner());
        return hold == null || !hold.isHeld() ? 0 : hold.count();
    }

    @Override
    public long fencingToken() {
        Hold hold = engine.threadHold(driver, keys, engine.threadOwner());
        if (hold == null) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
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

    private void lockUninterruptibly(long leaseMillis, boolean watchdogLease) {
        Hold hold = awaitUninterruptibly(attempt(engine.threadOwner(), leaseMillis, watchdogLease, Long.MAX_VALUE,
                true));
        if (hold == null) {
            throw new IllegalStateException("an unbounded wait for lock '" + name() + "' ended without the lock");
        }
    }

    /** Waits for an attempt that ends by itself (no deadline or a single try); keeps an interrupt for the caller. */
    private Hold awaitUninterruptibly(AcquireAttempt attempt) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return attempt.result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw engine.translate(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean acquireForThread(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        return await(attempt(engine.threadOwner(), leaseMillis, watchdogLease, waitNanos, true)) != null;
    }

    // ---- handle-owned ----

    @Override
    public Lease acquire(Duration wait) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        return acquireLease(waitNanos, watchdogLeaseMillis, true)
                .orElseThrow(() -> timeout(wait));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        return acquireLease(waitNanos, Require.positive(lease, "lease").toMillis(), false);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        long waitNanos = waitNanos(wait);
        AcquireAttempt attempt = attempt(engine.newLeaseOwner(), watchdogLeaseMillis, true, waitNanos, false);
        CompletableFuture<Lease> lease = new CompletableFuture<>();
        attempt.result.whenComplete((hold, error) -> {
            if (error != null) {
                Throwable failure = error instanceof CancellationException ? error : engine.translate(error);
                engine.completeForUser(() -> lease.completeExceptionally(failure));
            } else if (hold == null) {
                engine.completeForUser(() -> lease.completeExceptionally(timeout(wait)));
            } else {
                Lease granted = new RedisLease(engine, hold);
                engine.completeForUser(() -> {
                    if (!lease.complete(granted)) {
                        granted.close(); // the caller cancelled meanwhile
                    }
                });
            }
        });
        lease.whenComplete((l, e) -> {
            if (lease.isCancelled()) {
                attempt.cancel();
            }
        });
        return lease;
    }

    private Optional<Lease> acquireLease(long waitNanos, long leaseMillis, boolean watchdogLease)
            throws InterruptedException {
        Hold hold = await(attempt(engine.newLeaseOwner(), leaseMillis, watchdogLease, waitNanos, false));
        return hold == null ? Optional.empty() : Optional.of(new RedisLease(engine, hold));
    }

    private AcquireAttempt attempt(String owner, long leaseMillis, boolean watchdogLease, long waitNanos,
                                   boolean threadOwned) {
        return engine.attempt(driver, keys, owner, 1, leaseMillis, watchdogLease, waitNanos, threadOwned,
                acknowledgement);
    }

    // ---- anyone ----

    @Override
    public boolean isLocked() {
        return engine.isLocked(driver, keys);
    }

    @Override
    public LockInfo inspect() {
        return engine.inspect(driver, keys);
    }

    @Override
    public boolean forceUnlock() {
        return engine.forceUnlock(driver, keys);
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name() + "}";
    }

    /**
     * Waits for an attempt; on interrupt abandons it and waits (bounded) until an acquisition that was in flight has
     * been undone, so the caller leaves nothing behind.
     */
    private Hold await(AcquireAttempt attempt) throws InterruptedException {
        try {
            return attempt.result.get();
        } catch (InterruptedException e) {
            try {
                attempt.cancel().get(engine.gateway().commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                // best effort: an orphaned acquisition still expires with its lease
            }
            if (!attempt.result.isCancelled() && !attempt.result.isCompletedExceptionally()
                    && attempt.result.getNow(null) != null) {
                // Acquired just before the interrupt won: keep the lock and the interrupt, like ReentrantLock.
                Thread.currentThread().interrupt();
                return attempt.result.getNow(null);
            }
            throw e;
        } catch (ExecutionException e) {
            throw engine.translate(e.getCause());
        }
    }

    private IllegalMonitorStateException lostException(Hold hold) {
        return new IllegalMonitorStateException("lock '" + name() + "' was lost while held: " + hold.lostReason());
    }

    private LockTimeoutException timeout(Duration wait) {
        return new LockTimeoutException("lock '" + name() + "' was not acquired within " + wait);
    }

    /** A wait in nanoseconds for an attempt: {@link Long#MAX_VALUE} (no deadline) for a wait of a century or more. */
    public static long waitNanos(Duration wait) {
        Require.notNegative(wait, "wait");
        return wait.getSeconds() >= FOREVER_SECONDS ? Long.MAX_VALUE : wait.toNanos();
    }
}
