package dev.baton.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The 429 answer built from a decision, without a server. */
class RateLimitResponseTest {

    private static RateLimitDecision refusal(RateLimit limit, Duration retryAfter, Duration reset) {
        return new RateLimitDecision(false, 0, retryAfter, reset, limit, false);
    }

    @Test
    void headersDescribeTheLimitThatRefused() {
        RateLimitResponse r = RateLimitResponse.of(refusal(RateLimit.of(100, Duration.ofMinutes(1)),
                Duration.ofMillis(1200), Duration.ofSeconds(59)));

        assertThat(r.headers().getFirst("Retry-After")).isEqualTo("2");
        assertThat(r.headers().getFirst("RateLimit")).isEqualTo("\"100-per-60s\";r=0;t=59");
        assertThat(r.headers().getFirst("RateLimit-Policy")).isEqualTo("\"100-per-60s\";q=100;w=60");
        assertThat(r.body().getStatus()).isEqualTo(429);
        assertThat(r.body().getProperties()).containsEntry("retryAfterSeconds", 2L);
    }

    @Test
    void aTokenBucketIsAnsweredAsTheBucketThatRefused() {
        // 5/s with a burst of 10, emptied by a call that costs 3: 2 left, refused. The policy is the bucket (10,
        // refilled in 2 s), r is 0 beside the 429, and t is within the policy's window.
        RateLimit bucket = RateLimit.builder(5, Duration.ofSeconds(1)).burst(10).build();
        RateLimitResponse r = RateLimitResponse.of(new RateLimitDecision(false, 2, Duration.ofMillis(200),
                Duration.ofMillis(1600), bucket, false));

        assertThat(r.headers().getFirst("Retry-After")).isEqualTo("1");
        assertThat(r.headers().getFirst("RateLimit-Policy")).isEqualTo("\"5-per-1s-burst-10\";q=10;w=2");
        assertThat(r.headers().getFirst("RateLimit")).isEqualTo("\"5-per-1s-burst-10\";r=0;t=2");
        assertThat(r.body().getProperties()).containsEntry("policy", "5-per-1s-burst-10");
    }

    @Test
    void policyNamesUseTheLargestUnitThatDividesThePeriod() {
        assertThat(RateLimitResponse.policyName(RateLimit.of(5, Duration.ofMillis(1500)))).isEqualTo("5-per-1500ms");
        assertThat(RateLimitResponse.policyName(RateLimit.of(5, Duration.ofNanos(1_500_000_000L + 3_000))))
                .isEqualTo("5-per-1500003us");
        assertThat(RateLimitResponse.policyName(RateLimit.of(5, Duration.ofHours(1)))).isEqualTo("5-per-3600s");
        assertThat(RateLimitResponse.policyName(RateLimit.builder(100, Duration.ofHours(1)).burst(2).build()))
                .isEqualTo("100-per-3600s-burst-2");
    }

    @Test
    void aRefusalIsFoundAmongCausesAndOtherFailuresAreNotAnswered() {
        RateLimitExceededException refused = new RateLimitExceededException("no", refusal(
                RateLimit.of(1, Duration.ofSeconds(1)), Duration.ofMillis(1), Duration.ofSeconds(1)));

        assertThat(RateLimitResponse.of(new IllegalStateException("wrapped", refused))).isPresent()
                .get().satisfies(r -> assertThat(r.headers().getFirst("Retry-After")).isEqualTo("1"));
        assertThat(RateLimitResponse.of(new IllegalStateException("other"))).isEmpty();
    }
}
