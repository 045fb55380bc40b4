package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * How many replicas must confirm an acquisition, and how long to wait for them: the setting of replica-acknowledged
 * locks ({@link BatonConfig.Builder#replicaAcknowledged(int, Duration)}, {@link LockOptions#replicaAcknowledged(int,
 * Duration)}). After the acquire script has run on the master, Baton sends Redis {@code WAIT replicas timeout} on the
 * same connection; the acquisition counts only if at least {@code replicas} replicas have the write when it answers.
 * Otherwise it is undone and the caller gets a {@link ReplicaAcknowledgementException}.
 *
 * <p>What it guarantees and what it does not is in the documentation of {@link LockOptions}. Immutable, so
 * thread-safe.
 *
 * @param replicas how many replicas must acknowledge, at least 1
 * @param timeout  how long Redis waits for them, at least 1 ms (WAIT counts whole milliseconds; a fraction of a
 *                 millisecond is dropped)
 */
public record ReplicaAcknowledgement(int replicas, Duration timeout) {

    /** Longest timeout accepted: a day is far beyond any sensible wait and keeps every sum with it from overflowing. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    /**
     * Checks the arguments.
     *
     * @param replicas how many replicas must acknowledge, at least 1
     * @param timeout  how long Redis waits for them, at least 1 ms
     * @throws IllegalArgumentException if {@code replicas} is below 1, or {@code timeout} is shorter than 1 ms or
     *                                  longer than a day
     * @throws NullPointerException     if {@code timeout} is null
     */
    public ReplicaAcknowledgement {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        if (timeout.toNanos() < 1_000_000) {
            throw new IllegalArgumentException("timeout must be at least 1 ms (WAIT counts milliseconds): " + timeout);
        }
        if (timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("timeout must be at most a day: " + timeout);
        }
    }
}
