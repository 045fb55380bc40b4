package dev.baton.internal.semaphore;

import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import dev.baton.SemaphoreInfo;
import dev.baton.internal.engine.AcquireAttempt;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.HoldLease;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.Waiting;
import dev.baton.internal.runtime.Require;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The facade of {@link DistributedSemaphore}: checks arguments, starts the engine's attempts for {@code n} permits
 * with a fresh lease owner each, and turns their outcomes into {@link Lease}s and exceptions. The protocol is in
 * {@link SemaphoreCalls} and {@code semaphore-*.lua} (docs/semaphore.md).
 */
public final class RedisSemaphore implements DistributedSemaphore {
    private final LockEngine engine;
    private final SemaphoreCalls driver;
    private final LockKeys keys;
    private final Waiting waiting;

    public RedisSemaphore(LockEngine engine, SemaphoreCalls driver, LockKeys keys) {
        this.engine = engine;
        this.driver = driver;
        this.keys = keys;
        this.waiting = engine.waiting();
    }

    @Override
    public String name() {
        return keys.name();
    }

    @Override
    public int permits() {
        return counts().total();
    }

    @Override
    public int availablePermits() {
        return counts().available();
    }

    private SemaphoreCalls.Counts counts() {
        engine.checkOpen();
        return engine.gateway().await(driver.counts(keys));
    }

    @Override
    public void setPermits(int permits) {
        Require.positive(permits, "permits");
        engine.checkOpen();
        engine.gateway().await(driver.setPermits(keys, permits));
    }

    @Override
    public Lease acquire(int permits, Duration wait) throws InterruptedException {
        Require.positive(permits, "permits");
        long waitNanos = Waiting.waitNanos(wait);
        Lease lease = await(attempt(permits, engine.watchdogLeaseMillis(), true, waitNanos));
        if (lease == null) {
            throw timeout(permits, wait);
        }
        return lease;
    }

    @Override
    public Optional<Lease> tryAcquire(int permits, Duration wait, Duration lease) throws InterruptedException {
        Require.positive(permits, "permits");
        long waitNanos = Waiting.waitNanos(wait);
        long leaseMillis = Require.positive(lease, "lease").toMillis();
        return Optional.ofNullable(await(attempt(permits, leaseMillis, false, waitNanos)));
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(int permits, Duration wait) {
        Require.positive(permits, "permits");
        long waitNanos = Waiting.waitNanos(wait);
        return waiting.future(attempt(permits, engine.watchdogLeaseMillis(), true, waitNanos), this::lease,
                Lease::close, () -> timeout(permits, wait));
    }

    @Override
    public SemaphoreInfo inspect() {
        engine.checkOpen();
        return engine.gateway().await(driver.inspectSemaphore(keys));
    }

    /**
     * Waits for an attempt; permits granted just before an interrupt won are given back, as the javadoc promises
     * ("nothing is left acquired").
     */
    private Lease await(AcquireAttempt attempt) throws InterruptedException {
        Hold hold = waiting.await(attempt, Waiting.OnInterruptedGrant.GIVE_BACK, h -> lease(h).close());
        return hold == null ? null : lease(hold);
    }

    private Lease lease(Hold hold) {
        return new HoldLease(engine, hold);
    }

    private AcquireAttempt attempt(int permits, long leaseMillis, boolean watchdogLease, long waitNanos) {
        return engine.attempt(driver, keys, engine.identity().newLeaseOwner(), permits, leaseMillis, watchdogLease,
                waitNanos, false, null);
    }

    private LockTimeoutException timeout(int permits, Duration wait) {
        return new LockTimeoutException(permits + (permits == 1 ? " permit" : " permits") + " of semaphore '"
                + name() + "' were not acquired within " + wait);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{" + name() + "}";
    }
}
