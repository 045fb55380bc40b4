package dev.baton.internal.multi;

import dev.baton.Lease;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * A {@link Lease} on a multi-lock: one hold of the plain lock per name, all owned by this handle, so any thread may
 * release them. Valid while every hold is; {@link #lost()} completes as soon as one of them is lost.
 */
final class MultiLease implements Lease {
    private final LockEngine engine;
    private final String name;
    /** In canonical order; released in reverse. */
    private final List<Hold> holds;
    private final AtomicBoolean releasing = new AtomicBoolean();
    private final CompletableFuture<Void> lost = new CompletableFuture<>();

    MultiLease(LockEngine engine, String name, List<Hold> holds) {
        this.engine = engine;
        this.name = name;
        this.holds = holds;
        // Each hold's loss is completed on the engine's callback executor: so is this one, through it.
        holds.forEach(h -> h.lost.thenRun(() -> lost.complete(null)));
    }

    /** The names, joined by commas. */
    @Override
    public String lockName() {
        return name;
    }

    /** The highest fencing token among the locks (see {@link RedisMultiLock#fencingToken()}). */
    @Override
    public long fencingToken() {
        long max = 0;
        for (Hold h : holds) {
            max = Math.max(max, h.token);
        }
        return max;
    }

    @Override
    public boolean isValid() {
        return holds.stream().allMatch(Hold::isHeld);
    }

    @Override
    public CompletableFuture<Void> lost() {
        return lost.copy(); // a copy, so a caller completing it cannot fake a loss
    }

    /**
     * Releases every lock, in reverse canonical order; a lock that cannot be released (lost, or Redis failed) does not
     * keep the others from being released.
     *
     * @throws IllegalMonitorStateException if this lease was released before, or one of its locks was lost
     */
    @Override
    public void release() {
        end(h -> engine.release(h) >= 0);
    }

    /**
     * Leaves every lock to expire {@code delay} from now, in reverse canonical order; a lock that cannot be left so
     * (lost, or Redis failed) does not keep the others from it.
     */
    @Override
    public void releaseAfter(Duration delay) {
        long millis = LockEngine.keepMillis(delay);
        if (millis == 0) {
            release();
        } else {
            end(h -> engine.keep(h, millis));
        }
    }

    /** Ends every hold once, with {@code ending}, which answers false if Redis no longer had the hold. */
    private void end(Predicate<Hold> ending) {
        engine.checkOpen();
        if (!releasing.compareAndSet(false, true)) {
            throw new IllegalMonitorStateException("lease of multi-lock '" + name + "' was already released");
        }
        RedisMultiLock.releaseInReverse(holds.size(), i -> {
            Hold h = holds.get(i);
            if (h.state() == Hold.State.LOST) {
                engine.releaseOrphan(h.driver, h.keys, h.owner, h.token);
                throw lostException(h);
            }
            if (!ending.test(h)) {
                throw lostException(h);
            }
        });
    }

    @Override
    public void close() {
        if (!releasing.get() && !engine.isClosed() && holds.stream().anyMatch(Hold::isHeld)) {
            try {
                release();
            } catch (IllegalMonitorStateException alreadyEnded) {
                // quiet by contract: close() after the lease ended is not an error
            }
        }
    }

    private IllegalMonitorStateException lostException(Hold h) {
        return new IllegalMonitorStateException("lease of multi-lock '" + name + "': lock '" + h.keys.name()
                + "' was lost while held: " + h.lostReason());
    }

    @Override
    public String toString() {
        return "Lease{multi-lock=" + name + ", token=" + fencingToken() + ", valid=" + isValid() + "}";
    }
}
