package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit.Algorithm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The IETF fields a decision formats, from decisions built by hand: the corner cases that a real limiter reaches only
 * with timing luck. What real limiters answer, for every algorithm and for several limits: RateLimitFieldsIT.
 */
class RateLimitDecisionTest {
    private static final RateLimit FIVE_A_SECOND_BURST_TEN = RateLimit.builder(5, Duration.ofSeconds(1)).burst(10)
            .build();

    private static RateLimitDecision refused(RateLimit limit, long remaining, Duration retry, Duration reset) {
        return new RateLimitDecision(false, remaining, retry, reset, limit, false);
    }

    private static RateLimitDecision granted(RateLimit limit, long remaining, Duration reset) {
        return new RateLimitDecision(true, remaining, Duration.ZERO, reset, limit, false);
    }

    @Test
    void aTokenBucketIsDescribedAsTheBucket() {
        // The case: 5/s with a burst of 10, emptied. Its bucket holds 10 and refills in 2 s.
        RateLimitDecision d = refused(FIVE_A_SECOND_BURST_TEN, 0, Duration.ofMillis(200), Duration.ofMillis(1800));
        assertThat(d.rateLimitPolicyField("api")).isEqualTo("\"api\";q=10;w=2");
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=0;t=2");

        RateLimitDecision smooth = granted(RateLimit.builder(100, Duration.ofHours(1)).burst(2).build(), 1,
                Duration.ofSeconds(36));
        assertThat(smooth.rateLimitPolicyField("api")).isEqualTo("\"api\";q=2;w=72");
        assertThat(smooth.rateLimitField("api")).isEqualTo("\"api\";r=1;t=36");
    }

    @Test
    void theWindowIsTheRefillTimeInWholeSecondsRoundedUp() {
        assertThat(policy(RateLimit.of(100, Duration.ofMinutes(1)))).isEqualTo("\"p\";q=100;w=60");
        assertThat(policy(RateLimit.of(3, Duration.ofMillis(1500)))).isEqualTo("\"p\";q=3;w=2");
        // Faster than a second: the whole-second window makes it look slower, never faster.
        assertThat(policy(RateLimit.of(5, Duration.ofMillis(200)))).isEqualTo("\"p\";q=5;w=1");
        assertThat(policy(RateLimit.builder(1000, Duration.ofSeconds(1)).burst(1).build())).isEqualTo("\"p\";q=1;w=1");
        // 7 every 3 s with a burst of 2: one every 3/7 s, so 6/7 s to refill.
        assertThat(policy(RateLimit.builder(7, Duration.ofSeconds(3)).burst(2).build())).isEqualTo("\"p\";q=2;w=1");
        assertThat(policy(RateLimit.builder(7, Duration.ofSeconds(3)).burst(3).build())).isEqualTo("\"p\";q=3;w=2");
        assertThat(policy(RateLimit.builder(4, Duration.ofMillis(1500)).algorithm(Algorithm.SLIDING_WINDOW_LOG)
                .build())).isEqualTo("\"p\";q=4;w=2");
        assertThat(policy(RateLimit.builder(4, Duration.ofHours(1)).algorithm(Algorithm.FIXED_WINDOW).build()))
                .isEqualTo("\"p\";q=4;w=3600");
        // The extremes of a limit's range stay exact.
        assertThat(policy(RateLimit.of(RateLimit.MAX_PERMITS, Duration.ofMillis(1))))
                .isEqualTo("\"p\";q=" + RateLimit.MAX_PERMITS + ";w=1");
        assertThat(policy(RateLimit.of(1, Duration.ofNanos((1L << 51) * 1000))))
                .isEqualTo("\"p\";q=1;w=" + ((1L << 51) + 999_999) / 1_000_000);
    }

    @Test
    void aRefusalReportsNothingLeftEvenWhenASmallerRequestWouldPass() {
        // 3 of 10 left, 5 asked: refused. Reporting r=3 beside a 429 would invite the same request again at once.
        RateLimitDecision d = refused(FIVE_A_SECOND_BURST_TEN, 3, Duration.ofMillis(400), Duration.ofMillis(1400));
        assertThat(d.limitRemaining()).isEqualTo(3);
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=0;t=2");
    }

    @Test
    void aRefusalNeverAnnouncesTheLimitFullBeforeItsRetryTime() {
        // With several limits, the decided limit's own reset can be shorter than the decision's retry.
        RateLimit perMinute = RateLimit.of(60, Duration.ofMinutes(1));
        RateLimitDecision d = new RateLimitDecision(false, 0, Duration.ofSeconds(20), Duration.ofSeconds(20),
                perMinute, false, 0, Duration.ofSeconds(5));
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=0;t=20");
    }

    @Test
    void aLimitReservedBeyondItsWindowReportsTheWindowAndLeavesTheRestToRetryAfter() {
        RateLimit perSecond = RateLimit.of(1, Duration.ofSeconds(1));
        RateLimitDecision d = refused(perSecond, 0, Duration.ofSeconds(7), Duration.ofSeconds(8));
        assertThat(d.rateLimitPolicyField("api")).isEqualTo("\"api\";q=1;w=1");
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=0;t=1");
        assertThat(d.retryAfterSeconds()).isEqualTo(7);

        RateLimitDecision reserved = granted(perSecond, 0, Duration.ofSeconds(3));
        assertThat(reserved.rateLimitField("api")).isEqualTo("\"api\";r=0;t=1");
    }

    @Test
    void aGrantReportsTheLimitsOwnNumbers() {
        RateLimitDecision d = granted(RateLimit.of(100, Duration.ofMinutes(1)), 60, Duration.ofSeconds(24));
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=60;t=24");
        RateLimitDecision full = granted(RateLimit.of(100, Duration.ofMinutes(1)), 100, Duration.ZERO);
        assertThat(full.rateLimitField("api")).isEqualTo("\"api\";r=100;t=0");
    }

    private static String policy(RateLimit limit) {
        return granted(limit, 0, Duration.ZERO).rateLimitPolicyField("p");
    }
}
