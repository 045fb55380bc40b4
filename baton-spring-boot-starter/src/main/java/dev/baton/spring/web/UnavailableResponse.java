package dev.baton.spring.web;

import dev.baton.Baton;
import dev.baton.BatonUnavailableException;
import dev.baton.LockTimeoutException;
import dev.baton.RateLimitExceededException;
import dev.baton.spring.LockNotAcquiredException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The 503 answer, the same for MVC and WebFlux, to a call that did not run because a lock was not acquired in time
 * ({@link LockNotAcquiredException} of {@code @DistributedLock}, or core's {@link LockTimeoutException}) or because
 * Redis could not answer ({@link BatonUnavailableException}, from either annotation or from the application's own use
 * of Baton). Both are temporary: the same request is likely to succeed later, which is what 503 with
 * {@code Retry-After} tells a client, where Spring's default 500 tells it the server is broken.
 *
 * <p>{@code Retry-After}, in whole seconds rounded up and at least 1, is:
 * <ul>
 *   <li>for a lock, the wait that ran out: the lock was held by another caller for at least that long, so an earlier
 *       retry would most likely queue behind the same holder (1 when the wait is not known);</li>
 *   <li>for Redis unavailable, Baton's command timeout: the span Baton gives Redis to answer before it calls it
 *       unavailable, and the time it takes the client to find a restarted or failed-over server; a retry sooner than
 *       that would most likely meet the same outage and hold a server thread for as long.</li>
 * </ul>
 *
 * <p>The body is a problem detail with the status, a fixed title and detail, and {@code retryAfterSeconds}. The
 * exception's message is never echoed: it names the lock (made from the request: an order, a user) or the Redis
 * endpoint (the service's inside). Immutable.
 *
 * @param headers the response's headers ({@code Retry-After})
 * @param body    the problem detail, for {@code application/problem+json}
 * @param cause   the Baton exception the answer is for, found in the failure's cause chain
 */
public record UnavailableResponse(HttpHeaders headers, ProblemDetail body, RuntimeException cause) {

    /** The status of every such response. */
    public static final HttpStatus STATUS = HttpStatus.SERVICE_UNAVAILABLE;

    private static final Logger LOG = LoggerFactory.getLogger(UnavailableResponse.class);

    /**
     * {@link #of(Throwable, Duration)} with the command timeout of the application's {@link Baton}, if it has one.
     *
     * @param failure what a handler threw
     * @param baton   the application's Baton, looked up only for an outage
     * @return the answer, or empty if the failure is none of these
     */
    static Optional<UnavailableResponse> of(Throwable failure, ObjectProvider<Baton> baton) {
        Optional<UnavailableResponse> answer = of(failure, (Duration) null);
        if (answer.isPresent() && !answer.get().lockNotAcquired()) {
            Baton b = baton.getIfUnique();
            return b != null ? of(failure, b.config().commandTimeout()) : answer;
        }
        return answer;
    }

    /**
     * The answer to a failure, if it is (or was caused by) a lock not acquired in time or Redis unavailable. A rate
     * limit refusal met first in the cause chain is left to {@link RateLimitResponse}.
     *
     * @param failure        what a handler threw
     * @param commandTimeout Baton's command timeout, for {@code Retry-After} when Redis is unavailable; null: 1 s
     * @return the answer, or empty if the failure is none of these
     */
    public static Optional<UnavailableResponse> of(Throwable failure, Duration commandTimeout) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RateLimitExceededException) {
                return Optional.empty();
            }
            if (t instanceof LockNotAcquiredException notAcquired) {
                return Optional.of(lockBusy(notAcquired, notAcquired.waitTime()));
            }
            if (t instanceof LockTimeoutException timedOut) {
                return Optional.of(lockBusy(timedOut, null));
            }
            if (t instanceof BatonUnavailableException unavailable) {
                long seconds = seconds(commandTimeout);
                return Optional.of(answer(unavailable, seconds, "A service this request needs is unavailable"));
            }
        }
        return Optional.empty();
    }

    /** @return whether the answer is for a lock not acquired in time (rather than Redis unavailable) */
    public boolean lockNotAcquired() {
        return !(cause instanceof BatonUnavailableException);
    }

    /**
     * Logs the answer in one line without a stack trace, as these are expected outcomes rather than bugs: DEBUG for a
     * busy lock (contention is normal), WARN for an outage (with Baton's message, which names the endpoint and never
     * credentials).
     *
     * @param request the method and path of the request answered
     */
    void log(String request) {
        if (lockNotAcquired()) {
            LOG.debug("{}: 503, {}", request, cause.getMessage());
        } else {
            LOG.warn("{}: 503 Service Unavailable, {}", request, cause.getMessage());
        }
    }

    private static UnavailableResponse lockBusy(RuntimeException cause, Duration wait) {
        return answer(cause, seconds(wait), "The resource is busy: a lock it needs was not acquired in time");
    }

    private static UnavailableResponse answer(RuntimeException cause, long retryAfter, String what) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
        ProblemDetail body = ProblemDetail.forStatusAndDetail(STATUS,
                what + "; retry after " + retryAfter + " second" + (retryAfter == 1 ? "" : "s") + ".");
        body.setTitle(STATUS.getReasonPhrase());
        body.setProperty("retryAfterSeconds", retryAfter);
        return new UnavailableResponse(headers, body, cause);
    }

    /** Whole seconds, rounded up, at least 1; 1 for null. */
    static long seconds(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            return 1;
        }
        long s = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
        return Math.max(1, s);
    }
}
