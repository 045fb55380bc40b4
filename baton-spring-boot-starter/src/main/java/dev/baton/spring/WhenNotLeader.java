package dev.baton.spring;

/** What a {@link LeaderOnly} method does when this instance does not lead its election. */
public enum WhenNotLeader {
    /**
     * Do not run the method; return {@code null}, an empty {@code Optional}, collection, map or stream, or a
     * primitive's zero, as fits its return type (the default). What a scheduled job run by every instance of a fleet
     * wants: only the leader's run does the work.
     */
    SKIP,
    /** Throw a {@link NotLeaderException} naming the election. */
    THROW
}
