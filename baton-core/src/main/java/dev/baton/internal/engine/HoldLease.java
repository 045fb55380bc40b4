package dev.baton.internal.engine;

import dev.baton.Lease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/** A {@link Lease}: a hold owned by this handle rather than by a thread, so any thread may release it. */
public final class HoldLease implements Lease {
    private final LockEngine engine;
    private final Hold hold;
    private final AtomicBoolean releasing = new AtomicBoolean();

    public HoldLease(LockEngine engine, Hold hold) {
        this.engine = engine;
        this.hold = hold;
    }

    @Override
    public String lockName() {
        return hold.keys.name();
    }

    @Override
    public long fencingToken() {
        return hold.token;
    }

    @Override
    public boolean isValid() {
        return engine.checkExpiry(hold);
    }

    @Override
    public CompletableFuture<Void> lost() {
        return hold.lost.copy(); // a copy, so a caller completing it cannot fake a loss
    }

    @Override
    public void release() {
        end(() -> engine.release(hold) >= 0);
    }

    @Override
    public void releaseAfter(Duration delay) {
        long millis = LockEngine.keepMillis(delay);
        if (millis == 0) {
            release();
        } else {
            end(() -> engine.keep(hold, millis));
        }
    }

    /**
     * Ends the lease once: {@code ending} releases the hold, or leaves it to expire, and answers false if Redis no
     * longer had it. A lease already lost here is released as an orphan instead (the lock may still be ours in Redis).
     */
    private void end(BooleanSupplier ending) {
        engine.checkOpen();
        if (!releasing.compareAndSet(false, true)) {
            throw new IllegalMonitorStateException("lease of lock '" + lockName() + "' was already released");
        }
        if (hold.state() == Hold.State.LOST) {
            engine.releaseOrphan(hold.driver, hold.keys, hold.owner, hold.token);
            throw lostException();
        }
        boolean held;
        try {
            held = ending.getAsBoolean();
        } catch (UnsupportedOperationException refused) {
            releasing.set(false); // nothing changed: the lease is still the caller's to end
            throw refused;
        }
        if (!held) {
            throw lostException();
        }
    }

    @Override
    public void close() {
        if (hold.isHeld() && !releasing.get() && !engine.isClosed()) {
            try {
                release();
            } catch (IllegalMonitorStateException alreadyEnded) {
                // quiet by contract: close() after the lease ended is not an error
            }
        }
    }

    private IllegalMonitorStateException lostException() {
        return new IllegalMonitorStateException(
                "lease of lock '" + lockName() + "' was lost while held: " + hold.lostReason());
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lockName() + ", token=" + hold.token + ", state=" + hold.state() + "}";
    }
}
