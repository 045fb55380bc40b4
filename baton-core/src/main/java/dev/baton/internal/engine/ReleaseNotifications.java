package dev.baton.internal.engine;

import dev.baton.internal.transport.Subscriptions;
import dev.baton.internal.transport.Transport;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The local waiters of one Baton and their release notifications, over one shared pub/sub connection: one
 * subscription per lock name that has local waiters, kept for a short linger after the last one leaves (so a hot
 * lock does not subscribe and unsubscribe on every acquisition), then dropped.
 *
 * <p>A release message wakes <em>one</em> waiting local waiter (no thundering herd inside a process) and moves the
 * channel's {@linkplain #epoch epoch}; a message may instead name the one owner it is for (a fair lock's handoff),
 * or ask to wake every local waiter ({@value #WAKE_ALL}: readers, once a writer left). A waiter whose try was in
 * flight when the message came sees the epoch change and tries again at once instead of sleeping, so a release is
 * never missed between a failed try and waiting. It only does so for a message that concerns it: the channel keeps
 * its last few messages, so that a message naming another waiter (a fair lock's handoff) does not send every waiter
 * whose try was in flight back to Redis ({@link #heardSince}).
 * Messages lost on a reconnect are covered by the bounded re-check of the eldest local waiter of each lock (see
 * {@code AcquireAttempt}: one try per interval answers for every local waiter of a plain lock or a Redlock).
 *
 * <p>It also keeps the count of consecutive local handoffs per lock, which bounds how long one Baton can pass a lock
 * among its own threads while other processes wait.
 *
 * <p>Subscribe and unsubscribe commands of one channel are chained, so Redis sees them in the order they were
 * decided even though they are asynchronous.
 *
 * <p>On a Cluster of Redis 7 or later the channels are sharded ({@code SSUBSCRIBE}, on the node that owns the lock's
 * slot; the release scripts {@code SPUBLISH}), so a release costs work on one node, not on all. When the slot moves
 * (a migration or a failover), that node drops the subscription and says so; the channel is then subscribed again,
 * where the slot now lives, and the waiters' bounded re-check covers the moment in between.
 */
public final class ReleaseNotifications<W extends ReleaseNotifications.Waiter> {

    /** The plain release message: wakes one local waiter, which tries again. */
    public static final String RELEASED = "released";
    /** A release message that wakes every local waiter of the channel (say, readers after a writer left). */
    public static final String WAKE_ALL = "all";

    /** A local waiter for a lock's release (or, for a latch, for its release by the last count-down). */
    public interface Waiter {
        /**
         * Called on a release message; returns true if this waiter took the wake-up (it was waiting, and the message
         * was for it: a message may name the one owner it hands the lock to).
         */
        boolean wake(String message);

        /** Called by a local holder about to hand the lock over; true if this waiter takes it. */
        boolean claim();

        /** Whether this waiter is asleep after its own try found the lock held (not trying, not claimed). */
        boolean sleepsOnHeldLock();

        /** The Baton is closing: end the wait with this failure. */
        void closed(RuntimeException reason);
    }

    /** Schedules a task on the Baton's scheduler. */
    public interface Timers {
        ScheduledFuture<?> schedule(Runnable task, long delayNanos);
    }

    /** Pause before subscribing again to a sharded channel whose new owner refused or was not known yet. */
    private static final long RESUBSCRIBE_RETRY_NANOS = 200_000_000L;

    /** How many of a channel's latest messages are kept for {@link #heardSince} (a power of two). */
    private static final int RECENT = 16;

    private final class Channel {
        final Deque<W> waiters = new ConcurrentLinkedDeque<>();
        final AtomicLong epoch;
        /** The message that moved the epoch to e is at index e % RECENT, written before the epoch moves. */
        final AtomicReferenceArray<String> recent = new AtomicReferenceArray<>(RECENT);
        CompletableFuture<Void> lastCommand = CompletableFuture.completedFuture(null); // guarded by the registry
        CompletableFuture<Void> subscription;                                          // null = not subscribed
        ScheduledFuture<?> linger;                                                      // pending unsubscribe
        int localHandoffs;                                                              // guarded by the registry

        Channel(long epochBase) {
            this.epoch = new AtomicLong(epochBase);
        }

        boolean listening() {
            CompletableFuture<Void> s = subscription;
            return s != null && s.isDone() && !s.isCompletedExceptionally();
        }
    }

    private final Subscriptions subscriptions;
    private final Timers timers;
    private final long lingerNanos;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final AtomicLong epochBases = new AtomicLong();

    /**
     * Notifications over a pub/sub connection of their own, opened at the first subscription: the engine's for its
     * locks, and one per family whose waiters are not lock attempts (a latch's).
     */
    public ReleaseNotifications(Transport transport, Timers timers, long lingerNanos) {
        this.subscriptions = transport.subscriptions(new Subscriptions.Listener() {
            @Override
            public void message(String channel, String message) {
                onMessage(channel, message);
            }

            @Override
            public void dropped(String channel) {
                droppedByServer(channel);
            }

            @Override
            public void reconnected() {
                lookAgainAfterReconnect();
            }
        });
        this.timers = timers;
        this.lingerNanos = lingerNanos;
    }

    /**
     * Adds a waiter for a channel; the returned future completes once Redis confirmed the subscription, so a try
     * made after it cannot miss a release.
     */
    public synchronized CompletableFuture<Void> register(String channel, W waiter) {
        // Each channel object starts its epochs in its own range, so a waiter can tell a re-created channel apart.
        Channel c = channels.computeIfAbsent(channel, k -> new Channel(epochBases.incrementAndGet() << 32));
        if (c.linger != null) {
            c.linger.cancel(false);
            c.linger = null;
        }
        c.waiters.add(waiter);
        if (c.subscription == null || c.subscription.isCompletedExceptionally()) {
            c.subscription = subscribe(channel, c);
        }
        return c.subscription;
    }

    private CompletableFuture<Void> subscribe(String channel, Channel c) {
        return chain(c, () -> subscriptions.subscribe(channel));
    }

    /** Removes a waiter; when the last one leaves, the subscription is dropped after the linger. */
    public synchronized void unregister(String channel, W waiter) {
        Channel c = channels.get(channel);
        if (c == null || !c.waiters.remove(waiter) || !c.waiters.isEmpty() || c.linger != null) {
            return;
        }
        c.linger = timers.schedule(() -> unsubscribeIfIdle(channel, c), lingerNanos);
    }

    private synchronized void unsubscribeIfIdle(String channel, Channel c) {
        if (!c.waiters.isEmpty() || c.linger == null || channels.get(channel) != c) {
            return;
        }
        c.linger = null;
        c.subscription = null;
        CompletableFuture<Void> unsubscribed = chain(c, () -> subscriptions.unsubscribe(channel));
        unsubscribed.whenComplete((v, e) -> {
            synchronized (this) {
                if (c.lastCommand == unsubscribed && c.waiters.isEmpty() && c.subscription == null) {
                    channels.remove(channel, c);
                }
            }
        });
    }

    /**
     * The channel's epoch, which grows with every release message received; -1 unless the channel's subscription
     * is confirmed right now (a try sent at epoch -1 must re-check after subscribing).
     */
    long epoch(String channel) {
        Channel c = channels.get(channel);
        return c == null || !c.listening() ? -1 : c.epoch.get();
    }

    /**
     * Whether a message that {@code concerns} a waiter came since it saw epoch {@code seen}: true as soon as one of
     * the messages since then concerns it, or if they are not all known any more (more than a few came, or the
     * subscription was not confirmed at either end); false if the epoch has not moved or none of them concerns it.
     */
    boolean heardSince(String channel, long seen, Predicate<String> concerns) {
        long now = epoch(channel);
        if (now == seen) {
            return false;
        }
        Channel c = channels.get(channel);
        if (c == null || seen == -1 || now == -1 || now - seen > RECENT || now < seen) {
            return true;
        }
        for (long e = seen + 1; e <= now; e++) {
            String message = c.recent.get((int) (e & (RECENT - 1)));
            if (message == null || concerns.test(message)) {
                return true;
            }
        }
        return c.epoch.get() - seen > RECENT; // some were overwritten while we read them: unknown
    }

    /** Whether this Baton has waiters for the channel (its releases must then publish). */
    boolean hasWaiters(String channel) {
        Channel c = channels.get(channel);
        return c != null && !c.waiters.isEmpty();
    }

    /**
     * The waiter of this channel registered first of those still registered (they leave the channel when their
     * attempt ends), or null: the eldest local waiter for this lock.
     */
    W eldest(String channel) {
        Channel c = channels.get(channel);
        return c == null ? null : c.waiters.peekFirst();
    }

    /**
     * Whether another waiter of the channel is asleep after its try found the lock held, while the subscription is
     * live. Such a waiter is woken by the next release message (or hands its wake-up on when it gives up), so a
     * newcomer may queue behind it without asking Redis first.
     */
    boolean hasSleepingWaiterOtherThan(String channel, W self) {
        Channel c = channels.get(channel);
        if (c == null || !c.listening()) {
            return false;
        }
        for (W w : c.waiters) {
            if (w != self && w.sleepsOnHeldLock()) {
                return true;
            }
        }
        return false;
    }

    /**
     * A waiter that agreed to take the lock straight from a local holder, or null. Null also once {@code limit}
     * handoffs happened in a row: the lock must then be released to everyone, and the count starts again.
     */
    synchronized W claimForHandoff(String channel, int limit) {
        Channel c = channels.get(channel);
        if (c == null) {
            return null;
        }
        if (c.localHandoffs < limit) {
            for (W w : c.waiters) {
                if (w.claim()) {
                    c.localHandoffs++;
                    return w;
                }
            }
        }
        c.localHandoffs = 0;
        return null;
    }

    /** Wakes the first waiting waiter of the channel, if any (also used by a waiter passing on its wake-up). */
    void wakeOne(String channel) {
        wakeOne(channel, RELEASED);
    }

    private void wakeOne(String channel, String message) {
        Channel c = channels.get(channel);
        if (c != null) {
            for (W w : c.waiters) {
                if (w.wake(message)) {
                    return;
                }
            }
        }
    }

    private void wakeAll(String channel) {
        Channel c = channels.get(channel);
        if (c != null) {
            for (W w : c.waiters) {
                w.wake(WAKE_ALL);
            }
        }
    }

    /** Ends every wait of this Baton (it is closing); nothing is unsubscribed, the connection closes with it. */
    public void closeAll(RuntimeException reason) {
        for (Channel c : channels.values()) {
            for (W w : c.waiters) {
                w.closed(reason);
            }
        }
    }

    /** Number of lock names subscribed or lingering; for tests and diagnostics. */
    int channelCount() {
        return channels.size();
    }

    /** Number of local waiters over all names; for tests and diagnostics. */
    int waiterCount() {
        return channels.values().stream().mapToInt(c -> c.waiters.size()).sum();
    }

    /** Number of local waiters asleep after a try that found their lock held; for tests and diagnostics. */
    int sleepingWaiterCount() {
        return (int) channels.values().stream().flatMap(c -> c.waiters.stream()).filter(Waiter::sleepsOnHeldLock)
                .count();
    }

    /** Moves the channel's epoch for a message, keeping the message for {@link #heardSince}. */
    private void heard(Channel c, String message) {
        synchronized (c.recent) { // one writer at a time: the slot first, then the epoch
            long next = c.epoch.get() + 1;
            c.recent.set((int) (next & (RECENT - 1)), message);
            c.epoch.set(next);
        }
    }

    private void onMessage(String channel, String message) {
        Channel c = channels.get(channel);
        if (c != null) {
            heard(c, message);
            if (WAKE_ALL.equals(message)) {
                wakeAll(channel);
            } else {
                wakeOne(channel, message);
            }
        }
    }

    /**
     * A sharded channel was dropped by Redis, not by us (its slot moved to another node): if this Baton still has
     * waiters on it, subscribe again, which Lettuce routes to the slot's new owner. Until that is confirmed the
     * channel reports no epoch, so new tries re-check, and sleeping waiters are covered by their bounded re-check.
     * Our own unsubscribes clear {@code subscription} first, so they never come here.
     */
    private synchronized void droppedByServer(String channel) {
        Channel c = channels.get(channel);
        if (c == null || c.subscription == null) {
            return;
        }
        // Without waiters (lingering), only forget it, so that a waiter arriving next subscribes afresh.
        c.subscription = c.waiters.isEmpty() ? null : resubscribe(channel, c);
    }

    /**
     * The subscription connection came back after a loss: releases published meanwhile were not heard. For each
     * channel with waiters, subscribe again (Lettuce does so too; a second SUBSCRIBE of a channel changes nothing) and,
     * once Redis confirmed it, wake every waiter, so that each tries now, with the subscription certainly live,
     * instead of sleeping until its re-check.
     */
    private synchronized void lookAgainAfterReconnect() {
        channels.forEach((channel, c) -> {
            if (c.waiters.isEmpty() || c.subscription == null) {
                return;
            }
            CompletableFuture<Void> again = subscribe(channel, c);
            c.subscription = again;
            again.whenComplete((v, e) -> {
                if (e == null) {
                    heard(c, WAKE_ALL);
                    wakeAll(channel);
                }
            });
        });
    }

    /**
     * Subscribes again after the server dropped the channel. Lettuce may still route by the old slot table for a
     * moment (its refresh is triggered by the same change), so a refused attempt is retried shortly after, for as
     * long as waiters remain.
     */
    private CompletableFuture<Void> resubscribe(String channel, Channel c) {
        CompletableFuture<Void> attempt = subscribe(channel, c);
        attempt.whenComplete((v, e) -> {
            if (e != null) {
                timers.schedule(() -> retryResubscribe(channel, c, attempt), RESUBSCRIBE_RETRY_NANOS);
            }
        });
        return attempt;
    }

    private synchronized void retryResubscribe(String channel, Channel c, CompletableFuture<Void> failed) {
        if (channels.get(channel) == c && c.subscription == failed && !c.waiters.isEmpty()) {
            c.subscription = resubscribe(channel, c);
        }
    }

    private CompletableFuture<Void> chain(Channel c, Supplier<CompletableFuture<Void>> command) {
        CompletableFuture<Void> next = c.lastCommand.handle((v, e) -> null).thenCompose(v -> command.get());
        c.lastCommand = next;
        return next;
    }
}
