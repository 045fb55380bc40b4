package dev.baton;

/** Why a {@link Leadership} ended, as {@link LeadershipListener#revoked} reports it. New reasons may be added. */
public enum RevocationReason {
    /** The leader resigned ({@link Leadership#resign()} or {@link Lease#release()}); its candidacy campaigns on. */
    RESIGNED,
    /** The candidacy was closed ({@link Candidacy#close()}), or its Baton was. */
    CLOSED,
    /**
     * Redis no longer had the leadership when it was renewed (expired, deleted, lost in a failover), or its lease ran
     * out while this process could not renew it (paused or starved) though Redis answered.
     */
    LOST,
    /** Redis did not answer the renewals before the lease ran out; another candidate may be elected now. */
    UNAVAILABLE
}
