package dev.baton.internal;

import dev.baton.RateLimitDecision;
import java.time.Duration;

/**
 * The last refusal Redis gave one {@link RedisRateLimiter}, so that a limiter known to be exhausted answers further
 * requests itself until their retry time, instead of asking Redis again: an exhausted hot limiter then costs Redis
 * one script per retry interval per process, not one per request.
 *
 * <p>Why a local refusal is never wrong: a limit's state only gets worse through other callers' requests, and
 * better only with time. If Redis refused {@code n} permits with a retry of {@code R}, no request for {@code n} or
 * more can pass before {@code R} has elapsed. The interval is counted from when the request was sent (before Redis
 * read its clock), so it never ends later than Redis's own. Two things can make permits come back sooner: another
 * process raising the limit, or an operator deleting the keys. Neither is seen for up to {@link #MAX_NANOS}.
 */
final class KnownRefusal {
    /** The longest a refusal is repeated without asking Redis: bounds how late a raised limit is noticed. */
    static final long MAX_NANOS = 1_000_000_000L;

    private record Refusal(long permits, long sentNanos, long untilNanos, RateLimitDecision decision) {
    }

    private volatile Refusal last;

    /**
     * The refusal this limiter can give without Redis, or null if Redis must be asked.
     *
     * @param maxWaitNanos what the caller accepts to wait for a reservation (0 for a plain try)
     */
    RateLimitDecision answer(long permits, long maxWaitNanos, long nowNanos) {
        Refusal r = last;
        if (r == null || permits < r.permits || nowNanos - r.untilNanos >= 0
                || r.untilNanos - nowNanos <= maxWaitNanos) {
            return null;
        }
        RateLimitDecision d = r.decision;
        long elapsed = nowNanos - r.sentNanos;
        return new RateLimitDecision(false, d.remaining(), Duration.ofNanos(r.untilNanos - nowNanos),
                d.resetAfter().minusNanos(Math.min(elapsed, d.resetAfter().toNanos())), d.limit(), false);
    }

    /** Remembers a decision Redis gave for a request sent at {@code sentNanos}. */
    void learn(long permits, long sentNanos, RateLimitDecision decision) {
        if (decision.allowed() || decision.failedOpen()) {
            return;
        }
        long retry = Math.min(decision.retryAfter().toNanos(), MAX_NANOS);
        last = new Refusal(permits, sentNanos, sentNanos + retry, decision);
    }
}
