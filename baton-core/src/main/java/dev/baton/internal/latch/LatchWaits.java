package dev.baton.internal.latch;

import dev.baton.internal.engine.ReleaseNotifications;
import dev.baton.internal.runtime.BatonRuntime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The latch waiters of one Baton and their subscriptions: one per latch name with local waiters, shared by all of
 * them, over the engine's {@link ReleaseNotifications} (which also subscribes again after a reconnect or a moved
 * Cluster slot, and wakes the waiters then). Latches use a pub/sub connection of their own, opened at the first
 * wait, rather than the locks', whose notifications carry lock attempts. One per Baton, kept by its
 * {@code Primitives}; closing the runtime ends every wait with {@link IllegalStateException}. Thread-safe.
 */
public final class LatchWaits {
    private final BatonRuntime runtime;
    /** Built at the first wait, so that a Baton whose latches nobody awaits keeps no subscription listener. */
    private ReleaseNotifications<LatchWaiter> notifications; // guarded by this
    private boolean closed; // guarded by this

    public LatchWaits(BatonRuntime runtime) {
        this.runtime = runtime;
        runtime.onClose(this::close);
    }

    private synchronized ReleaseNotifications<LatchWaiter> notifications() {
        if (notifications == null) {
            // As the engine does for locks: keep a subscription a moment after its last waiter, so that waiters
            // coming one after another on a latch do not subscribe and unsubscribe each time.
            long lingerNanos = Math.min(runtime.config().recheckInterval().toNanos(), TimeUnit.SECONDS.toNanos(1));
            notifications = new ReleaseNotifications<>(runtime.gateway(), runtime::schedule, lingerNanos);
            if (closed) {
                notifications.closeAll(closedWhileWaiting());
            }
        }
        return notifications;
    }

    private synchronized void close() {
        closed = true;
        if (notifications != null) {
            notifications.closeAll(closedWhileWaiting());
        }
    }

    private static IllegalStateException closedWhileWaiting() {
        return new IllegalStateException("this Baton was closed while waiting for a latch");
    }

    /** Adds a waiter; the future completes once Redis confirmed the channel's subscription. */
    CompletableFuture<Void> register(LatchKeys keys, LatchWaiter waiter) {
        return notifications().register(keys.channel(), waiter);
    }

    /** Removes a waiter; the channel's subscription ends a moment after its last waiter left. */
    void unregister(LatchKeys keys, LatchWaiter waiter) {
        notifications().unregister(keys.channel(), waiter);
    }
}
