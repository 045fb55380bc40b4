package dev.baton.spring.web;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import java.time.Duration;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The 429 answer to a refused call, the same for MVC and WebFlux: {@code Retry-After} in whole seconds rounded up, the
 * IETF {@code RateLimit} and {@code RateLimit-Policy} fields of the limit that refused, and a problem detail. The two
 * fields are one description of that limit as a bucket ({@link RateLimitDecision#rateLimitPolicyField(String)}): the
 * policy's {@code q} is its burst and {@code w} the seconds it takes to refill, and the answer's {@code r} is 0 and
 * its {@code t}, the seconds until the limit is full again, is at most {@code w} and, up to {@code w}, at least
 * {@code Retry-After}. The policy is named after the limit ({@code "100-per-60s"}, or {@code "5-per-1s-burst-10"}
 * when the burst is not the permits), never after the limiter, whose name comes from the request (a user id, an API
 * key) and is not echoed back; neither is the exception's message. Immutable.
 *
 * @param headers the response's headers
 * @param body    the problem detail, for {@code application/problem+json}
 */
public record RateLimitResponse(HttpHeaders headers, ProblemDetail body) {

    /** The status of every such response. */
    public static final HttpStatus STATUS = HttpStatus.TOO_MANY_REQUESTS;

    /** The {@code RateLimit} field of the IETF draft "RateLimit header fields for HTTP". */
    public static final String RATE_LIMIT = "RateLimit";

    /** The {@code RateLimit-Policy} field of the same draft. */
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

    /**
     * The answer to a failure, if it is (or was caused by) a refusal that carries its decision.
     *
     * @param failure what a handler threw
     * @return the answer, or empty if the failure is not a refusal
     */
    public static Optional<RateLimitResponse> of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RateLimitExceededException refused && refused.decision() != null) {
                return Optional.of(of(refused.decision()));
            }
        }
        return Optional.empty();
    }

    /**
     * @param decision a refusal
     * @return the answer to it
     */
    public static RateLimitResponse of(RateLimitDecision decision) {
        String policy = policyName(decision.limit());
        long retryAfter = Math.max(1, decision.retryAfterSeconds());
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
        headers.set(RATE_LIMIT, decision.rateLimitField(policy));
        headers.set(RATE_LIMIT_POLICY, decision.rateLimitPolicyField(policy));
        ProblemDetail body = ProblemDetail.forStatusAndDetail(STATUS,
                "Rate limit exceeded; retry after " + retryAfter + " second" + (retryAfter == 1 ? "" : "s") + ".");
        body.setTitle(STATUS.getReasonPhrase());
        body.setProperty("policy", policy);
        body.setProperty("retryAfterSeconds", retryAfter);
        return new RateLimitResponse(headers, body);
    }

    /**
     * {@code "<permits>-per-<period>"}, the period in the largest of seconds, milliseconds and microseconds that
     * divides it (a limit's period is a whole number of microseconds), followed by {@code "-burst-<burst>"} when the
     * burst is not the permits: the policy's {@code q} is the burst, and the name should not contradict it.
     */
    static String policyName(RateLimit limit) {
        Duration period = limit.period();
        String window;
        if (period.getNano() == 0) {
            window = period.getSeconds() + "s";
        } else if (period.getNano() % 1_000_000 == 0) {
            window = period.toMillis() + "ms";
        } else {
            window = period.toNanos() / 1_000 + "us";
        }
        return limit.permits() + "-per-" + window + (limit.burst() == limit.permits() ? "" : "-burst-" + limit.burst());
    }
}
