package dev.baton;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of one lock that differ from its {@link Baton}'s defaults: {@code baton.lock("orders:42",
 * LockOptions.replicaAcknowledged(1, Duration.ofMillis(200)))}. Immutable, so thread-safe; the {@code with...}
 * methods return a new instance. Lock objects of one name with different options still share the lock in Redis:
 * options say how <em>this</em> object acquires it, not what the lock is.
 *
 * <h2>Replica-acknowledged acquisition</h2>
 *
 * With {@link #replicaAcknowledged(int, Duration)} (or the Baton-wide {@link BatonConfig.Builder#replicaAcknowledged}),
 * an acquisition counts only once Redis {@code WAIT} has confirmed that at least that many replicas received it.
 * Baton sends the acquire script and the {@code WAIT} together (pipelined) on a connection of their own, so that the
 * {@code WAIT} covers exactly that write and never holds up the Baton's other commands. If fewer replicas answer
 * within the timeout, the acquisition is undone (released by owner and fencing token, so only that hold goes) and the
 * caller gets a {@link ReplicaAcknowledgementException}; {@code tryLock} methods throw it too rather than return
 * {@code false} (a durability failure is not contention).
 *
 * <p>What it guarantees: when an acquire method returns, the hold (and its fencing token) is on the master and on at
 * least that many replicas. If the master then fails and Sentinel promotes one of those replicas, the lock is still
 * held there, so no second client can acquire it. Every acquisition is acknowledged, also a re-entry: a lost count
 * would let the inner {@code unlock()} release the outer hold on a promoted replica.
 *
 * <p>What it does not guarantee:
 * <ul>
 *   <li>With fewer required acknowledgements than replicas, Sentinel may promote a replica that did not get the
 *       write (it prefers the most up-to-date one, but a replica's priority, or one being unreachable, can decide
 *       otherwise), and the lock is then lost as without this mode. Only requiring every replica closes that, at the
 *       price of failing acquisitions whenever one replica is slow or down.</li>
 *   <li>{@code WAIT} does not make Redis strongly consistent: the write is not rolled back anywhere when too few
 *       replicas answer, which is why Baton undoes it itself; and if the master fails between the acquisition and
 *       that undo, a replica may keep the undone hold until its lease runs out (nobody renews it).</li>
 *   <li>Renewals are not acknowledged. The watchdog renews many locks in one batched command on the shared
 *       connection, and waiting for replicas there would stall every other command. If the master fails right after
 *       a renewal that had not reached the promoted replica, the lease there ends up to one renewal interval
 *       ({@code watchdogLease / 3}) earlier than the holder believes.</li>
 *   <li>Releases are not acknowledged: a release lost in a failover leaves a lock held until its lease runs out,
 *       which delays others but never lets two hold it.</li>
 *   <li>It is not available on Redis Cluster ({@link Baton#lock(String, LockOptions)} throws
 *       {@link UnsupportedOperationException}, {@link BatonConfig.Builder#build()} rejects it).</li>
 * </ul>
 *
 * <p>Cost: one {@code WAIT} per acquisition, answered as soon as the replicas have acknowledged (on a local network,
 * about one replication round trip), and a local handoff between threads of one Baton is never used for such a lock
 * (the new holder acquires through Redis, so that its write is acknowledged too). A try that finds the lock held is
 * pipelined with a {@code WAIT} as well, so while replicas lag a waiting caller's tries can take up to the timeout.
 * The dedicated connections (at most 4 per Baton, opened on first use) carry nothing else.
 */
public final class LockOptions {
    private static final LockOptions DEFAULTS = new LockOptions(false, null);

    /** Whether this lock decides on replica acknowledgement itself rather than following the Baton. */
    private final boolean ownAcknowledgement;
    /** This lock's own acknowledgement, when {@link #ownAcknowledgement}; null for none. */
    private final ReplicaAcknowledgement acknowledgement;

    private LockOptions(boolean ownAcknowledgement, ReplicaAcknowledgement acknowledgement) {
        this.ownAcknowledgement = ownAcknowledgement;
        this.acknowledgement = acknowledgement;
    }

    /**
     * Options that change nothing: the lock follows its Baton's settings, as {@link Baton#lock(String)} does.
     *
     * @return the default options
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Options of a replica-acknowledged lock: see the class documentation.
     *
     * @param replicas how many replicas must acknowledge each acquisition, at least 1
     * @param timeout  how long Redis waits for them, at least 1 ms
     * @return the options
     * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} is not at least 1 ms (or
     *                                  more than a day)
     * @throws NullPointerException     if {@code timeout} is null
     */
    public static LockOptions replicaAcknowledged(int replicas, Duration timeout) {
        return DEFAULTS.withReplicaAcknowledgement(replicas, timeout);
    }

    /**
     * Options of a lock whose acquisitions are not acknowledged by replicas, even if its Baton's default
     * ({@link BatonConfig#replicaAcknowledgement()}) says otherwise.
     *
     * @return the options
     */
    public static LockOptions unacknowledged() {
        return DEFAULTS.withoutReplicaAcknowledgement();
    }

    /**
     * These options, with replica-acknowledged acquisition.
     *
     * @param replicas how many replicas must acknowledge each acquisition, at least 1
     * @param timeout  how long Redis waits for them, at least 1 ms
     * @return new options
     * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} is not at least 1 ms (or
     *                                  more than a day)
     * @throws NullPointerException     if {@code timeout} is null
     */
    public LockOptions withReplicaAcknowledgement(int replicas, Duration timeout) {
        return new LockOptions(true, new ReplicaAcknowledgement(replicas, timeout));
    }

    /**
     * These options, without replica acknowledgement whatever the Baton's default.
     *
     * @return new options
     */
    public LockOptions withoutReplicaAcknowledgement() {
        return new LockOptions(true, null);
    }

    /**
     * Whether these options decide on replica acknowledgement (on or off) rather than following the Baton's
     * {@link BatonConfig#replicaAcknowledgement()}.
     *
     * @return true after {@link #replicaAcknowledged} or {@link #unacknowledged} (or their {@code with...} forms)
     */
    public boolean overridesReplicaAcknowledgement() {
        return ownAcknowledgement;
    }

    /**
     * The acknowledgement these options ask for. Empty either because they turn it off or because they follow the
     * Baton's default: {@link #overridesReplicaAcknowledgement()} tells which.
     *
     * @return the acknowledgement these options set, if any
     */
    public Optional<ReplicaAcknowledgement> replicaAcknowledgement() {
        return Optional.ofNullable(acknowledgement);
    }

    /**
     * The acknowledgement a lock with these options uses on a Baton with the given settings.
     *
     * @param config the Baton's settings
     * @return the acknowledgement in force, or empty if acquisitions are not acknowledged
     */
    public Optional<ReplicaAcknowledgement> replicaAcknowledgement(BatonConfig config) {
        Objects.requireNonNull(config, "config");
        return ownAcknowledgement ? replicaAcknowledgement() : config.replicaAcknowledgement();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && ownAcknowledgement == other.ownAcknowledgement
                && Objects.equals(acknowledgement, other.acknowledgement);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ownAcknowledgement, acknowledgement);
    }

    @Override
    public String toString() {
        return "LockOptions{replicaAcknowledgement=" + (!ownAcknowledgement ? "the Baton's"
                : acknowledgement == null ? "none"
                : acknowledgement.replicas() + " replicas within " + acknowledgement.timeout()) + "}";
    }
}
