package dev.baton.internal.transport;

import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import io.lettuce.core.resource.ClientResources;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of a Redlock's masters: a {@link RedisGateway} to it, which may not exist yet. A Redlock must start and work
 * while a minority of its masters is down, but Lettuce only reconnects a connection that was once established; so a
 * master that could not be reached when the Baton started is connected in the background, once a second, until it
 * answers. Until then every call to it fails at once with {@link BatonUnavailableException}, which the quorum counts
 * as a master that did not answer.
 *
 * <p>Thread-safe.
 */
final class IndependentMaster {
    private static final Logger log = LoggerFactory.getLogger(IndependentMaster.class);
    private static final long RETRY_MILLIS = 1_000;

    private final BatonConfig config;
    private final String uri;
    private final String endpoint;
    private final ClientResources resources;
    private volatile Transport gateway;
    private volatile boolean closed;
    /** Why the last attempt to connect failed, while not connected; for the start's error message. */
    private volatile String failure;
    /** Told once a master that was down at start is connected (so that subscriptions can follow it there). */
    private volatile Consumer<Transport> onLateConnect = g -> { };

    private IndependentMaster(BatonConfig config, String uri, ClientResources resources) {
        this.config = config;
        this.uri = uri;
        this.endpoint = RedisAddress.parse(uri).endpoint();
        this.resources = resources;
    }

    /** A master already connected through {@code connected} (never reconnected here): for unit tests on fakes. */
    IndependentMaster(String endpoint, Transport connected) {
        this.config = null;
        this.uri = null;
        this.endpoint = endpoint;
        this.resources = null;
        this.gateway = connected;
    }

    /**
     * Connects to a master; if it cannot be reached now, keeps trying in the background.
     *
     * @return the master, connected or not
     */
    static IndependentMaster connect(BatonConfig config, String uri, ClientResources resources) {
        IndependentMaster master = new IndependentMaster(config, uri, resources);
        try {
            master.gateway = RedisGateway.connectNode(config, uri, resources);
        } catch (RuntimeException e) {
            master.failure = e.getMessage();
            log.warn("Redlock master {} could not be reached ({}); connecting in the background, and counting it as "
                    + "not answering until then", master.endpoint, e.getMessage());
            master.retryLater();
        }
        return master;
    }

    private void retryLater() {
        CompletableFuture.delayedExecutor(RETRY_MILLIS, TimeUnit.MILLISECONDS).execute(() -> {
            if (closed) {
                return;
            }
            RedisGateway connected;
            try {
                connected = RedisGateway.connectNode(config, uri, resources);
            } catch (RuntimeException e) {
                retryLater();
                return;
            }
            synchronized (this) {
                if (closed) {
                    connected.close();
                    return;
                }
                gateway = connected;
            }
            log.info("Redlock master {} is connected", endpoint);
            onLateConnect.accept(connected);
        });
    }

    /** host:port, never with credentials. */
    String endpoint() {
        return endpoint;
    }

    /** Why connecting failed, or null once connected. */
    String failure() {
        return gateway == null ? failure : null;
    }

    /** Whether the connection exists (it may still be broken for a while). */
    boolean connected() {
        return gateway != null;
    }

    /** Calls this master, or fails at once if it was never reached. */
    <T> CompletableFuture<T> call(Function<Transport, CompletableFuture<T>> call) {
        Transport g = gateway;
        if (g == null) {
            return CompletableFuture.failedFuture(new BatonUnavailableException("Redis at " + endpoint
                    + " has not been reachable since this Baton started", null));
        }
        try {
            return call.apply(g);
        } catch (RuntimeException e) { // a closed connection may refuse at once instead of failing the future
            return CompletableFuture.failedFuture(g.translate(e));
        }
    }

    /** The gateway, or null if this master was never reached. */
    Transport gateway() {
        return gateway;
    }

    /** Where a master connected late is announced. */
    void onLateConnect(Consumer<Transport> listener) {
        this.onLateConnect = listener;
    }

    synchronized void close() {
        closed = true;
        Transport g = gateway;
        if (g != null) {
            g.close();
        }
    }
}
