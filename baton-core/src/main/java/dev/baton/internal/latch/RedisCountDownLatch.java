package dev.baton.internal.latch;

import dev.baton.BatonException;
import dev.baton.BatonListener.LatchCountedDown;
import dev.baton.DistributedCountDownLatch;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.Require;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The count-down latch's facade: argument checks, blocking calls bounded by the command timeout, the wait, and the
 * events. Holds no state of its own beyond its keys, so any number of them may stand for one name; waiters of one
 * Baton share the latch's subscription ({@link LatchWaits}). Thread-safe.
 */
public final class RedisCountDownLatch implements DistributedCountDownLatch {
    private final BatonRuntime runtime;
    private final Transport gateway;
    private final Ticker ticker;
    private final LatchCalls calls;
    private final LatchKeys keys;
    private final LatchWaits waits;
    private final long recheckNanos;

    private RedisCountDownLatch(BatonRuntime runtime, LatchWaits waits, LatchKeys keys) {
        this.runtime = runtime;
        this.waits = waits;
        this.gateway = runtime.gateway();
        this.ticker = runtime.ticker();
        this.calls = new LatchCalls(gateway);
        this.keys = keys;
        this.recheckNanos = runtime.config().recheckInterval().toNanos();
    }

    /**
     * The latch of this name; no Redis call. The caller has checked the name and the topology.
     *
     * @param runtime the Baton's runtime
     * @param waits   the Baton's latch waiters and their subscriptions
     * @param name    the latch's name, already checked
     * @return the latch
     */
    public static RedisCountDownLatch of(BatonRuntime runtime, LatchWaits waits, String name) {
        return new RedisCountDownLatch(runtime, waits, LatchKeys.of(runtime.config().namespace(), name));
    }

    @Override
    public String name() {
        return keys.name();
    }

    @Override
    public boolean trySetCount(long count) {
        return trySetCount(count, DEFAULT_EXPIRY);
    }

    @Override
    public boolean trySetCount(long count, Duration expiry) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        Require.positive(expiry, "expiry");
        runtime.checkOpen();
        return gateway.await(calls.trySet(keys, count, expiry.toMillis()));
    }

    @Override
    public void countDown() {
        runtime.checkOpen();
        long left = gateway.await(calls.countDown(keys));
        if (runtime.events().enabled()) {
            LatchCountedDown event = new LatchCountedDown(keys.name(), Math.max(0, left));
            runtime.events().emit(l -> l.latchCountedDown(event));
        }
    }

    @Override
    public long count() {
        runtime.checkOpen();
        return read();
    }

    /**
     * Reads the count first, so that a released latch answers at once without a subscription; otherwise subscribes
     * (shared with this Baton's other waiters of the latch), reads the count again once Redis confirmed the
     * subscription, so that a release between the first read and the subscription is not missed, and then sleeps
     * until the release message, a re-check interval, or the end of {@code wait}, reading the count after each.
     * The re-check covers a message lost (a reconnect, a failover) and a latch that expired, which sends none.
     */
    @Override
    public boolean await(Duration wait) throws InterruptedException {
        Require.notNegative(wait, "wait");
        runtime.checkOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for latch '" + keys.name() + "'");
        }
        long deadline = ticker.nanos() + Math.min(wait.toNanos(), Long.MAX_VALUE / 2);
        if (readInterruptibly() == 0) {
            return true;
        }
        if (wait.isZero()) {
            return false;
        }
        LatchWaiter waiter = new LatchWaiter();
        CompletableFuture<Void> subscribed = waits.register(keys, waiter);
        try {
            // The runtime marks itself closed before it ends the waits it knows: a waiter registered after that
            // would not be told, so it looks here.
            runtime.checkOpen();
            gateway.await(subscribed);
            while (true) {
                long seen = waiter.wakeUps();
                if (readInterruptibly() == 0) {
                    return true;
                }
                long left = deadline - ticker.nanos();
                if (left <= 0) {
                    return false;
                }
                waiter.sleep(seen, Math.min(left, recheckNanos));
            }
        } catch (BatonException e) {
            if (runtime.isClosed()) { // the connection closed under the wait: say why
                throw closedWhileWaiting(e);
            }
            throw e;
        } finally {
            waits.unregister(keys, waiter);
        }
    }

    private IllegalStateException closedWhileWaiting(Throwable cause) {
        return new IllegalStateException("this Baton was closed while waiting for latch '" + keys.name() + "'", cause);
    }

    /** The count, bounded by the command timeout. */
    private long read() {
        return gateway.await(calls.count(keys));
    }

    /**
     * {@link #read()}, then throws if the thread was interrupted meanwhile: the transport's wait keeps an interrupt
     * for the caller rather than abandoning a command halfway.
     */
    private long readInterruptibly() throws InterruptedException {
        long count = read();
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for latch '" + keys.name() + "'");
        }
        return count;
    }

    @Override
    public String toString() {
        return "DistributedCountDownLatch[" + keys.name() + "]";
    }
}
