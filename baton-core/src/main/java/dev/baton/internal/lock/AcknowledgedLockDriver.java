package dev.baton.internal.lock;

import dev.baton.ReplicaAcknowledgement;
import dev.baton.ReplicaAcknowledgementException;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.ForwardingLockDriver;
import dev.baton.internal.engine.LockEngine;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plain lock with replica acknowledgement ({@code LockOptions.replicaAcknowledgement}): a decorator of
 * {@link LockCalls} whose acquisition is the plain acquire script followed by {@code WAIT} on a connection of its own
 * ({@link LockCalls#acquireAcknowledged}). A grant counts once enough replicas acknowledged it; otherwise it is
 * undone before the attempt fails. Everything else (release, renewal, the abandon of a lost reply) is the plain
 * lock's, and a hold of it is the plain lock's hold of that name.
 *
 * <p>Its tries and its abandons travel on different connections (the abandon is the plain lock's, on the shared
 * command connection), so Redis could run an abandon after its owner's next try, and the abandon would report that
 * try's grant as an orphan to release. So each try first waits until no abandon of its owner on its lock can still
 * run ({@link LockEngine#abandonsSettled}); a try waits only after an attempt of the same owner ended without the
 * lock, and only until Redis answers that attempt's abandon.
 *
 * <p>It queues no waiter locally and hands nothing over locally ({@link #localQueueing()} is false): a local handoff
 * is a write that no {@code WAIT} covers, so an acknowledged waiter always acquires through Redis (a releasing
 * holder publishes, because it knows it has a local waiter).
 */
public final class AcknowledgedLockDriver extends ForwardingLockDriver {
    private static final Logger log = LoggerFactory.getLogger(AcknowledgedLockDriver.class);

    private final LockCalls plain;
    private final ReplicaAcknowledgement ack;
    private final LockEngine engine;

    public AcknowledgedLockDriver(LockCalls plain, ReplicaAcknowledgement ack, LockEngine engine) {
        super(plain);
        this.plain = plain;
        this.ack = ack;
        this.engine = engine;
    }

    @Override
    public boolean localQueueing() {
        return false;
    }

    /**
     * Once no abandon of the owner on this lock can still run (see the class comment): the acquire script and
     * {@code WAIT}, then {@link #confirm}. Fails without sending the script if Redis does not answer such an abandon.
     */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        return engine.abandonsSettled(r).thenCompose(settled -> plain.acquireAcknowledged(r, willWait, ack))
                .thenCompose(reply -> confirm(r, reply));
    }

    /**
     * A grant counts once enough replicas acknowledged it. Otherwise it is undone, precisely (owner and token: a
     * fresh hold is deleted, a re-entry's count goes back), before the attempt fails, so that the caller's exception
     * arrives with nothing left behind. A try that found the lock held passes through: it wrote at most the
     * {@code waiters} mark, which needs no acknowledgement.
     */
    private CompletableFuture<Acquired> confirm(AcquireRequest r, LockCalls.AcknowledgedAcquire reply) {
        Acquired acquired = reply.acquired();
        if (!acquired.granted()) {
            return CompletableFuture.completedFuture(acquired);
        }
        String name = r.keys().name();
        if (reply.waitFailure() == null && reply.acknowledged() >= ack.replicas()) {
            if (log.isDebugEnabled()) {
                log.debug("lock '{}' (fencing token {}, hold count {}): {} replicas acknowledged, {} required",
                        name, acquired.token(), acquired.holdCount(), reply.acknowledged(), ack.replicas());
            }
            return CompletableFuture.completedFuture(acquired);
        }
        if (log.isDebugEnabled() && reply.waitFailure() == null) {
            log.debug("lock '{}' (fencing token {}, hold count {}): {} replicas acknowledged within {}, {} required",
                    name, acquired.token(), acquired.holdCount(), reply.acknowledged(), ack.timeout(), ack.replicas());
        }
        RuntimeException failure = reply.waitFailure() != null ? reply.waitFailure()
                : new ReplicaAcknowledgementException(name, reply.acknowledged(), ack.replicas(), ack.timeout());
        log.warn("undoing the acquisition of lock '{}' (fencing token {}, hold count {}, owner {}): {}", name,
                acquired.token(), acquired.holdCount(), r.owner(), failure.getMessage());
        return plain.release(r.keys(), r.owner(), acquired.token(), engine.hasLocalWaiters(r.keys()))
                .handle((left, e) -> {
                    if (e != null) {
                        RuntimeException undo = engine.translate(e);
                        failure.addSuppressed(undo);
                        log.warn("could not undo the acquisition of lock '{}' (fencing token {}); it expires with its "
                                + "lease: {}", name, acquired.token(), undo.getMessage());
                    }
                    throw new CompletionException(failure);
                });
    }

    /**
     * The plain lock's abandon, on the shared command connection, not on the tries' connection: the next try of the
     * same owner waits for its answer ({@link #acquire}).
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        return plain.abandon(request, mayHoldGrant);
    }
}
