package dev.baton.internal.transport;

import java.util.concurrent.CompletableFuture;

/**
 * Subscriptions to pub/sub channels on one connection, which {@link Transport#subscriptions} opens when first used;
 * messages go to the listener given there. Callers order the commands of one channel themselves (each after the
 * previous one completed).
 */
public interface Subscriptions {
    /** {@code SUBSCRIBE}: completes once Redis confirmed it, so a message published after that is heard. */
    CompletableFuture<Void> subscribe(String channel);

    /** {@code UNSUBSCRIBE}: completes once Redis confirmed it. */
    CompletableFuture<Void> unsubscribe(String channel);
}
