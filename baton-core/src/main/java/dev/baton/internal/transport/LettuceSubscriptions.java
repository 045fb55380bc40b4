package dev.baton.internal.transport;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;

/**
 * {@link Subscriptions} on one Lettuce pub/sub connection of a {@link RedisGateway}, opened at the first subscribe
 * (and opened again at the next one if opening failed). Lettuce re-subscribes its channels after a reconnect.
 */
final class LettuceSubscriptions implements Subscriptions {
    private final RedisGateway gateway;
    private final Subscriptions.Listener listener;
    /** SSUBSCRIBE rather than SUBSCRIBE: see {@link RedisGateway#shardedPubSub()}. */
    private final boolean sharded;
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection; // guarded by this

    LettuceSubscriptions(RedisGateway gateway, Subscriptions.Listener listener) {
        this.gateway = gateway;
        this.listener = listener;
        this.sharded = gateway.shardedPubSub();
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return connection().thenCompose(conn -> (sharded ? conn.async().ssubscribe(channel)
                : conn.async().subscribe(channel)).toCompletableFuture()).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return connection().thenCompose(conn -> (sharded ? conn.async().sunsubscribe(channel)
                : conn.async().unsubscribe(channel)).toCompletableFuture()).thenApply(v -> null);
    }

    private synchronized CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
        if (connection == null || connection.isCompletedExceptionally()) {
            connection = gateway.connectPubSub().thenApply(conn -> {
                conn.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        listener.message(channel, message);
                    }

                    @Override
                    public void smessage(String channel, String message) {
                        listener.message(channel, message);
                    }

                    @Override
                    public void sunsubscribed(String channel, long count) {
                        // Also the reply to our own SUNSUBSCRIBE; the listener tells the two apart.
                        listener.dropped(channel);
                    }
                });
                return conn;
            });
        }
        return connection;
    }
}
