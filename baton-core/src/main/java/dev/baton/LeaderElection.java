package dev.baton;

import java.time.Duration;
import java.util.Optional;

/**
 * An election among any number of candidates, in any number of processes, for one name: at most one leader at a time
 * while Redis keeps its data, and every leadership carries an {@linkplain Leadership#epoch() epoch} (its fencing
 * token), strictly greater than every earlier epoch of the name, so that a resource can refuse a paused former leader.
 * Obtained from {@link Baton#election(String)}; cheap, no Redis call, and safe to share between threads.
 *
 * <p>Leadership is a lease of the election's own lock, renewed by the Baton's watchdog: a leader that crashes is
 * replaced once its lease runs out (plus at most one re-check interval); one that resigns or withdraws is replaced at
 * once, by the candidate its release wakes. Candidates wait for a pub/sub notification, with the Baton's bounded
 * re-check ({@link BatonConfig#recheckInterval()}) as a safety net, never by polling. On Redlock masters
 * ({@link BatonConfig#redlockMasters()}) a leader must hold a majority of them; on a Cluster all keys of one election
 * share a hash slot. See {@code docs/leader-election.md}, including what a Redis failover can do and how the epoch
 * protects a resource then.
 */
public interface LeaderElection {

    /**
     * The election's name, as given to {@link Baton#election(String)}.
     *
     * @return the name
     */
    String name();

    /**
     * Enters a candidate that campaigns in the background until its candidacy is closed (or the Baton closes). Each
     * time it wins, {@link LeadershipListener#elected} is called; each leadership ends with exactly one
     * {@link LeadershipListener#revoked}, which says why. Both are called on one Baton thread of this candidacy, in
     * order, never two at once, and never on a Redis client thread. Returns at once; the first try goes out in the
     * background, and a Redis outage only delays the campaign (it tries again every re-check interval).
     *
     * @param listener told of each leadership won and lost
     * @return the candidacy; close it to withdraw
     * @throws NullPointerException  if {@code listener} is null
     * @throws IllegalStateException if the Baton is closed
     */
    Candidacy join(LeadershipListener listener);

    /**
     * Campaigns until this caller leads, or {@code wait} runs out, and then stops campaigning. The leadership
     * returned is the caller's to {@linkplain Leadership#resign() resign}; nobody is told of its loss but through the
     * {@link Lease} itself ({@link Lease#lost()}, {@link Lease#isValid()}), since no listener is involved.
     *
     * @param wait how long to campaign at most; zero for a single try
     * @return the leadership, renewed by the watchdog until resigned or lost
     * @throws LockTimeoutException      if not elected within {@code wait}
     * @throws InterruptedException      if the calling thread is interrupted while waiting (nothing is left held)
     * @throws IllegalArgumentException  if {@code wait} is negative
     * @throws NullPointerException      if {@code wait} is null
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     * @throws IllegalStateException     if the Baton is closed
     */
    Leadership awaitLeadership(Duration wait) throws InterruptedException;

    /**
     * Who leads now, as Redis (on Redlock masters: a majority of them) sees it; anyone may ask, candidate or not. One
     * read-only script call.
     *
     * @return the leader, or empty if nobody leads at the moment (between two leaderships, or never elected)
     * @throws BatonUnavailableException if Redis is unreachable within the command timeout
     * @throws IllegalStateException     if the Baton is closed
     */
    Optional<LeaderInfo> leader();
}
