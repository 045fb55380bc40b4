package dev.baton.internal.ratelimit;

import static dev.baton.internal.engine.DriverKit.failure;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static dev.baton.internal.ratelimit.RateLimitCallTest.HUNDRED_PER_MINUTE;
import static dev.baton.internal.ratelimit.RateLimitCallTest.SMOOTHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonConfig;
import dev.baton.BatonListener;
import dev.baton.BatonUnavailableException;
import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import dev.baton.RateLimiter;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.runtime.ManualScheduler;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rate limiter facade on a fake transport and a fake clock: one {@code rate-decide.lua} call per decision, the
 * permits it refuses before sending anything, a refusal repeated without Redis until its retry time (but never to a
 * peek, a smaller request or a caller willing to wait that long), the fail-closed exception and the fail-open grant
 * during an outage (granted without asking while the outage is known, asked again once a probe hears Redis), the
 * exception of {@code acquire}, the events it reports, and what {@code create} refuses.
 */
class RedisRateLimiterTest {
    private final List<BatonListener.RateLimitDecided> events = new CopyOnWriteArrayList<>();
    private final SteppedEngine baton = SteppedEngine.withListener(new BatonListener() {
        @Override
        public void rateLimitDecided(RateLimitDecided event) {
            events.add(event);
        }
    });
    private final FakeTransport redis = baton.redis;
    private final RateLimiter limiter = RedisRateLimiter.create(baton.runtime, "api", HUNDRED_PER_MINUTE);

    @AfterEach
    void close() {
        baton.close();
    }

    private static List<Long> allowed(long remaining) {
        return List.of(1L, remaining, 0L, 600_000L, 0L, 1L);
    }

    private static List<Long> refused(Duration retry) {
        return List.of(0L, 0L, RateLimitCall.micros(retry), 60_000_000L, 0L, 1L);
    }

    private int decisions() {
        return redis.calls(RateLimitCall.DECIDE).size();
    }

    @Test
    void aDecisionIsOneScriptCallAnsweredAsRedisDecided() {
        redis.answer(RateLimitCall.DECIDE, c -> allowed(99));

        RateLimitDecision decision = limiter.tryAcquire();

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(99);
        assertThat(decision.limit()).isEqualTo(HUNDRED_PER_MINUTE);
        assertThat(redis.calls(RateLimitCall.DECIDE)).singleElement().satisfies(c -> {
            assertThat(c.keys).containsExactly("baton:rate:{api}:0g");
            assertThat(c.args).containsExactly("take", "1", "0", "g", "100", "60000000", "100");
        });
    }

    @Test
    void permitsOutsideOneToTheSmallestBurstAreRefusedBeforeAnythingIsSent() {
        RateLimiter smoothed = RedisRateLimiter.create(baton.runtime, "api", HUNDRED_PER_MINUTE, SMOOTHED);

        assertThatThrownBy(() -> limiter.tryAcquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> smoothed.peek(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("smallest burst of rate limiter 'api' (2)");
        assertThat(smoothed.tryAcquireAsync(2)).isNotNull();
        assertThat(decisions()).isEqualTo(1);
    }

    @Test
    void aRefusalIsRepeatedWithoutRedisCountedDownUntilItsRetryHasPassed() {
        redis.answer(RateLimitCall.DECIDE, c -> refused(Duration.ofMillis(400)));
        assertThat(limiter.tryAcquire().allowed()).isFalse();

        baton.advance(Duration.ofMillis(100));
        RateLimitDecision again = limiter.tryAcquire(5);
        assertThat(again.allowed()).isFalse();
        assertThat(again.retryAfter()).isEqualTo(Duration.ofMillis(300));
        assertThat(decisions()).isEqualTo(1);

        baton.advance(Duration.ofMillis(300));
        limiter.tryAcquire();
        assertThat(decisions()).isEqualTo(2);
    }

    @Test
    void aPeekASmallerRequestAndACallerWillingToWaitStillAskRedis() throws InterruptedException {
        redis.answer(RateLimitCall.DECIDE, c -> refused(Duration.ofMillis(400)));
        limiter.tryAcquire(2);

        limiter.peek(2);
        limiter.tryAcquire(1);
        redis.answer(RateLimitCall.DECIDE, c -> allowed(0));
        assertThat(limiter.tryAcquire(2, Duration.ofMillis(400)).allowed()).isTrue();

        List<FakeTransport.Call> calls = redis.calls(RateLimitCall.DECIDE);
        assertThat(calls).extracting(c -> String.join(" ", c.args.subList(0, 3))).containsExactly("take 2 0",
                "peek 2 0", "take 1 0", "take 2 400000");
    }

    @Test
    void aFailClosedLimiterThrowsWhileRedisCannotBeReached() {
        redis.outage(unreachable());

        assertThatThrownBy(limiter::tryAcquire).isInstanceOf(BatonUnavailableException.class);
        assertThat(failure(limiter.tryAcquireAsync(1))).isInstanceOf(BatonUnavailableException.class);
    }

    @Test
    void aFailOpenLimiterGrantsUncheckedUntilAProbeHearsRedisAgain() {
        RateLimiter open = limiter.failOpen();
        redis.outage(unreachable());

        RateLimitDecision unchecked = open.tryAcquire();
        assertThat(unchecked.allowed()).isTrue();
        assertThat(unchecked.failedOpen()).isTrue();

        redis.outage(null);
        redis.answer(RateLimitCall.DECIDE, c -> allowed(50));
        assertThat(open.tryAcquire().failedOpen()).as("the outage is known: Redis is not asked").isTrue();
        assertThat(decisions()).isZero();

        baton.advance(Duration.ofMillis(250));
        RateLimitDecision checked = open.tryAcquire();
        assertThat(checked.failedOpen()).isFalse();
        assertThat(checked.remaining()).isEqualTo(50);
        assertThat(decisions()).isEqualTo(1);
    }

    @Test
    void aFailClosedLimiterKeepsAskingRedisDuringAKnownOutage() {
        redis.outage(unreachable());
        limiter.failOpen().tryAcquire();
        redis.outage(null);
        redis.answer(RateLimitCall.DECIDE, c -> allowed(50));

        assertThat(limiter.tryAcquire().remaining()).isEqualTo(50);
        assertThat(limiter.failOpen().tryAcquire().failedOpen()).as("its answer ended the outage").isFalse();
    }

    @Test
    void acquireThrowsTheRefusalWithItsDecision() {
        redis.answer(RateLimitCall.DECIDE, c -> refused(Duration.ofSeconds(2)));

        assertThatThrownBy(() -> limiter.acquire(2, Duration.ZERO)).isInstanceOfSatisfying(
                RateLimitExceededException.class, e -> {
                    assertThat(e).hasMessageStartingWith("rate limiter 'api' cannot grant 2 permits within PT0S");
                    assertThat(e.decision().retryAfter()).isEqualTo(Duration.ofSeconds(2));
                });
        assertThat(failure(limiter.acquireAsync(2, Duration.ZERO))).isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void everyDecisionIsReportedThoseAnsweredHereIncludedAndPeeksAsPeeks() {
        redis.answer(RateLimitCall.DECIDE, c -> refused(Duration.ofMillis(400)));

        limiter.tryAcquire();
        limiter.tryAcquire();
        limiter.peek();
        baton.close(); // delivers what is queued

        assertThat(events).extracting(BatonListener.RateLimitDecided::limiter).containsOnly("api");
        assertThat(events).extracting(BatonListener.RateLimitDecided::peek).containsExactly(false, false, true);
        assertThat(events).allSatisfy(e -> assertThat(e.decision().allowed()).isFalse());
    }

    @Test
    void createRefusesNoLimitsAMissingLimitAndRedlockMasters() {
        assertThatThrownBy(() -> RedisRateLimiter.create(baton.runtime, "api"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limits must not be empty");
        assertThatThrownBy(() -> RedisRateLimiter.create(baton.runtime, "api", HUNDRED_PER_MINUTE, null))
                .isInstanceOf(NullPointerException.class).hasMessage("limits[1]");

        BatonConfig redlock = BatonConfig.builder().redlock("redis://a:6379", "redis://b:6379", "redis://c:6379")
                .build();
        FakeTicker ticker = new FakeTicker();
        try (BatonRuntime onMasters = BatonRuntime.assemble(redlock, new FakeTransport(Duration.ofSeconds(1)), ticker,
                new ManualScheduler(ticker), Runnable::run)) {
            assertThatThrownBy(() -> RedisRateLimiter.create(onMasters, "api", RateLimit.of(1, Duration.ofSeconds(1))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("cannot run on Redlock masters");
        }
    }

    @Test
    void aClosedBatonDecidesNothing() {
        baton.close();

        assertThatThrownBy(limiter::tryAcquire).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RedisRateLimiter.create(baton.runtime, "api", HUNDRED_PER_MINUTE))
                .isInstanceOf(IllegalStateException.class);
    }
}
