package dev.baton.internal.election;

import dev.baton.BatonListener;
import dev.baton.Leadership;
import dev.baton.RevocationReason;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.HoldLease;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.runtime.Events;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * One term of a leader: the {@link Lease}-shaped handle of the election's hold ({@link HoldLease} does the releasing),
 * which also tells, exactly once, that the term ended and why: resigned through this handle, closed by its candidacy,
 * or lost (the hold's loss says whether Redis answered). Emits the {@link BatonListener#leaderElected} event when made
 * and {@link BatonListener#leaderRevoked} when it ends.
 *
 * <p>Thread-safe.
 */
final class ElectedLeadership implements Leadership {
    private final Hold hold;
    private final HoldLease lease;
    private final Events events;
    private final long electedAtNanos;
    private final LockEngine engine;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Told once when the term ends, on whichever thread ended it. */
    private final BiConsumer<ElectedLeadership, RevocationReason> onEnd;

    private ElectedLeadership(LockEngine engine, Hold hold, Events events,
                              BiConsumer<ElectedLeadership, RevocationReason> onEnd) {
        this.engine = engine;
        this.hold = hold;
        this.lease = new HoldLease(engine, hold);
        this.events = events;
        this.onEnd = onEnd;
        this.electedAtNanos = engine.nanos();
    }

    /**
     * Starts a term on a hold just granted: emits the event, and from now on reports a loss of the hold to
     * {@code onEnd} (on the Baton's callback executor).
     */
    static ElectedLeadership begin(LockEngine engine, Hold hold, Events events,
                                   BiConsumer<ElectedLeadership, RevocationReason> onEnd) {
        ElectedLeadership leadership = new ElectedLeadership(engine, hold, events, onEnd);
        events.emit(l -> l.leaderElected(new BatonListener.LeaderElected(hold.keys.name(), hold.token,
                engine.instanceId())));
        hold.lost.whenComplete((ignored, error) -> {
            if (hold.loss() == Hold.Loss.STALLED) {
                // A leader that woke from a pause past its lease may still be the owner in Redis, until the lease
                // runs out there too: give it up now, so that the others need not wait for that (owner and token
                // are checked, so this never touches a later leader).
                engine.releaseOrphan(hold.driver, hold.keys, hold.owner, hold.token);
            }
            leadership.end(reasonOf(hold.loss()));
        });
        return leadership;
    }

    private static RevocationReason reasonOf(Hold.Loss loss) {
        if (loss == null) {
            return RevocationReason.LOST;
        }
        return switch (loss) {
            case UNANSWERED -> RevocationReason.UNAVAILABLE;
            case CLOSED -> RevocationReason.CLOSED;
            case GONE, STALLED -> RevocationReason.LOST;
        };
    }

    @Override
    public long epoch() {
        return hold.token;
    }

    @Override
    public void resign() {
        release();
    }

    @Override
    public String lockName() {
        return lease.lockName();
    }

    @Override
    public long fencingToken() {
        return lease.fencingToken();
    }

    @Override
    public boolean isValid() {
        return lease.isValid();
    }

    @Override
    public CompletableFuture<Void> lost() {
        return lease.lost();
    }

    @Override
    public void release() {
        try {
            lease.release();
        } finally {
            endIfReleased(RevocationReason.RESIGNED);
        }
    }

    @Override
    public void releaseAfter(Duration delay) {
        try {
            lease.releaseAfter(delay);
        } finally {
            endIfReleased(RevocationReason.RESIGNED);
        }
    }

    @Override
    public void close() {
        try {
            lease.close();
        } finally {
            endIfReleased(RevocationReason.RESIGNED);
        }
    }

    /**
     * Ends the term for a candidacy that withdraws: resigns, quietly (Redis unreachable: it expires with its lease),
     * and reports {@link RevocationReason#CLOSED}, unless the term had ended already.
     */
    void closeForCandidacy() {
        try {
            lease.close();
        } catch (RuntimeException e) {
            // quiet by contract: the leadership then expires with its lease
        } finally {
            if (hold.state() != Hold.State.LOST) {
                end(RevocationReason.CLOSED);
            }
        }
    }

    private void endIfReleased(RevocationReason reason) {
        if (hold.state() == Hold.State.RELEASED) {
            end(reason);
        }
    }

    private void end(RevocationReason reason) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        Duration led = Duration.ofNanos(engine.nanos() - electedAtNanos);
        events.emit(l -> l.leaderRevoked(new BatonListener.LeaderRevoked(hold.keys.name(), hold.token, reason, led)));
        onEnd.accept(this, reason);
    }

    @Override
    public String toString() {
        return "Leadership{election=" + lockName() + ", epoch=" + hold.token + ", state=" + hold.state() + "}";
    }
}
