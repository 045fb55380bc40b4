package dev.baton.internal.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code rate-decide.lua} call of a limiter: its keys (one per limit, two for a sliding log, all under the
 * limiter's hash tag), its arguments in the script's order (take or peek, permits, accepted wait in microseconds, one
 * algorithm letter per limit, then each limit's permits, period in microseconds and burst), the shared arrays of the
 * common calls, and how each reply shape (one limit, several, a reservation) becomes a {@link RateLimitDecision}.
 */
class RateLimitCallTest {
    static final RateLimit HUNDRED_PER_MINUTE = RateLimit.of(100, Duration.ofMinutes(1));
    static final RateLimit SMOOTHED = RateLimit.builder(5, Duration.ofSeconds(1)).burst(2).build();
    static final RateLimit LOGGED = RateLimit.builder(50, Duration.ofSeconds(10))
            .algorithm(RateLimit.Algorithm.SLIDING_WINDOW_LOG).build();
    static final RateLimit WINDOWED = RateLimit.builder(1_000, Duration.ofHours(1))
            .algorithm(RateLimit.Algorithm.FIXED_WINDOW).build();

    private final RateLimitCall one = new RateLimitCall("baton", "api", List.of(HUNDRED_PER_MINUTE));
    private final RateLimitCall several = new RateLimitCall("baton", "api", List.of(SMOOTHED, LOGGED, WINDOWED));

    @Test
    void oneGcraLimitIsOneKeyAndSevenArguments() {
        assertThat(one.keys()).containsExactly("baton:rate:{api}:0g");
        assertThat(one.args(true, 1, 0)).containsExactly("take", "1", "0", "g", "100", "60000000", "100");
        assertThat(one.args(false, 1, 0)).containsExactly("peek", "1", "0", "g", "100", "60000000", "100");
    }

    @Test
    void everyLimitHasItsKeysLetterAndNumbersInTheLimitersOrder() {
        assertThat(several.keys()).containsExactly("baton:rate:{api}:0g", "baton:rate:{api}:1s",
                "baton:rate:{api}:1s:totals", "baton:rate:{api}:2f");
        assertThat(several.args(true, 2, 1_500)).containsExactly("take", "2", "1500", "gsf",
                "5", "1000000", "2",
                "50", "10000000", "50",
                "1000", "3600000000", "1000");
    }

    @Test
    void theCommonCallsShareTheirArgumentsAndTheOthersAreBuiltEachTime() {
        assertThat(one.args(true, 1, 0)).isSameAs(one.args(true, 1, 0));
        assertThat(one.args(false, 1, 0)).isSameAs(one.args(false, 1, 0));
        assertThat(one.args(true, 1, 7)).isNotSameAs(one.args(true, 1, 7)).contains("7");
    }

    @Test
    void aDecisionIsOneScriptCallWithTheKeysAndArguments() {
        FakeTransport redis = new FakeTransport(Duration.ofSeconds(1));

        one.send(redis, false, 3, 0);

        FakeTransport.Call call = redis.next(RateLimitCall.DECIDE);
        assertThat(call.keys).containsExactly("baton:rate:{api}:0g");
        assertThat(call.args).containsExactly("peek", "3", "0", "g", "100", "60000000", "100");
    }

    @Test
    void aReplyOfOneLimitIsItsOwnDecisionAndThatLimitsNumbers() {
        RateLimitCall.Reply reply = one.parse(List.of(1L, 99L, 0L, 600_000L, 0L, 1L));

        assertThat(reply.waitMicros()).isZero();
        assertThat(reply.decision()).isEqualTo(new RateLimitDecision(true, 99, Duration.ZERO, Duration.ofMillis(600),
                HUNDRED_PER_MINUTE, false, 99, Duration.ofMillis(600)));
    }

    @Test
    void aRefusalCarriesItsRetryInMicroseconds() {
        RateLimitDecision refused = one.parse(List.of(0L, 0L, 2_500_001L, 60_000_000L, 0L, 1L)).decision();

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofNanos(2_500_001_000L));
        assertThat(refused.resetAfter()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aReplyOfSeveralLimitsNamesTheBindingOneWithItsOwnNumbers() {
        RateLimitDecision refused = several.parse(List.of(0L, 0L, 1_000L, 5_000L, 0L, 2L, 3L, 7_000L)).decision();

        assertThat(refused).isEqualTo(new RateLimitDecision(false, 0, Duration.ofMillis(1), Duration.ofMillis(5),
                LOGGED, false, 3, Duration.ofMillis(7)));
    }

    @Test
    void anAdmittedReservationSaysHowLongUntilItIsDue() {
        RateLimitCall.Reply reply = several.parse(List.of(1L, 0L, 0L, 9_000L, 1_500L, 1L, 0L, 9_000L));

        assertThat(reply.decision().allowed()).isTrue();
        assertThat(reply.decision().limit()).isEqualTo(SMOOTHED);
        assertThat(reply.waitMicros()).isEqualTo(1_500);
    }

    @Test
    void failingOpenGrantsUncheckedAndKnowsNothing() {
        assertThat(several.failedOpen()).isEqualTo(new RateLimitDecision(true, 0, Duration.ZERO, Duration.ZERO,
                SMOOTHED, true));
    }

    @Test
    void durationsAreSentInWholeMicroseconds() {
        assertThat(RateLimitCall.micros(Duration.ofSeconds(2, 3_999))).isEqualTo(2_000_003);
        assertThat(RateLimitCall.micros(Duration.ofDays(365))).isEqualTo(31_536_000_000_000L);
    }
}
