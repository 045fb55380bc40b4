package dev.baton;

/**
 * One term of a leader: a {@link Lease} of the election's lock, renewed by the watchdog, whose
 * {@link #lockName()} is the election's name and whose fencing token is the {@linkplain #epoch() epoch}.
 *
 * <p>Thread-safe. {@link #release()} and {@link #close()} resign, like {@link #resign()}.
 */
public interface Leadership extends Lease {

    /**
     * The epoch of this leadership: its fencing token, strictly greater than the epoch of every earlier leadership of
     * the election (as long as Redis keeps the election's counter; see {@code docs/fencing-tokens.md}). Hand it to
     * every resource the leader writes to, which then refuses writes carrying a smaller epoch than one it has seen.
     *
     * @return the epoch, the same as {@link #fencingToken()}
     */
    long epoch();

    /**
     * Ends this leadership (reason {@link RevocationReason#RESIGNED}) and wakes the waiting candidates, one of which
     * is elected at once; the candidacy stays in the race and may be elected again later. Same as
     * {@link #release()}.
     *
     * @throws IllegalMonitorStateException if already resigned, or lost (the message says which)
     * @throws BatonUnavailableException    if Redis is unreachable within the command timeout; the leadership counts
     *                                      as resigned all the same and expires in Redis with its lease
     * @throws IllegalStateException        if the Baton is closed
     */
    void resign();
}
