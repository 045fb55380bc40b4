package dev.baton.internal.ratelimit;

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
 *
 * <p>What a local refusal reports is Redis's answer counted down from when the reply arrived (after Redis read its
 * clock), so {@code retryAfter} is the real time left, never less: a refusal of {@code retryAfter} = 59 minutes is
 * repeated as 58 minutes a minute later, although the limiter asks Redis again after at most {@link #MAX_NANOS}.
 */
final class KnownRefusal {
    /** The longest a refusal is repeated without asking Redis: bounds how late a raised limit is noticed. */
    static final long MAX_NANOS = 1_000_000_000L;

    /**
     * @param sentNanos      when the refused request was sent: the earliest Redis can have read its clock, so the
     *                       retry counted from here is the shortest the real one can be
     * @param holdUntilNanos until when this refusal is repeated without Redis (sent time plus the retry, capped)
     * @param receivedNanos  when Redis's answer arrived: the reported times count down from here, the latest Redis
     *                       can have read its clock, so they are never shorter than the real ones
     */
    private record Refusal(long permits, long sentNanos, long holdUntilNanos, long receivedNanos,
                           RateLimitDecision decision) {
    }

    private volatile Refusal last;

    /**
     * The refusal this limiter can give without Redis, or null if Redis must be asked.
     *
     * @param maxWaitNanos what the caller accepts to wait for a reservation (0 for a plain try)
     */
    RateLimitDecision answer(long permits, long maxWaitNanos, long nowNanos) {
        Refusal r = last;
        if (r == null || permits < r.permits || nowNanos - r.holdUntilNanos >= 0) {
            return null;
        }
        RateLimitDecision d = r.decision;
        if (d.retryAfter().toNanos() - (nowNanos - r.sentNanos) <= maxWaitNanos) {
            return null; // the caller may be willing to wait that long: only Redis can reserve
        }
        long elapsed = Math.max(0, nowNanos - r.receivedNanos);
        return new RateLimitDecision(false, d.remaining(), minus(d.retryAfter(), elapsed),
                minus(d.resetAfter(), elapsed), d.limit(), false,
                d.limitRemaining(), minus(d.limitResetAfter(), elapsed));
    }

    /** Remembers a decision Redis gave for a request sent at {@code sentNanos} and answered at {@code receivedNanos}. */
    void learn(long permits, long sentNanos, long receivedNanos, RateLimitDecision decision) {
        if (decision.allowed() || decision.failedOpen()) {
            return;
        }
        long retry = Math.min(decision.retryAfter().toNanos(), MAX_NANOS);
        last = new Refusal(permits, sentNanos, sentNanos + retry, receivedNanos, decision);
    }

    private static Duration minus(Duration d, long nanos) {
        return d.toNanos() > nanos ? d.minusNanos(nanos) : Duration.ZERO;
    }
}
