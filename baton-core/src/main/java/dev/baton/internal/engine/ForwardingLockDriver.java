package dev.baton.internal.engine;

import dev.baton.LockType;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link LockDriver} that passes every call on to another, for a driver that changes only part of a protocol and
 * overrides just that part: the replica-acknowledged lock (its tries wait for replicas), the election (the mutex's
 * protocol on keys of its own, reported as another kind, re-checking once per lease). Nothing of the protocol it
 * forwards to is written again.
 *
 * <p>Thread-safe if the driver it forwards to is.
 */
public abstract class ForwardingLockDriver implements LockDriver {
    /** The driver every call not overridden goes to. */
    protected final LockDriver delegate;

    protected ForwardingLockDriver(LockDriver delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean localQueueing() {
        return delegate.localQueueing();
    }

    @Override
    public LockType type() {
        return delegate.type();
    }

    @Override
    public long validityMillis(long leaseMillis) {
        return delegate.validityMillis(leaseMillis);
    }

    @Override
    public long recheckNanos(long configured) {
        return delegate.recheckNanos(configured);
    }

    @Override
    public long sleepLimitNanos(AcquireRequest request) {
        return delegate.sleepLimitNanos(request);
    }

    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest request, boolean willWait) {
        return delegate.acquire(request, willWait);
    }

    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return delegate.release(keys, owner, token, publish);
    }

    @Override
    public CompletableFuture<Long> releaseHold(Hold hold, boolean publish) {
        return delegate.releaseHold(hold, publish);
    }

    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        return delegate.renew(batch, leaseMillis);
    }

    @Override
    public CompletableFuture<Long> handoff(Hold from, AcquireRequest to) {
        return delegate.handoff(from, to);
    }

    @Override
    public long grantIn(String message, AcquireRequest request) {
        return delegate.grantIn(message, request);
    }

    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        return delegate.abandon(request, mayHoldGrant);
    }

    @Override
    public CompletableFuture<Boolean> keep(Hold hold, long millis) {
        return delegate.keep(hold, millis);
    }
}
