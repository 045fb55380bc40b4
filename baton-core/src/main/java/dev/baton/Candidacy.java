package dev.baton;

import java.util.Optional;

/**
 * One candidate of a {@link LeaderElection}, campaigning in the background from {@link LeaderElection#join} until
 * {@link #close()}. After a leadership ends (resigned, lost, Redis unreachable) the candidacy stays in the race and may
 * be elected again; after a resignation it first leaves the others one re-check interval to take over.
 *
 * <p>Thread-safe.
 */
public interface Candidacy extends AutoCloseable {

    /**
     * Whether this candidate leads now, as this process believes (no Redis call): true from just before
     * {@link LeadershipListener#elected} is called until its leadership is resigned, lost or its local lease estimate
     * runs out.
     *
     * @return whether this candidate holds a valid leadership
     */
    boolean isLeader();

    /**
     * The current leadership of this candidate (no Redis call).
     *
     * @return the leadership while {@link #isLeader()}, otherwise empty
     */
    Optional<Leadership> leadership();

    /**
     * Withdraws from the election: stops campaigning and, if leading, resigns first, so that another candidate is
     * elected at once and this one's listener gets {@link LeadershipListener#revoked revoked(..., CLOSED)} before this
     * method returns (unless it is called from that listener itself, which then gets it right after). Idempotent and
     * quiet: a Redis outage while resigning leaves the leadership to expire with its lease, and a closed Baton has
     * closed its candidacies already.
     */
    @Override
    void close();
}
