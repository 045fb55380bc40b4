package dev.baton.internal.transport;

import dev.baton.BatonException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A {@link Transport} with no Redis behind it, for unit tests of the engine: every script call is recorded as a
 * {@link Call} that the test answers by hand ({@link Call#reply} with the raw shape Redis would send: a {@code Long},
 * a {@code List<Long>} ...) or fails ({@link Call#fail}); or, for calls the engine waits for in a blocking method,
 * answered as they come by a rule ({@link #answer}). Answers run the engine's callbacks on the test's thread, at
 * once, so a test steps the engine one reply at a time.
 *
 * <p>Subscriptions are confirmed at once unless {@link #holdSubscriptions} was called; {@link #publish} delivers a
 * message on a subscribed channel. {@link #outage} makes every later command fail as an unreachable Redis would.
 * A script sent with replica acknowledgement ({@link #runAcknowledged}) is a call like any other, whose
 * {@link Call#acknowledgement} names what was asked of {@code WAIT}; {@code WAIT}'s answer is what
 * {@link #acknowledge} or {@link #waitFails} said last. {@code EXISTS} finds the keys named by {@link #present};
 * {@link #sharded} makes the transport one of sharded pub/sub.
 */
public final class FakeTransport implements Transport {

    /** What an acknowledged call asked of {@code WAIT}. */
    public record Acknowledgement(int replicas, Duration timeout) {
    }

    /** One script call the engine made. */
    public static final class Call {
        public final Script script;
        public final List<String> keys;
        public final List<String> args;
        /** For a call sent with replica acknowledgement, what it asked of {@code WAIT}; null for a plain run. */
        public final Acknowledgement acknowledgement;
        private final CompletableFuture<Object> reply = new CompletableFuture<>();

        Call(Script script, String[] keys, String[] args, Acknowledgement acknowledgement) {
            this.script = script;
            this.keys = List.of(keys);
            this.args = List.of(args);
            this.acknowledgement = acknowledgement;
        }

        /** Answers with Redis's raw reply; the engine's callbacks run now, on this thread. */
        public void reply(Object raw) {
            if (!reply.complete(raw)) {
                throw new IllegalStateException("answered twice: " + this);
            }
        }

        /** Fails the call as Redis (or the connection) would. */
        public void fail(RuntimeException failure) {
            if (!reply.completeExceptionally(failure)) {
                throw new IllegalStateException("answered twice: " + this);
            }
        }

        public boolean answered() {
            return reply.isDone();
        }

        @Override
        public String toString() {
            return script.file() + " " + keys + " " + args;
        }
    }

    private final Duration commandTimeout;
    private final List<Call> calls = new ArrayList<>();
    private final Map<Script, Function<Call, Object>> rules = new HashMap<>();
    private final Set<String> subscribed = new LinkedHashSet<>();
    private final Map<String, CompletableFuture<Void>> heldSubscriptions = new HashMap<>();
    private Subscriptions.Listener listener;
    private boolean holdSubscriptions;
    private RuntimeException outage;
    private boolean closed;
    private final Set<String> present = new LinkedHashSet<>();
    private boolean sharded;
    private long acknowledged;
    private RuntimeException waitFailure;

    public FakeTransport(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    // ---- what the test does ----

    /**
     * Answers every later call of {@code script} at once with what {@code reply} makes of it; if {@code reply}
     * throws, the call fails with that exception.
     */
    public synchronized void answer(Script script, Function<Call, Object> reply) {
        rules.put(script, reply);
    }

    /** From now on, every command fails at once as if Redis could not be reached; null ends the outage. */
    public synchronized void outage(RuntimeException failure) {
        this.outage = failure;
    }

    /** Every call so far, answered or not, in the order they were made. */
    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The calls of one script so far. */
    public synchronized List<Call> calls(Script script) {
        return calls.stream().filter(c -> c.script == script).toList();
    }

    /** The calls not answered yet. */
    public synchronized List<Call> unanswered() {
        return calls.stream().filter(c -> !c.answered()).toList();
    }

    /** The one unanswered call of {@code script}; fails the test unless there is exactly one. */
    public Call next(Script script) {
        List<Call> open = unanswered().stream().filter(c -> c.script == script).toList();
        if (open.size() != 1) {
            throw new AssertionError("expected one unanswered call of " + script.file() + ", but unanswered are "
                    + unanswered());
        }
        return open.get(0);
    }

    /** {@code EXISTS} finds these keys from now on (and no other). */
    public synchronized void present(String... keys) {
        present.addAll(List.of(keys));
    }

    /** Announces releases on sharded channels ({@link #shardedPubSub}): read by drivers when they are made. */
    public synchronized FakeTransport sharded() {
        sharded = true;
        return this;
    }

    /** {@code WAIT} counts this many replicas for every acknowledged call answered from now on. */
    public synchronized void acknowledge(long replicas) {
        acknowledged = replicas;
        waitFailure = null;
    }

    /** {@code WAIT} fails with this for every acknowledged call answered from now on. */
    public synchronized void waitFails(RuntimeException failure) {
        waitFailure = failure;
    }

    /**
     * The one unanswered call of {@code script}, after checking that it sent these {@code KEYS} and {@code ARGV}, in
     * this order; fails the test otherwise.
     */
    public Call next(Script script, List<String> keys, String... args) {
        Call call = next(script);
        if (!call.keys.equals(keys) || !call.args.equals(List.of(args))) {
            throw new AssertionError("expected " + script.file() + " " + keys + " " + List.of(args) + ", but it sent "
                    + call);
        }
        return call;
    }

    /** Subscriptions from now on wait for {@link #confirmSubscription}. */
    public synchronized void holdSubscriptions() {
        holdSubscriptions = true;
    }

    /** Confirms a subscription that {@link #holdSubscriptions} kept waiting. */
    public void confirmSubscription(String channel) {
        CompletableFuture<Void> pending;
        synchronized (this) {
            pending = heldSubscriptions.remove(channel);
            if (pending == null) {
                throw new AssertionError("no subscription to " + channel + " is waiting");
            }
            subscribed.add(channel);
        }
        pending.complete(null);
    }

    /** Channels subscribed right now (confirmed and not unsubscribed). */
    public synchronized Set<String> subscribed() {
        return Set.copyOf(subscribed);
    }

    /** Publishes a message as a release would; delivered only if the channel is subscribed. */
    public void publish(String channel) {
        publish(channel, "");
    }

    /** Publishes this message on the channel; delivered only if the channel is subscribed. */
    public void publish(String channel, String message) {
        Subscriptions.Listener to;
        synchronized (this) {
            to = subscribed.contains(channel) ? listener : null;
        }
        if (to != null) {
            to.message(channel, message);
        }
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    // ---- the transport ----

    @Override
    public <T> CompletableFuture<T> run(Script script, String[] keys, String... args) {
        return record(new Call(script, keys, args, null));
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> record(Call call) {
        Script script = call.script;
        Function<Call, Object> rule;
        synchronized (this) {
            if (outage != null) {
                return CompletableFuture.failedFuture(outage);
            }
            calls.add(call);
            rule = rules.get(script);
        }
        if (rule != null) {
            Object reply;
            try {
                reply = rule.apply(call);
            } catch (RuntimeException failure) {
                call.fail(failure);
                return (CompletableFuture<T>) call.reply;
            }
            call.reply(reply);
        }
        return (CompletableFuture<T>) call.reply;
    }

    @Override
    public synchronized CompletableFuture<Boolean> exists(String key) {
        return outage != null ? CompletableFuture.failedFuture(outage)
                : CompletableFuture.completedFuture(present.contains(key));
    }

    @Override
    public KeyScan scan(String match, int count) {
        throw new UnsupportedOperationException("the fake transport has no key space");
    }

    @Override
    public synchronized CompletableFuture<String> ping() {
        return outage != null ? CompletableFuture.failedFuture(outage) : CompletableFuture.completedFuture("PONG");
    }

    @Override
    public synchronized Subscriptions subscriptions(Subscriptions.Listener onMessage) {
        this.listener = onMessage;
        return new Subscriptions() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                synchronized (FakeTransport.this) {
                    if (outage != null) {
                        return CompletableFuture.failedFuture(outage);
                    }
                    if (holdSubscriptions) {
                        return heldSubscriptions.computeIfAbsent(channel, c -> new CompletableFuture<>());
                    }
                    subscribed.add(channel);
                }
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                synchronized (FakeTransport.this) {
                    if (outage != null) {
                        return CompletableFuture.failedFuture(outage);
                    }
                    subscribed.remove(channel);
                }
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    /** No test waits for Redis: a blocking call must find its reply already given (see {@link #answer}). */
    @Override
    public <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        if (!future.isDone()) {
            throw new AssertionError("a blocking call waits for a reply the test has not given; unanswered: "
                    + unanswered());
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            throw translate(e);
        }
    }

    @Override
    public <T> T await(CompletionStage<T> stage, Duration timeout) {
        return await(stage);
    }

    @Override
    public <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout) {
        return future;
    }

    @Override
    public RuntimeException translate(Throwable failure) {
        Throwable e = RedisGateway.unwrap(failure);
        return e instanceof RuntimeException r ? r : new BatonException("fake transport failure", e);
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public String endpoint() {
        return "fake:6379";
    }

    @Override
    public boolean isCluster() {
        return false;
    }

    /**
     * The script as a call of its own, answered by the test; {@code WAIT}'s part of the reply is what
     * {@link #acknowledge} or {@link #waitFails} said last when the call is answered. Real replicas are in
     * ReplicaAcknowledgedIT.
     */
    @Override
    public <T> CompletableFuture<AcknowledgedWrites.Reply<T>> runAcknowledged(Script script, String[] keys,
            String[] args,
                                                                            int replicas, Duration timeout) {
        return this.<T>record(new Call(script, keys, args, new Acknowledgement(replicas, timeout))).thenApply(raw -> {
            synchronized (this) {
                return new AcknowledgedWrites.Reply<>(raw, acknowledged, waitFailure);
            }
        });
    }

    @Override
    public synchronized boolean shardedPubSub() {
        return sharded;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}
