package dev.baton.internal.transport;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One walk over the key space with {@code SCAN} (never {@code KEYS}, which blocks Redis for the whole key space): each
 * {@link #next()} is one {@code SCAN} call that examines about {@code count} keys, so Redis answers other clients
 * between calls however many keys it holds. On a Cluster the walk covers every master, one after the other; over
 * Redlock masters, every master. SCAN's guarantee holds: a key present for the whole walk is returned at least once
 * (maybe more than once); one created or deleted meanwhile may or may not be. Not thread-safe: one caller drives it.
 */
public interface KeyScan {

    /**
     * The next page: one {@code SCAN} call.
     *
     * @return the keys of this page that match (possibly none), or a failure translated by the transport
     * @throws IllegalStateException if the walk is {@link #finished()}
     */
    CompletableFuture<List<String>> next();

    /**
     * Whether the walk has covered the whole key space.
     *
     * @return true once the last page was returned
     */
    boolean finished();

    /**
     * How many {@code SCAN} calls the walk has made.
     *
     * @return the calls so far
     */
    long calls();
}
