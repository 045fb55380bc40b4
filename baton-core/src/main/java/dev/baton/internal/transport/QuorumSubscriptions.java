package dev.baton.internal.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pub/sub over every master of a Redlock: a channel is subscribed on each of them, and a message on any of them
 * reaches the one listener, so that a waiter is woken by whichever master hears a release first. A subscription
 * counts as confirmed once a majority confirmed it (a release that can matter to a waiter changes a majority, so at
 * least one of the confirmed masters hears it); a master that is down or slow does not hold the waiter up, and a
 * message it misses costs at most the waiter's bounded re-check. A master reached only after the Baton started gets
 * every channel subscribed so far, and the listener is told to look again.
 *
 * <p>Thread-safe.
 */
final class QuorumSubscriptions implements Subscriptions {
    private final OnceEach listener;
    private final int quorum;
    /** One per master; null for a master not reached yet. Guarded by this. */
    private final Subscriptions[] perMaster;
    private final Set<String> channels = ConcurrentHashMap.newKeySet();

    QuorumSubscriptions(List<IndependentMaster> masters, int quorum, Subscriptions.Listener listener) {
        this.listener = new OnceEach(listener);
        this.quorum = quorum;
        this.perMaster = new Subscriptions[masters.size()];
        for (int i = 0; i < perMaster.length; i++) {
            Transport g = masters.get(i).gateway();
            perMaster[i] = g == null ? null : g.subscriptions(listener);
        }
    }

    /** A master connected after the start: subscribe what the others have, then let waiters look again. */
    void connected(int index, Transport gateway) {
        Subscriptions s = gateway.subscriptions(listener);
        synchronized (this) {
            perMaster[index] = s;
        }
        for (String channel : channels) {
            s.subscribe(channel);
        }
        listener.reconnected();
    }

    /**
     * Passes each message on once, whichever master delivers it first: every master publishes the same release, and
     * each copy would wake one more waiter into a round that finds the lock taken. Only messages that name what they
     * announce (a Redlock release carries its token: {@code "released <token>"}) are recognised as copies; a bare
     * {@code "released"} (a force-unlock) always passes, at worst waking a waiter more than needed.
     */
    private static final class OnceEach implements Subscriptions.Listener {
        /** How many of a channel's last distinct messages are remembered: the copies of one arrive close together. */
        private static final int REMEMBERED = 8;
        private final Subscriptions.Listener listener;
        private final Map<String, ArrayDeque<String>> recent = new ConcurrentHashMap<>();

        OnceEach(Subscriptions.Listener listener) {
            this.listener = listener;
        }

        @Override
        public void message(String channel, String message) {
            if (message.indexOf(' ') >= 0) {
                ArrayDeque<String> seen = recent.computeIfAbsent(channel, c -> new ArrayDeque<>(REMEMBERED));
                synchronized (seen) {
                    if (seen.contains(message)) {
                        return;
                    }
                    if (seen.size() == REMEMBERED) {
                        seen.removeFirst();
                    }
                    seen.addLast(message);
                }
            }
            listener.message(channel, message);
        }

        @Override
        public void dropped(String channel) {
            listener.dropped(channel);
        }

        @Override
        public void reconnected() {
            listener.reconnected();
        }

        void forget(String channel) {
            recent.remove(channel);
        }
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        channels.add(channel);
        return majority(s -> s.subscribe(channel), "subscribe to " + channel);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        channels.remove(channel);
        listener.forget(channel);
        return majority(s -> s.unsubscribe(channel), "unsubscribe from " + channel);
    }

    /**
     * @throws dev.baton.BatonUnavailableException (in the future) once so many masters failed that no majority can
     *                                             confirm, naming how many did
     */
    private CompletableFuture<Void> majority(java.util.function.Function<Subscriptions, CompletableFuture<Void>> op,
                                             String what) {
        List<Subscriptions> live = new ArrayList<>();
        synchronized (this) {
            for (Subscriptions s : perMaster) {
                if (s != null) {
                    live.add(s);
                }
            }
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger confirmed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        int unreachable = perMaster.length - live.size();
        if (unreachable > perMaster.length - quorum) {
            done.completeExceptionally(new dev.baton.BatonUnavailableException("only " + live.size() + " of "
                    + perMaster.length + " Redlock masters are connected, " + quorum + " needed", null));
            return done;
        }
        for (Subscriptions s : live) {
            CompletableFuture<Void> f;
            try {
                f = op.apply(s);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((v, e) -> {
                if (e == null) {
                    if (confirmed.incrementAndGet() == quorum) {
                        done.complete(null);
                    }
                } else if (failed.incrementAndGet() + unreachable == perMaster.length - quorum + 1) {
                    // As for every Redlock call, the caller learns how many masters answered, not only one failure.
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    done.completeExceptionally(new dev.baton.BatonUnavailableException("Redlock: only "
                            + confirmed.get() + " of " + perMaster.length + " masters answered (" + quorum
                            + " needed) to " + what + ": " + cause.getMessage(), cause));
                }
            });
        }
        return done;
    }
}
