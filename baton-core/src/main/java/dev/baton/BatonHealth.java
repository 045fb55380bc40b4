package dev.baton;

import java.time.Duration;
import java.util.Optional;

/**
 * The result of {@link Baton#health()}: whether Redis answered one of Baton's scripts within the command timeout.
 * Carries no credentials: the endpoint is host and port only, and the problem is Baton's own exception message, which
 * never quotes a secret. Immutable, so thread-safe.
 *
 * @param status   what the check found
 * @param endpoint where Baton connects ({@code host:port}, or the cluster's seeds), without credentials
 * @param topology {@code standalone}, {@code sentinel}, {@code cluster} or {@code redlock}
 * @param latency  how long the check's round trip took; zero when it did not complete
 * @param problem  why the check failed, empty when {@link #isUp()}
 */
public record BatonHealth(Status status, String endpoint, String topology, Duration latency,
                          Optional<String> problem) {

    /** What a health check found. */
    public enum Status {
        /** Redis answered and ran Baton's script. */
        UP,
        /** Redis did not answer within the command timeout, or the connection is down. */
        UNREACHABLE,
        /** Redis answered but refused: credentials, an ACL without the scripting commands, a read-only replica... */
        REFUSED,
        /** The {@code Baton} was closed. */
        CLOSED
    }

    /**
     * A successful check.
     *
     * @param endpoint where Baton connects
     * @param topology the kind of deployment
     * @param latency  the round trip
     * @return an {@link Status#UP} result
     */
    public static BatonHealth up(String endpoint, String topology, Duration latency) {
        return new BatonHealth(Status.UP, endpoint, topology, latency, Optional.empty());
    }

    /**
     * A failed check.
     *
     * @param status   why it failed, not {@link Status#UP}
     * @param endpoint where Baton connects
     * @param topology the kind of deployment
     * @param problem  the failure's message
     * @return the result
     * @throws IllegalArgumentException if {@code status} is {@link Status#UP}
     */
    public static BatonHealth down(Status status, String endpoint, String topology, String problem) {
        if (status == Status.UP) {
            throw new IllegalArgumentException("status must be a failure, not UP");
        }
        return new BatonHealth(status, endpoint, topology, Duration.ZERO, Optional.ofNullable(problem));
    }

    /**
     * Whether the check passed.
     *
     * @return true if {@link #status()} is {@link Status#UP}
     */
    public boolean isUp() {
        return status == Status.UP;
    }
}
