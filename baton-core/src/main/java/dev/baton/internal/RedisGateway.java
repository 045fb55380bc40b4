package dev.baton.internal;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.BatonUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Baton's only door to Redis: one Lettuce client, one command connection, scripts by SHA with a NOSCRIPT fallback,
 * and the translation of Lettuce failures into Baton's exceptions.
 *
 * <p>Commands are rejected at once while the connection is down (instead of queueing until a timeout), every command
 * times out after {@code commandTimeout}, and Lettuce reconnects in the background with a short capped back-off, so
 * a restarted Redis is used again within about a second.
 */
final class RedisGateway implements AutoCloseable {
    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> commands;
    private final Duration commandTimeout;
    private final String endpoint;

    private RedisGateway(BatonConfig config) {
        this.commandTimeout = config.commandTimeout();
        this.uri = RedisURI.create(config.uri());
        this.uri.setTimeout(commandTimeout);
        this.endpoint = uri.getHost() != null ? uri.getHost() + ":" + uri.getPort() : "sentinel " + uri.getSentinels();
        this.resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .build());
        try {
            this.connection = client.connect(StringCodec.UTF8);
        } catch (RuntimeException e) {
            shutdown();
            if (refusedCredentials(e)) {
                // Not "unavailable": trying again will not help. Redis's reply names no credentials.
                throw new BatonException("Redis at " + endpoint + " refused the credentials in the URI", e);
            }
            throw unavailable("could not be reached", e);
        }
        this.commands = connection.async();
    }

    static RedisGateway connect(BatonConfig config) {
        return new RedisGateway(config);
    }

    /** host:port of the server, never with credentials. */
    String endpoint() {
        return endpoint;
    }

    Duration commandTimeout() {
        return commandTimeout;
    }

    /** Runs a script by SHA; on NOSCRIPT (after a restart or SCRIPT FLUSH) sends the body, which also reloads it. */
    <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> bySha;
        try {
            bySha = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        } catch (RuntimeException e) { // a closed connection may refuse at once instead of failing the future
            return CompletableFuture.failedFuture(translate(e));
        }
        // One stage on the success path; the fallback and the translation only cost on failure.
        return bySha.exceptionallyCompose(e -> unwrap(e) instanceof RedisNoScriptException
                ? commands.<T>eval(script.body(), type, keys, args).toCompletableFuture()
                        .exceptionallyCompose(again -> CompletableFuture.failedFuture(translate(again)))
                : CompletableFuture.failedFuture(translate(e)));
    }

    CompletableFuture<Boolean> exists(String key) {
        return commands.exists(key).toCompletableFuture()
                .handle((n, e) -> {
                    if (e != null) {
                        throw translate(e);
                    }
                    return n > 0;
                });
    }

    /** Opens the (one) pub/sub connection of this Baton; Lettuce re-subscribes its channels after reconnecting. */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture()
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e)));
    }

    /**
     * Waits for a future of this gateway in a blocking call, bounded by the command timeout (plus a margin for
     * the NOSCRIPT fallback), so that no blocking call can hang. The wait ignores interrupts and keeps them for the
     * caller: the command is already on its way, and a thread whose interrupt flag is set must still be able to
     * unlock in its {@code finally} block.
     */
    <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commandTimeout.toMillis() * 2 + 100);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            throw translate(e);
        } catch (TimeoutException e) {
            throw unavailable("did not answer within " + commandTimeout, e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Maps any failure of a Redis call to the exception Baton's callers see. */
    RuntimeException translate(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof BatonException b) {
            return b;
        }
        if (e instanceof RedisCommandTimeoutException) {
            return unavailable("did not answer within " + commandTimeout, e);
        }
        if (e instanceof RedisLoadingException || e instanceof RedisBusyException
                || e instanceof RedisReadOnlyException) {
            return unavailable("cannot serve Baton right now (" + e.getMessage() + ")", e);
        }
        if (refusedCredentials(e)) {
            return new BatonException("Redis at " + endpoint + " refused the credentials in the URI", e);
        }
        if (e instanceof RedisCommandExecutionException) {
            return new BatonException("Redis at " + endpoint + " rejected a command: " + e.getMessage(), e);
        }
        if (e instanceof RedisException || e instanceof IOException) {
            return unavailable("could not be reached", e);
        }
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new BatonException("unexpected failure talking to Redis at " + endpoint, e);
    }

    private BatonUnavailableException unavailable(String what, Throwable cause) {
        return new BatonUnavailableException("Redis at " + endpoint + " " + what, cause);
    }

    private static boolean refusedCredentials(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && (message.contains("WRONGPASS") || message.contains("NOAUTH")
                    || message.contains("invalid password"))) {
                return true;
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    @Override
    public void close() {
        shutdown(); // closes the command and pub/sub connections with the client
    }

    private void shutdown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
