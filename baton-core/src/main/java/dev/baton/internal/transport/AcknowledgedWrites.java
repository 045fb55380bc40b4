package dev.baton.internal.transport;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes that count only once replicas have them: a script followed, on the same connection and without waiting for
 * its reply, by {@code WAIT replicas timeout}. {@code WAIT} blocks the connection it is sent on until the replicas
 * answer or the timeout passes, so it never goes over the Baton's shared command connection: these writes have a
 * small pool of connections of their own ({@value #MAX_CONNECTIONS} at most, opened on first use, kept while they
 * work). A caller beyond that waits for a connection to come back; nobody else does.
 *
 * <p>{@code WAIT} counts the replicas that have acknowledged every write made so far <em>on its connection</em>, so
 * the script and the {@code WAIT} must reach the same server over the same socket. Hence these connections are
 * plain ones to one server (behind Sentinel: the master the sentinels name when the connection is opened), never
 * Lettuce's master-replica connection, which could send the two to different nodes across a failover; and they do
 * not reconnect by themselves, which could replay a command to another server. A connection that fails, times out or
 * finds itself on a replica is closed and replaced by a fresh one on the next call; a script refused as
 * {@code READONLY} (the master was demoted by a failover) is retried once on a fresh connection, which asks the
 * sentinels again. Thread-safe.
 */
public final class AcknowledgedWrites implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AcknowledgedWrites.class);

    /** Most connections used for acknowledged writes at once; more concurrent writes wait for one. */
    static final int MAX_CONNECTIONS = 4;

    /**
     * What came back.
     *
     * @param scriptReply  the script's reply
     * @param acknowledged how many replicas {@code WAIT} counted (0 if it failed)
     * @param waitFailure  why {@code WAIT} got no answer (connection lost, timed out), or null if it answered
     */
    public record Reply<T>(T scriptReply, long acknowledged, RuntimeException waitFailure) {
    }

    private final RedisGateway gateway;
    private final RedisClient client;
    private final RedisURI uri;
    private final Duration commandTimeout;
    private final Deque<StatefulRedisConnection<String, String>> idle = new ArrayDeque<>();
    private final Deque<CompletableFuture<StatefulRedisConnection<String, String>>> queued = new ArrayDeque<>();
    /** Connections open, being opened, or lent out. */
    private int open;
    private boolean closed;

    AcknowledgedWrites(RedisGateway gateway, ClientResources resources, RedisURI uri, ClientOptions options,
                       Duration commandTimeout) {
        this.gateway = gateway;
        this.uri = uri;
        this.commandTimeout = commandTimeout;
        this.client = RedisClient.create(resources, uri);
        // The gateway's options (TLS, socket), but no automatic reconnect (see the class comment) and no timeout set
        // by Lettuce: a WAIT may legitimately take longer than the command timeout, so each call bounds its own.
        client.setOptions(options.mutate().autoReconnect(false).timeoutOptions(TimeoutOptions.create()).build());
    }

    /**
     * Runs the script by SHA (sending its body on NOSCRIPT), followed by {@code WAIT replicas timeout}. The future
     * fails if the script fails (translated like every gateway call); it completes with a {@link Reply} otherwise,
     * whether or not {@code WAIT} answered.
     */
    public <T> CompletableFuture<Reply<T>> run(Script script, String[] keys, String[] args,
                                               int replicas, Duration timeout) {
        return borrow().thenCompose(c -> send(c, script, keys, args, replicas, timeout, true, true));
    }

    private <T> CompletableFuture<Reply<T>> send(StatefulRedisConnection<String, String> c, Script script,
                                                 String[] keys, String[] args, int replicas,
                                                 Duration timeout, boolean bySha, boolean mayRetry) {
        RedisAsyncCommands<String, String> async = c.async();
        CompletableFuture<T> scriptReply;
        CompletableFuture<Long> waited;
        try {
            // Pipelined: both are written before either reply is read, so the WAIT covers the script's write.
            scriptReply = gateway.within((bySha ? async.<T>evalsha(script.sha(), script.output(), keys, args)
                    : async.<T>eval(script.body(), script.output(), keys, args)).toCompletableFuture(), commandTimeout);
            waited = gateway.within(async.waitForReplication(replicas, timeout.toMillis()).toCompletableFuture(),
                    commandTimeout.plus(timeout));
        } catch (RuntimeException e) { // a closed connection may refuse at once instead of failing the future
            discard(c);
            return CompletableFuture.failedFuture(gateway.translate(e));
        }
        return scriptReply.<CompletableFuture<Reply<T>>>handle((reply, error) -> {
            if (error == null) {
                return waited.<Reply<T>>handle((n, waitError) -> {
                    if (waitError != null) {
                        discard(c);
                        return new Reply<>(reply, 0, gateway.translate(waitError));
                    }
                    giveBack(c);
                    return new Reply<>(reply, n, null);
                });
            }
            if (bySha && causedBy(error, RedisNoScriptException.class)) {
                // Nothing was written; the WAIT behind it answers at once. Send the body, which also loads it.
                return send(c, script, keys, args, replicas, timeout, false, mayRetry);
            }
            discard(c);
            if (mayRetry && (causedBy(error, RedisReadOnlyException.class) || mentions(error, "READONLY"))) {
                log.debug("an acknowledged write found {} demoted to a replica; retrying on a fresh connection",
                        gateway.endpoint());
                return borrow().thenCompose(fresh -> this.<T>send(fresh, script, keys, args, replicas, timeout, bySha,
                        false));
            }
            return CompletableFuture.<Reply<T>>failedFuture(gateway.translate(error));
        }).thenCompose(f -> f);
    }

    private static boolean mentions(Throwable failure, String reply) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(reply)) {
                return true;
            }
        }
        return false;
    }

    /** Whether Redis's refusal of that kind is somewhere in the failure's cause chain (it may be translated). */
    private static boolean causedBy(Throwable failure, Class<? extends Throwable> kind) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (kind.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> borrow() {
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("this Baton is closed"));
            }
            while (!idle.isEmpty()) {
                StatefulRedisConnection<String, String> c = idle.pop();
                if (c.isOpen()) {
                    return CompletableFuture.completedFuture(c);
                }
                open--; // dropped while idle (server gone, failover): replace it
                c.closeAsync();
            }
            if (open >= MAX_CONNECTIONS) {
                CompletableFuture<StatefulRedisConnection<String, String>> turn = new CompletableFuture<>();
                queued.add(turn);
                return turn;
            }
            open++;
        }
        return connect();
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connect() {
        CompletableFuture<StatefulRedisConnection<String, String>> connecting;
        try {
            connecting = client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
        } catch (RuntimeException e) {
            connecting = CompletableFuture.failedFuture(e);
        }
        return connecting.exceptionallyCompose(e -> {
            slotFreed();
            return CompletableFuture.failedFuture(gateway.translate(e));
        });
    }

    /** A connection that answered everything: to the next caller waiting, or to the idle ones. */
    private void giveBack(StatefulRedisConnection<String, String> c) {
        CompletableFuture<StatefulRedisConnection<String, String>> next;
        synchronized (this) {
            if (closed) {
                c.closeAsync();
                return;
            }
            next = queued.poll();
            if (next == null) {
                idle.push(c);
                return;
            }
        }
        next.complete(c); // outside the lock: the caller's stages may run right here
    }

    /** A connection in an unknown state (a failure, a timeout, an answer still pending): closed, never reused. */
    private void discard(StatefulRedisConnection<String, String> c) {
        c.closeAsync();
        slotFreed();
    }

    /** One connection fewer: a caller waiting for one gets a fresh connection instead. */
    private void slotFreed() {
        CompletableFuture<StatefulRedisConnection<String, String>> next;
        synchronized (this) {
            open--;
            next = closed ? null : queued.poll();
            if (next != null) {
                open++;
            }
        }
        if (next != null) {
            CompletableFuture<StatefulRedisConnection<String, String>> turn = next;
            connect().whenComplete((c, e) -> {
                if (e != null) {
                    turn.completeExceptionally(e);
                } else {
                    turn.complete(c);
                }
            });
        }
    }

    /** Closes every connection of this pool; calls waiting for one fail. */
    @Override
    public void close() {
        List<CompletableFuture<StatefulRedisConnection<String, String>>> waiting;
        synchronized (this) {
            closed = true;
            idle.clear();
            waiting = new ArrayList<>(queued);
            queued.clear();
        }
        IllegalStateException closing = new IllegalStateException("this Baton is closed");
        waiting.forEach(w -> w.completeExceptionally(closing));
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2)); // closes every connection it opened, lent or idle
    }
}
