package dev.baton.internal.transport;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * {@link Subscriptions} on one Lettuce pub/sub connection of a {@link RedisGateway}, opened at the first subscribe
 * (and opened again at the next one if opening failed). Lettuce re-subscribes its channels after a reconnect.
 */
final class LettuceSubscriptions implements Subscriptions {
    private final RedisGateway gateway;
    private final BiConsumer<String, String> onMessage;
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection; // guarded by this

    LettuceSubscriptions(RedisGateway gateway, BiConsumer<String, String> onMessage) {
        this.gateway = gateway;
        this.onMessage = onMessage;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return connection().thenCompose(conn -> conn.async().subscribe(channel).toCompletableFuture())
                .thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return connection().thenCompose(conn -> conn.async().unsubscribe(channel).toCompletableFuture())
                .thenApply(v -> null);
    }

    private synchronized CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
        if (connection == null || connection.isCompletedExceptionally()) {
            connection = gateway.connectPubSub().thenApply(conn -> {
                conn.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        onMessage.accept(channel, message);
                    }
                });
                return conn;
            });
        }
        return connection;
    }
}
