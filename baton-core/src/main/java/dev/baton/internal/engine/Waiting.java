package dev.baton.internal.engine;

import dev.baton.internal.runtime.Require;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How a caller of any facade waits for a {@link Pending} acquisition: blocking (interruptibly or not) or through a
 * future. Written once for every primitive, so that an interrupt or a cancellation racing a grant is handled the same
 * way everywhere: the caller either gets the grant or leaves nothing behind.
 *
 * <p>What a grant that wins the race with an interrupt becomes is the facade's documented choice
 * ({@link OnInterruptedGrant}): a lock keeps it and re-asserts the interrupt, like {@code ReentrantLock}; a semaphore
 * gives the permits back and throws, as its javadoc promises.
 */
public final class Waiting {
    /** Waits longer than this are treated as "forever" (they would overflow the deadline arithmetic on the ticker). */
    private static final long FOREVER_SECONDS = 100L * 365 * 24 * 3600;

    /** What becomes of a grant that completed while the waiting thread was being interrupted. */
    public enum OnInterruptedGrant {
        /** The call returns the grant and the thread's interrupt status is set again. */
        KEEP,
        /** The grant is given back and the call throws {@link InterruptedException}. */
        GIVE_BACK
    }

    private final LockEngine engine;

    Waiting(LockEngine engine) {
        this.engine = engine;
    }

    /** A caller's wait as the engine takes it: nanoseconds, {@link Long#MAX_VALUE} for "forever". */
    public static long waitNanos(Duration wait) {
        Require.notNegative(wait, "wait");
        return wait.getSeconds() >= FOREVER_SECONDS ? Long.MAX_VALUE : wait.toNanos();
    }

    /**
     * Waits for an acquisition that ends by itself (no deadline, or single tries); keeps an interrupt for the caller.
     */
    public <T> T awaitUninterruptibly(Pending<T> pending) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return pending.result().get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw engine.translate(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for an acquisition; on interrupt abandons it and waits (bounded) until what it had in flight has been
     * answered or undone, so the caller leaves nothing behind.
     *
     * @param giveBack releases a grant that won the race with the interrupt, for {@link OnInterruptedGrant#GIVE_BACK}
     * @return the grant, or null if the wait ran out
     */
    public <T> T await(Pending<T> pending, OnInterruptedGrant onInterruptedGrant, Consumer<T> giveBack)
            throws InterruptedException {
        CompletableFuture<T> result = pending.result();
        try {
            return result.get();
        } catch (InterruptedException e) {
            try {
                long boundMillis = engine.gateway().commandTimeout().toMillis() * 2 * pending.undoCommands();
                pending.cancel().get(boundMillis, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                // best effort: an orphaned acquisition still expires with its lease
            }
            T granted = result.isDone() && !result.isCompletedExceptionally() ? result.getNow(null) : null;
            if (granted != null) {
                if (onInterruptedGrant == OnInterruptedGrant.KEEP) {
                    Thread.currentThread().interrupt();
                    return granted;
                }
                giveBack.accept(granted);
            }
            throw e;
        } catch (ExecutionException e) {
            throw engine.translate(e.getCause());
        }
    }

    /**
     * The acquisition as a future, completed on the callback executor; cancelling the future abandons the
     * acquisition, and a grant that arrives after the caller cancelled is given back.
     *
     * @param toLease  what the caller gets for a grant
     * @param giveBack releases a lease the caller cancelled meanwhile
     * @param timeout  the failure of a wait that ran out
     */
    public <T, L> CompletableFuture<L> future(Pending<T> pending, Function<T, L> toLease, Consumer<L> giveBack,
                                              Supplier<? extends RuntimeException> timeout) {
        CompletableFuture<L> lease = new CompletableFuture<>();
        pending.result().whenComplete((grant, error) -> {
            if (error != null) {
                Throwable failure = error instanceof CancellationException ? error : engine.translate(error);
                engine.completeForUser(() -> lease.completeExceptionally(failure));
            } else if (grant == null) {
                engine.completeForUser(() -> lease.completeExceptionally(timeout.get()));
            } else {
                L granted = toLease.apply(grant);
                engine.completeForUser(() -> {
                    if (!lease.complete(granted)) {
                        giveBack.accept(granted); // the caller cancelled meanwhile
                    }
                });
            }
        });
        lease.whenComplete((l, e) -> {
            if (lease.isCancelled()) {
                pending.cancel();
            }
        });
        return lease;
    }
}
