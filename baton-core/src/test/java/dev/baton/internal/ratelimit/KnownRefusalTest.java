package dev.baton.internal.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The refusal a limiter repeats without Redis, on readings of a monotonic clock picked by hand (near the point where
 * a reading wraps, since only differences may count): only refusals are remembered, only for requests of as many
 * permits or more, only until the retry counted from when the refused request was sent and at most one second, never
 * for a caller willing to wait out the rest of the retry; the times it reports count down from when Redis's answer
 * arrived, so they are never shorter than Redis's own.
 */
class KnownRefusalTest {
    private static final RateLimit LIMIT = RateLimit.of(100, Duration.ofMinutes(1));
    private static final long MS = 1_000_000;
    /** When the refused request was sent: 100 ms before a reading wraps. */
    private static final long SENT = Long.MAX_VALUE - 100 * MS;
    /** When its answer arrived, 20 ms later. */
    private static final long RECEIVED = SENT + 20 * MS;

    private final KnownRefusal known = new KnownRefusal();

    private static RateLimitDecision refused(Duration retryAfter) {
        return new RateLimitDecision(false, 0, retryAfter, Duration.ofSeconds(50), LIMIT, false, 0,
                Duration.ofSeconds(40));
    }

    @Test
    void nothingIsKnownBeforeARefusal() {
        assertThat(known.answer(1, 0, SENT)).isNull();
    }

    @Test
    void grantsAndFailOpenGrantsAreNotRemembered() {
        known.learn(1, SENT, RECEIVED, new RateLimitDecision(true, 5, Duration.ZERO, Duration.ofSeconds(1), LIMIT,
                false));
        known.learn(1, SENT, RECEIVED, new RateLimitDecision(true, 0, Duration.ZERO, Duration.ZERO, LIMIT, true));

        assertThat(known.answer(1, 0, RECEIVED)).isNull();
    }

    @Test
    void aRefusalIsRepeatedWithItsTimesCountedDownFromTheAnswersArrival() {
        known.learn(2, SENT, RECEIVED, refused(Duration.ofMillis(500)));

        RateLimitDecision again = known.answer(2, 0, RECEIVED + 100 * MS);

        assertThat(again).isEqualTo(new RateLimitDecision(false, 0, Duration.ofMillis(400), Duration.ofMillis(49_900),
                LIMIT, false, 0, Duration.ofMillis(39_900)));
    }

    @Test
    void aRequestForMorePermitsIsRefusedAlsoButOneForFewerAsksRedis() {
        known.learn(2, SENT, RECEIVED, refused(Duration.ofMillis(500)));

        assertThat(known.answer(3, 0, RECEIVED)).isNotNull();
        assertThat(known.answer(1, 0, RECEIVED)).isNull();
    }

    @Test
    void theRefusalEndsWhenTheRetryCountedFromTheSendingHasPassed() {
        known.learn(1, SENT, RECEIVED, refused(Duration.ofMillis(500)));

        assertThat(known.answer(1, 0, SENT + 500 * MS - 1)).isNotNull();
        assertThat(known.answer(1, 0, SENT + 500 * MS)).isNull();
    }

    @Test
    void aLongRefusalIsRepeatedForOneSecondAtMostButReportsTheWholeTimeLeft() {
        known.learn(1, SENT, RECEIVED, refused(Duration.ofMinutes(59)));

        RateLimitDecision again = known.answer(1, 0, RECEIVED + 500 * MS);
        assertThat(again.retryAfter()).isEqualTo(Duration.ofMinutes(59).minusMillis(500));
        assertThat(known.answer(1, 0, SENT + KnownRefusal.MAX_NANOS - 1)).isNotNull();
        assertThat(known.answer(1, 0, SENT + KnownRefusal.MAX_NANOS)).as("a raised limit is noticed by then")
                .isNull();
    }

    @Test
    void aCallerWillingToWaitOutTheRestOfTheRetryAsksRedisWhichAloneCanReserve() {
        known.learn(1, SENT, RECEIVED, refused(Duration.ofMillis(500)));
        long now = SENT + 200 * MS;

        assertThat(known.answer(1, 300 * MS, now)).as("300 ms left, 300 ms accepted").isNull();
        assertThat(known.answer(1, 300 * MS - 1, now)).isNotNull();
    }

    @Test
    void timesThatWouldGoNegativeAreReportedAsZero() {
        known.learn(1, SENT, RECEIVED, new RateLimitDecision(false, 0, Duration.ofMillis(900), Duration.ofMillis(10),
                LIMIT, false));

        RateLimitDecision again = known.answer(1, 0, RECEIVED + 50 * MS);

        assertThat(again.resetAfter()).isZero();
        assertThat(again.limitResetAfter()).isZero();
        assertThat(again.retryAfter()).isEqualTo(Duration.ofMillis(850));
    }

    @Test
    void aLaterRefusalReplacesTheEarlierOne() {
        known.learn(5, SENT, RECEIVED, refused(Duration.ofMillis(500)));
        known.learn(1, SENT + 10 * MS, RECEIVED + 10 * MS, refused(Duration.ofMillis(100)));

        assertThat(known.answer(1, 0, RECEIVED + 10 * MS)).isNotNull();
        assertThat(known.answer(5, 0, SENT + 200 * MS)).as("the earlier, longer one is forgotten").isNull();
    }
}
