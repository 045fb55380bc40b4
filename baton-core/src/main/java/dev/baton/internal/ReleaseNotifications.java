package dev.baton.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Release notifications for all waiters of one Baton over one shared pub/sub connection: one subscription per lock
 * name that has local waiters, dropped when the last of them leaves.
 *
 * <p>A release message wakes <em>one</em> armed local waiter (no thundering herd inside a process) and bumps the
 * channel's {@linkplain #epoch epoch}. A waiter whose attempt was in flight when the message came sees the epoch
 * change and tries again at once instead of sleeping, so a release is never missed between a failed attempt and
 * arming. Messages lost on a reconnect are covered by each waiter's bounded re-check.
 *
 * <p>Subscribe and unsubscribe commands of one channel are chained, so Redis sees them in the order they were
 * decided even though they are asynchronous.
 */
final class ReleaseNotifications {

    /** A local waiter for a lock's release. */
    interface Waiter {
        /** Called on a release message; returns true if this waiter took the wake-up (it was armed). */
        boolean wake();
    }

    private static final class Channel {
        final Deque<Waiter> waiters = new ConcurrentLinkedDeque<>();
        final AtomicLong epoch = new AtomicLong();
        CompletableFuture<Void> lastCommand = CompletableFuture.completedFuture(null); // guarded by the registry
        CompletableFuture<Void> subscription;                                          // null = not subscribed
    }

    private final RedisGateway gateway;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection; // guarded by this

    ReleaseNotifications(RedisGateway gateway) {
        this.gateway = gateway;
    }

    /**
     * Adds a waiter for a channel; the returned future completes once Redis confirmed the subscription, so an attempt
     * made after it cannot miss a release.
     */
    synchronized CompletableFuture<Void> register(String channel, Waiter waiter) {
        Channel c = channels.computeIfAbsent(channel, k -> new Channel());
        c.waiters.add(waiter);
        if (c.subscription == null || c.subscription.isCompletedExceptionally()) {
            c.subscription = chain(c, () -> connection().thenCompose(
                    conn -> conn.async().subscribe(channel).toCompletableFuture().thenApply(v -> null)));
        }
        return c.subscription;
    }

    /** Removes a waiter; the last one leaving unsubscribes. */
    synchronized void unregister(String channel, Waiter waiter) {
        Channel c = channels.get(channel);
        if (c == null || !c.waiters.remove(waiter) || !c.waiters.isEmpty()) {
            return;
        }
        c.subscription = null;
        CompletableFuture<Void> unsubscribed = chain(c, () -> connection().thenCompose(
                conn -> conn.async().unsubscribe(channel).toCompletableFuture().thenApply(v -> null)));
        unsubscribed.whenComplete((v, e) -> {
            synchronized (this) {
                if (c.lastCommand == unsubscribed && c.waiters.isEmpty()) {
                    channels.remove(channel, c);
                }
            }
        });
    }

    /** Current epoch of a channel: it grows with every release message received; -1 if nobody waits on it. */
    long epoch(String channel) {
        Channel c = channels.get(channel);
        return c == null ? -1 : c.epoch.get();
    }

    /** Wakes the first armed waiter of the channel, if any (used by a waiter that gives up holding a wake-up). */
    void wakeOne(String channel) {
        Channel c = channels.get(channel);
        if (c != null) {
            for (Waiter w : c.waiters) {
                if (w.wake()) {
                    return;
                }
            }
        }
    }

    /** Number of lock names with local waiters; for tests and diagnostics. */
    int channelCount() {
        return channels.size();
    }

    /** Number of local waiters over all names; for tests and diagnostics. */
    int waiterCount() {
        return channels.values().stream().mapToInt(c -> c.waiters.size()).sum();
    }

    private void onMessage(String channel) {
        Channel c = channels.get(channel);
        if (c != null) {
            c.epoch.incrementAndGet();
            wakeOne(channel);
        }
    }

    private CompletableFuture<Void> chain(Channel c, java.util.function.Supplier<CompletableFuture<Void>> command) {
        CompletableFuture<Void> next = c.lastCommand.handle((v, e) -> null).thenCompose(v -> command.get());
        c.lastCommand = next;
        return next;
    }

    private synchronized CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
        if (connection == null || connection.isCompletedExceptionally()) {
            connection = gateway.connectPubSub().thenApply(conn -> {
                conn.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        onMessage(channel);
                    }
                });
                return conn;
            });
        }
        return connection;
    }
}
