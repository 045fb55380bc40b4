package dev.baton.internal.engine;

import dev.baton.internal.runtime.Require;

import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * How a caller of a facade waits for an {@link AcquireAttempt} that ends in a {@link Lease}: blocking, where an
 * interrupt abandons the attempt and undoes an acquisition that was in flight, or through a future, whose
 * cancellation abandons the attempt. For facades that hand out leases only (the semaphore).
 */
public final class LeaseWait {
    /** Waits longer than this are treated as "forever" (they would overflow the deadline arithmetic on the ticker). */
    private static final long FOREVER_SECONDS = 100L * 365 * 24 * 3600;

    private final LockEngine engine;

    public LeaseWait(LockEngine engine) {
        this.engine = engine;
    }

    /** A caller's wait as the engine takes it: nanoseconds, {@link Long#MAX_VALUE} for "forever". */
    public static long waitNanos(Duration wait) {
        Require.notNegative(wait, "wait");
        return wait.getSeconds() >= FOREVER_SECONDS ? Long.MAX_VALUE : wait.toNanos();
    }

    /**
     * Waits for an attempt; on interrupt abandons it and waits (bounded) until an acquisition that was in flight has
     * been undone, so the caller leaves nothing behind.
     *
     * @return the lease, or null if the wait ran out
     */
    public Lease await(AcquireAttempt attempt) throws InterruptedException {
        try {
            Hold hold = attempt.result.get();
            return hold == null ? null : new RedisLease(engine, hold);
        } catch (InterruptedException e) {
            try {
                attempt.cancel().get(engine.gateway().commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                // best effort: an orphaned acquisition still expires with its lease
            }
            if (attempt.result.isDone() && !attempt.result.isCompletedExceptionally()
                    && attempt.result.getNow(null) != null) {
                // Granted just before the interrupt won: the caller gets the interrupt, so nothing may stay held.
                new RedisLease(engine, attempt.result.getNow(null)).close();
            }
            throw e;
        } catch (ExecutionException e) {
            throw engine.translate(e.getCause());
        }
    }

    /**
     * The attempt as a future lease, completed on the callback executor; cancelling the future abandons the attempt,
     * and a lease granted after the caller cancelled is released again.
     */
    public CompletableFuture<Lease> future(AcquireAttempt attempt, Supplier<LockTimeoutException> timeout) {
        CompletableFuture<Lease> lease = new CompletableFuture<>();
        attempt.result.whenComplete((hold, error) -> {
            if (error != null) {
                Throwable failure = error instanceof CancellationException ? error : engine.translate(error);
                engine.completeForUser(() -> lease.completeExceptionally(failure));
            } else if (hold == null) {
                engine.completeForUser(() -> lease.completeExceptionally(timeout.get()));
            } else {
                Lease granted = new RedisLease(engine, hold);
                engine.completeForUser(() -> {
                    if (!lease.complete(granted)) {
                        granted.close(); // the caller cancelled meanwhile
                    }
                });
            }
        });
        lease.whenComplete((l, e) -> {
            if (lease.isCancelled()) {
                attempt.cancel();
            }
        });
        return lease;
    }
}
