package dev.baton;

import java.time.Duration;

/**
 * A replica-acknowledged acquisition (see {@link LockOptions}) was granted by the master, but fewer replicas than
 * required confirmed it within the timeout, so it did not count: Baton undid it (released exactly that hold, by owner
 * and fencing token) before throwing. The caller does not hold the lock, and nothing is left behind that another
 * client would have to wait for, unless the undo itself could not reach Redis (then the hold expires with its lease;
 * that failure is attached as a suppressed exception).
 *
 * <p>Thrown by every acquire method of a replica-acknowledged lock, including {@code tryLock()} and the timed
 * {@code tryLock}/{@code tryAcquire}, which do not turn it into {@code false}: it reports missing durability, not
 * contention, and waiting longer for the lock would not cure it. {@link DistributedLock#acquireAsync} completes
 * exceptionally with it. A re-entry that is not acknowledged is undone the same way (the hold count goes back), and
 * the outer hold stays held.
 */
public class ReplicaAcknowledgementException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** The lock whose acquisition was undone; see {@link #lockName()}. */
    private final String lockName;
    /** How many replicas acknowledged the acquisition; see {@link #acknowledged()}. */
    private final long acknowledged;
    /** How many replicas had to acknowledge it; see {@link #required()}. */
    private final int required;
    /** How long Redis waited for the acknowledgements; see {@link #timeout()}. */
    private final Duration timeout;

    /**
     * Creates the exception; the message says which lock, how many replicas acknowledged of how many required, and
     * within what timeout.
     *
     * @param lockName     the lock whose acquisition was undone
     * @param acknowledged how many replicas acknowledged it
     * @param required     how many were required
     * @param timeout      how long Redis waited for them
     */
    public ReplicaAcknowledgementException(String lockName, long acknowledged, int required, Duration timeout) {
        super("lock '" + lockName + "' was acquired on the master, but only " + acknowledged + " of the " + required
                + " required replicas acknowledged it within " + timeout + "; the acquisition was undone, the caller "
                + "does not hold the lock");
        this.lockName = lockName;
        this.acknowledged = acknowledged;
        this.required = required;
        this.timeout = timeout;
    }

    /**
     * The lock whose acquisition was undone.
     *
     * @return the lock name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * How many replicas acknowledged the acquisition (the reply of {@code WAIT}).
     *
     * @return the number of acknowledging replicas, below {@link #required()}
     */
    public long acknowledged() {
        return acknowledged;
    }

    /**
     * How many replicas had to acknowledge it.
     *
     * @return the required number of replicas
     */
    public int required() {
        return required;
    }

    /**
     * How long Redis waited for the acknowledgements.
     *
     * @return the timeout given to {@code WAIT}
     */
    public Duration timeout() {
        return timeout;
    }
}
