package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer of a {@link RateLimiter}: whether the permits were granted, and what a caller (or an HTTP layer
 * answering 429) needs to know next. For a limiter with several limits, {@code remaining} is the fewest over the
 * limits, {@code retryAfter} and {@code resetAfter} the longest, and {@link #limit()} names the limit that decided:
 * the one with the fewest permits left when allowed, or, when refused, the refusing one with the longest wait.
 *
 * @param allowed    whether the permits were granted (for {@link RateLimiter#peek}: whether they would be now)
 * @param remaining  permits that could still be taken at once after this decision, 0 when none (for a peek: after
 *                   the permits it asked about, as if they had been taken)
 * @param retryAfter when refused, how long until the same request can succeed (as far as Redis knows now);
 *                   {@link Duration#ZERO} when allowed
 * @param resetAfter how long until every limit is back to its full burst if nothing more is taken
 * @param limit      the limit that decided
 * @param failedOpen true if Redis did not answer and the limiter was built to fail open
 *                   ({@link RateLimiter#failOpen()}): the permits were granted unchecked, and the other numbers
 *                   are unknown (0). Whether they were counted is unknown too: a request that timed out may
 *                   still reach Redis.
 */
public record RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
                                RateLimit limit, boolean failedOpen) {

    public RateLimitDecision {
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(resetAfter, "resetAfter");
        Objects.requireNonNull(limit, "limit");
    }

    /** {@link #retryAfter()} in whole seconds, rounded up, for HTTP's {@code Retry-After}; 0 when allowed. */
    public long retryAfterSeconds() {
        return ceilSeconds(retryAfter);
    }

    /**
     * The IETF {@code RateLimit} field value for this decision, e.g. {@code "api";r=42;t=3}: the remaining permits
     * and the seconds (rounded up) until the limit is full again.
     *
     * @param policy the policy name, as in {@link #rateLimitPolicyField(String)}
     */
    public String rateLimitField(String policy) {
        return quoted(policy) + ";r=" + remaining + ";t=" + ceilSeconds(resetAfter);
    }

    /**
     * The IETF {@code RateLimit-Policy} field value of {@link #limit()}, e.g. {@code "api";q=100;w=60}: its permits
     * per period, the period in seconds (rounded up; a sub-second period is reported as 1 s with permits scaled up).
     *
     * @param policy the policy name: printable ASCII without quotes or backslashes
     */
    public String rateLimitPolicyField(String policy) {
        long periodMicros = limit.period().toNanos() / 1000;
        long window = Math.max(1, ceilSeconds(limit.period()));
        long quota = periodMicros >= 1_000_000 ? limit.permits() : limit.permits() * 1_000_000 / periodMicros;
        return quoted(policy) + ";q=" + quota + ";w=" + window;
    }

    private static String quoted(String policy) {
        Objects.requireNonNull(policy, "policy");
        for (int i = 0; i < policy.length(); i++) {
            char c = policy.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                throw new IllegalArgumentException("policy must be printable ASCII without quotes or backslashes: "
                        + policy);
            }
        }
        return '"' + policy + '"';
    }

    private static long ceilSeconds(Duration d) {
        long s = d.getSeconds();
        return d.getNano() > 0 ? s + 1 : s;
    }
}
