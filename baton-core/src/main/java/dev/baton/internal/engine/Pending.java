package dev.baton.internal.engine;

import java.util.concurrent.CompletableFuture;

/**
 * An acquisition in progress, as a facade waits for it: a single lock's {@link AcquireAttempt} or a composite of
 * several (a multi-lock's). {@link Waiting} is the one bridge from it to a blocking call or a future.
 *
 * @param <T> what the acquisition yields: a hold, or the holds of a composite
 */
public interface Pending<T> {

    /**
     * Completes with what was acquired, with null if the wait ran out, or exceptionally if Redis failed, the Baton
     * closed or the acquisition was cancelled; only once nothing the acquisition sent is left behind unaccounted.
     */
    CompletableFuture<T> result();

    /**
     * Abandons the acquisition; completes once whatever it had in flight has been answered (or given up), so that a
     * grant that raced the cancellation is either in {@link #result()} or undone.
     */
    CompletableFuture<Void> cancel();

    /**
     * How many commands undoing this acquisition may take one after another (each bounded by the command timeout),
     * which bounds how long a cancelled caller waits for {@link #cancel()}: one for a single lock.
     */
    default int undoCommands() {
        return 1;
    }
}
