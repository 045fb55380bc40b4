package dev.baton;

import java.util.Objects;

/**
 * A rate limiter could not grant the permits within the wait the caller accepted. Thrown by
 * {@link RateLimiter#acquire(long, java.time.Duration)} and used to complete the future of
 * {@link RateLimiter#acquireAsync(long, java.time.Duration)}, so that code which does not look at the result can never
 * go ahead without a permit. When it is thrown nothing was taken or reserved; {@link #decision()} is the refusal, with
 * {@link RateLimitDecision#retryAfter()} saying when the same request could succeed.
 */
public class RateLimitExceededException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** Not serialized (decisions are not {@code Serializable}): a deserialized copy has none. */
    private final transient RateLimitDecision decision;

    /**
     * Creates the exception for a refusal.
     *
     * @param message  what was refused, naming the rate limiter
     * @param decision the refusal ({@link RateLimitDecision#allowed()} false)
     */
    public RateLimitExceededException(String message, RateLimitDecision decision) {
        super(message);
        this.decision = Objects.requireNonNull(decision, "decision");
    }

    /**
     * The refusal that caused this exception.
     *
     * @return the decision, never allowed; null only in a copy made by Java serialization
     */
    public RateLimitDecision decision() {
        return decision;
    }
}
