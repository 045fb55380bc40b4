package dev.baton;

import java.time.Instant;
import java.util.Objects;

/**
 * Who leads an election, as {@link LeaderElection#leader()} read it from Redis.
 *
 * @param instance the leader's {@link Baton#instanceId()}
 * @param host     the leader's host name
 * @param pid      the leader's process id
 * @param since    when this leadership began, by the Redis clock (stable while it lasts; read from its epoch, which
 *                 Baton mints from Redis time in microseconds)
 * @param epoch    the leadership's epoch ({@link Leadership#epoch()})
 */
public record LeaderInfo(String instance, String host, long pid, Instant since, long epoch) {

    /**
     * Checks the fields.
     *
     * @param instance the leader's {@link Baton#instanceId()}
     * @param host     the leader's host name
     * @param pid      the leader's process id
     * @param since    when this leadership began, by the Redis clock
     * @param epoch    the leadership's epoch
     * @throws NullPointerException if {@code instance}, {@code host} or {@code since} is null
     */
    public LeaderInfo {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(since, "since");
    }
}
