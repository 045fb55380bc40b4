package dev.baton.internal.transport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What Baton's primitives need from Redis, and nothing more: run a script, a few plain commands, pub/sub, and the
 * translation of failures into Baton's exceptions. {@link RedisGateway} is the implementation over Lettuce; unit
 * tests of the engine use a fake whose every call the test completes or fails by hand.
 *
 * <p>Futures returned here complete on a thread of the transport (Lettuce's event loop): code attached to them must
 * not block, and must hand anything that reaches user code to the runtime's callback executor. Script replies come
 * in Redis's raw shapes ({@code Long}, {@code List<Long>}, {@code List<Object>}); each script family decodes them in
 * one typed class of its own.
 */
public interface Transport extends AutoCloseable {
    /**
     * Runs a script with its keys and arguments; the script says how its reply is read ({@link Script#integer},
     * {@link Script#list}), so no client type reaches the callers.
     *
     * @return the raw reply, or a failure already translated ({@link #translate})
     */
    <T> CompletableFuture<T> run(Script script, String[] keys, String... args);

    /** Runs a script call built by its family's typed call; see {@link #run(Script, String[], String...)}. */
    default <T> CompletableFuture<T> run(ScriptCall call) {
        return run(call.script(), call.keys(), call.args());
    }

    /**
     * Runs a script and then {@code WAIT replicas timeout} right behind it on a connection of its own, so that the
     * count of acknowledging replicas covers this script's writes and no other command waits behind the
     * {@code WAIT} (see {@link AcknowledgedWrites}).
     *
     * @return the script's raw reply with the count, or a failure already translated
     * @throws UnsupportedOperationException on a transport that cannot (a Redis Cluster)
     */
    <T> CompletableFuture<AcknowledgedWrites.Reply<T>> runAcknowledged(Script script, String[] keys, String[] args,
            int replicas,
                                                                     Duration timeout);

    /** {@code EXISTS}: whether the key is there. */
    CompletableFuture<Boolean> exists(String key);

    /**
     * A walk over the keys matching a glob pattern with {@code SCAN}, about {@code count} keys examined per call; see
     * {@link KeyScan}.
     *
     * @param match a {@code SCAN ... MATCH} pattern
     * @param count the {@code COUNT} hint of each call
     * @return the walk, not started yet
     */
    KeyScan scan(String match, int count);

    /** A {@code PING}: whether Redis answers at all. */
    CompletableFuture<String> ping();

    /**
     * Pub/sub for one listener: the returned subscriptions deliver every message of a subscribed channel, and every
     * subscription the server dropped, to {@code listener}, on a thread of the transport.
     */
    Subscriptions subscriptions(Subscriptions.Listener listener);

    /**
     * Waits for a future of this transport in a blocking call, bounded by the command timeout (plus a margin), and
     * keeps an interrupt for the caller (a thread whose interrupt flag is set must still be able to unlock).
     */
    <T> T await(CompletionStage<T> stage);

    /** {@link #await(CompletionStage)} with a shorter bound of its own. */
    <T> T await(CompletionStage<T> stage, Duration timeout);

    /** The future, failing with {@code BatonUnavailableException} if it is not complete within {@code timeout}. */
    <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout);

    /** Maps any failure of a Redis call to the exception Baton's callers see. */
    RuntimeException translate(Throwable failure);

    /** How long one command may take before it fails. */
    Duration commandTimeout();

    /** host:port (or the cluster's seeds), never with credentials: for messages and logs. */
    String endpoint();

    /** Whether scripts must keep to one hash slot each (a Redis Cluster). */
    boolean isCluster();

    /**
     * Whether lock releases travel over sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}): on a Cluster of
     * Redis 7 or later. Scripts that publish and the subscriptions must agree on it.
     */
    boolean shardedPubSub();

    /** Closes every connection. */
    @Override
    void close();
}
