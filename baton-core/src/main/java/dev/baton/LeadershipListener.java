package dev.baton;

/**
 * Told when a {@link Candidacy} wins and loses leadership. Every leadership gets exactly one {@link #elected} and then
 * exactly one {@link #revoked}; the calls of one candidacy come on one Baton thread, in that order, never two at
 * once and never on a Redis client thread. A listener that blocks holds up only its own candidacy's next call; a
 * listener that throws is logged, and the candidacy goes on.
 *
 * <p>{@code revoked} comes no later than the end of the leader's local lease estimate, which ends before Redis can
 * elect anyone else; a leader should stop acting as one when it is called (or check {@link Lease#isValid()}, or
 * better, hand its {@link Leadership#epoch()} to the resource it writes to).
 */
public interface LeadershipListener {

    /**
     * This candidate leads now.
     *
     * @param leadership the new leadership, valid until revoked
     */
    void elected(Leadership leadership);

    /**
     * This candidate's leadership has ended.
     *
     * @param leadership the leadership that ended (its {@link Lease#isValid()} is false now)
     * @param reason     why it ended
     */
    void revoked(Leadership leadership, RevocationReason reason);
}
