package dev.baton.internal.engine;

import dev.baton.LockInfo;
import java.util.concurrent.CompletableFuture;

/**
 * What anyone may ask of a lock, holder or not: whether it is held, who holds it, and (administratively) to delete it.
 * Kept apart from the {@link LockDriver} SPI because the engine never calls it: the facades do, for their callers.
 *
 * <p>Implementations are stateless apart from their settings and are called from any thread.
 */
public interface LockView {

    /** Deletes the lock whoever holds it (administrative); true if it existed. */
    CompletableFuture<Boolean> forceUnlock(LockKeys keys);

    /** Whether anyone holds the lock right now. */
    CompletableFuture<Boolean> isLocked(LockKeys keys);

    /** Who holds the lock, how often, for how much longer, and the last fencing token: one atomic read. */
    CompletableFuture<LockInfo> inspect(LockKeys keys);
}
