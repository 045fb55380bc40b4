package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer of a {@link RateLimiter}: whether the permits were granted, and what a caller (or an HTTP layer
 * answering 429) needs to know next. For a limiter with several limits, {@code remaining} is the fewest over the
 * limits, {@code retryAfter} and {@code resetAfter} the longest, and {@link #limit()} names the limit that decided:
 * the one with the fewest permits left when allowed (of several such, the one that takes longest to be full again),
 * or, when refused, the refusing one with the longest wait.
 * {@link #limitRemaining()} and {@link #limitResetAfter()} describe that one limit alone, so that the HTTP fields,
 * which describe one policy each, never mix numbers of different limits.
 *
 * @param allowed         whether the permits were granted (for {@link RateLimiter#peek}: whether they would be now)
 * @param remaining       permits that could still be taken at once after this decision, 0 when none (for a peek:
 *                        after the permits it asked about, as if they had been taken)
 * @param retryAfter      when refused, how long until the same request can succeed (as far as Redis knows now);
 *                        {@link Duration#ZERO} when allowed
 * @param resetAfter      how long until every limit is back to its full burst if nothing more is taken
 * @param limit           the limit that decided
 * @param failedOpen      true if Redis did not answer and the limiter was built to fail open
 *                        ({@link RateLimiter#failOpen()}): the permits were granted unchecked, and the other numbers
 *                        are unknown (0). Whether they were counted is unknown too: a request that timed out may
 *                        still reach Redis.
 * @param limitRemaining  {@code remaining} of {@link #limit()} alone (equal to {@code remaining} when allowed, or
 *                        with one limit)
 * @param limitResetAfter {@code resetAfter} of {@link #limit()} alone: how long until that limit is full again
 */
public record RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
                                RateLimit limit, boolean failedOpen, long limitRemaining, Duration limitResetAfter) {

    /**
     * Checks that no component is null.
     *
     * @param allowed         see the record's components
     * @param remaining       see the record's components
     * @param retryAfter      see the record's components
     * @param resetAfter      see the record's components
     * @param limit           see the record's components
     * @param failedOpen      see the record's components
     * @param limitRemaining  see the record's components
     * @param limitResetAfter see the record's components
     * @throws NullPointerException if a duration or the limit is null
     */
    public RateLimitDecision {
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(resetAfter, "resetAfter");
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(limitResetAfter, "limitResetAfter");
    }

    /**
     * A decision of a limiter with one limit, where the limit's own numbers are the decision's.
     *
     * @param allowed    see the record's components
     * @param remaining  see the record's components
     * @param retryAfter see the record's components
     * @param resetAfter see the record's components
     * @param limit      see the record's components
     * @param failedOpen see the record's components
     * @throws NullPointerException if a duration or the limit is null
     */
    public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
                             RateLimit limit, boolean failedOpen) {
        this(allowed, remaining, retryAfter, resetAfter, limit, failedOpen, remaining, resetAfter);
    }

    /**
     * {@link #retryAfter()} in whole seconds, rounded up, for HTTP's {@code Retry-After}.
     *
     * @return the seconds to wait; 0 when allowed
     */
    public long retryAfterSeconds() {
        return ceilSeconds(retryAfter);
    }

    /**
     * The IETF {@code RateLimit} field value of {@link #limit()}, e.g. {@code "api";r=42;t=3}, read against
     * {@link #rateLimitPolicyField(String)}, which describes the same limit: {@code r} is the permits that limit has
     * left ({@link #limitRemaining()}) and {@code t} the seconds, rounded up, until it is full again
     * ({@link #limitResetAfter()}). With several limits, that is the one that decided. Whatever the algorithm, the two
     * fields of one decision satisfy:
     * <ul>
     *   <li>{@code 0 <= r <= q} and {@code 0 <= t <= w};</li>
     *   <li>when refused, {@code r = 0} (the request that was refused cannot pass now, whatever a smaller one could)
     *       and {@code t >= min(retryAfterSeconds(), w)}: {@code t} never invites a retry sooner than
     *       {@code Retry-After}. A limit whose permits were reserved ahead
     *       ({@link RateLimiter#tryAcquire(long, Duration)}) further than one window may need longer than {@code w}
     *       to be full again; {@code t} then stays at {@code w}, and only {@code Retry-After} tells the whole
     *       wait.</li>
     * </ul>
     *
     * @param policy the policy name, as in {@link #rateLimitPolicyField(String)}
     * @return the field value
     * @throws IllegalArgumentException if the policy name is not printable ASCII or contains quotes or backslashes
     */
    public String rateLimitField(String policy) {
        String name = quoted(policy);
        long window = windowSeconds(limit);
        long r = allowed ? Math.max(0, Math.min(limitRemaining, limit.burst())) : 0;
        long t = Math.min(window, Math.max(ceilSeconds(limitResetAfter), allowed ? 0 : retryAfterSeconds()));
        return name + ";r=" + r + ";t=" + t;
    }

    /**
     * The IETF {@code RateLimit-Policy} field value of {@link #limit()}, e.g. {@code "api";q=100;w=60}: the limit as
     * a bucket. The quota {@code q} is the most permits it holds, {@link RateLimit#burst()} (for the window
     * algorithms, its permits), and the window {@code w} the seconds it takes to refill from empty,
     * {@code burst × period / permits}, rounded up (at least 1). So a client that spends at most {@code q} permits
     * per {@code w} seconds, all at once if it likes, finds the limit full again each time; and the
     * {@link #rateLimitField(String)} of the same decision never reports more than {@code q} left nor longer than
     * {@code w} to wait. Examples: 100 per minute is {@code q=100;w=60}; 5 per second with a burst of 10 is
     * {@code q=10;w=2}; 3 per 1.5 s is {@code q=3;w=2}. Whole seconds make a limit that refills in less than a second
     * look slower than it is (5 per 200 ms is {@code q=5;w=1}), never faster.
     *
     * @param policy the policy name: printable ASCII without quotes or backslashes
     * @return the field value
     * @throws IllegalArgumentException if the policy name is not printable ASCII or contains quotes or backslashes
     */
    public String rateLimitPolicyField(String policy) {
        return quoted(policy) + ";q=" + limit.burst() + ";w=" + windowSeconds(limit);
    }

    /** The seconds a limit takes to refill from empty, {@code burst × period / permits}, rounded up, at least 1. */
    private static long windowSeconds(RateLimit limit) {
        Duration period = limit.period();
        // A whole number of microseconds, and burst × period at most 2^51 µs: the product fits a long.
        long periodMicros = period.getSeconds() * 1_000_000L + period.getNano() / 1000;
        long refillMicros = ceilDiv(limit.burst() * periodMicros, limit.permits());
        return Math.max(1, ceilDiv(refillMicros, 1_000_000L));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
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
