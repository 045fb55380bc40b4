package dev.baton.internal.transport;

import java.util.concurrent.CompletableFuture;

/**
 * Subscriptions to pub/sub channels on one connection, which {@link Transport#subscriptions} opens when first used;
 * messages go to the listener given there. Callers order the commands of one channel themselves (each after the
 * previous one completed).
 */
public interface Subscriptions {
    /** Where a transport's pub/sub events go; called on a thread of the transport, so it must not block. */
    interface Listener {
        /** A message on a subscribed channel. */
        void message(String channel, String message);

        /**
         * The server dropped a subscription this side did not give up: on a Cluster, a sharded channel whose slot
         * moved to another node. The channel must be subscribed again to be heard.
         */
        default void dropped(String channel) {
        }

        /**
         * The subscription connection is back after it was lost. Lettuce subscribes its channels again, but a message
         * published while it was away is gone, so whoever waits for one should look again.
         */
        default void reconnected() {
        }
    }

    /**
     * {@code SUBSCRIBE} ({@code SSUBSCRIBE} where the transport uses sharded pub/sub): completes once Redis confirmed
     * it, so a message published after that is heard.
     */
    CompletableFuture<Void> subscribe(String channel);

    /** {@code UNSUBSCRIBE} ({@code SUNSUBSCRIBE} where sharded): completes once Redis confirmed it. */
    CompletableFuture<Void> unsubscribe(String channel);
}
