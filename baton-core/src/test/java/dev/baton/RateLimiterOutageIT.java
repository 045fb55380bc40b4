package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.support.Measure;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rate limiters on bad days: fail closed by default (a clear exception within commandTimeout), fail open when asked,
 * and work again, with the same Baton, once Redis is back.
 */
class RateLimiterOutageIT {
    private static final long FAIL_FAST_MS = TestBatons.TIMEOUT.toMillis() + 700;
    private static final RateLimit FIVE_AN_HOUR = RateLimit.of(5, Duration.ofHours(1));

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private Baton baton;

    @BeforeEach
    void connect() {
        baton = TestBatons.connect(redis.server().uri());
    }

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void redisKilledThenRestarted() throws Exception {
        RedisServer server = redis.server();
        RateLimiter closed = baton.rateLimiter("api", FIVE_AN_HOUR);
        RateLimiter open = closed.failOpen();
        assertThat(closed.tryAcquire(2).remaining()).isEqualTo(3);

        server.kill();
        long start = System.nanoTime();
        assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining(server.host() + ":" + server.port());
        assertThatThrownBy(closed::peek).isInstanceOf(BatonUnavailableException.class);
        assertThatThrownBy(() -> closed.acquire(1, Duration.ofSeconds(10)))
                .isInstanceOf(BatonUnavailableException.class);
        assertThatThrownBy(() -> closed.tryAcquireAsync(1).join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(BatonUnavailableException.class);
        assertThat(Measure.millisSince(start)).isLessThan(4 * FAIL_FAST_MS);

        RateLimitDecision granted = open.tryAcquire();
        assertThat(granted.allowed()).isTrue();
        assertThat(granted.failedOpen()).isTrue();
        assertThat(open.tryAcquireAsync(1).join().failedOpen()).isTrue();
        assertThat(open.acquire(1, Duration.ofSeconds(5)).failedOpen()).isTrue();
        assertThat(open.acquireAsync(1, Duration.ofSeconds(5)).join().failedOpen()).isTrue();
        assertThat(open.peek().failedOpen()).isTrue();
        assertThat(open.isFailOpen()).isTrue();
        assertThat(closed.isFailOpen()).isFalse();

        server.restart();
        // Redis kept nothing across the restart (no persistence in tests): the limiter starts full again.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> closed.tryAcquire().remaining() == 4);
        RateLimitDecision counted = open.tryAcquire();
        assertThat(counted.failedOpen()).isFalse();
        assertThat(counted.remaining()).isEqualTo(3);
    }

    @Test
    void aFrozenRedisIsAnsweredWithinTheCommandTimeout() {
        RateLimiter closed = baton.rateLimiter("frozen", RateLimit.of(10, Duration.ofHours(1)));
        closed.tryAcquire();
        redis.server().pause();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class)
                    .hasMessageContaining("did not answer within");
            assertThat(Measure.millisSince(start)).isLessThan(FAIL_FAST_MS);

            start = System.nanoTime();
            assertThat(closed.failOpen().tryAcquire().failedOpen()).isTrue();
            assertThat(Measure.millisSince(start)).isLessThan(FAIL_FAST_MS);

            start = System.nanoTime();
            assertThatThrownBy(() -> closed.tryAcquireAsync(1).join())
                    .hasCauseInstanceOf(BatonUnavailableException.class);
            assertThat(closed.failOpen().tryAcquireAsync(1).join().failedOpen()).isTrue();
            assertThat(Measure.millisSince(start)).isLessThan(2 * FAIL_FAST_MS);
        } finally {
            redis.server().resume();
        }
        // The four calls that timed out were already sent: Redis ran them when it woke, so they may have been charged.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> closed.tryAcquire().allowed());
        assertThat(closed.peek().remaining()).isBetween(3L, 7L);
    }

    @Test
    void onceRedisIsKnownDownFailOpenLimitersAnswerAtOnce() {
        // A command timeout as long as the default, and the rate-limit timeout that keeps decisions from waiting it.
        BatonConfig config = BatonConfig.builder().uri(redis.server().uri()).commandTimeout(Duration.ofSeconds(3))
                .rateLimitTimeout(Duration.ofMillis(200)).build();
        try (Baton patient = Baton.connect(config); LogCapture log = LogCapture.start()) {
            RateLimiter closed = patient.rateLimiter("known-down", FIVE_AN_HOUR);
            RateLimiter open = closed.failOpen();
            assertThat(open.tryAcquire().failedOpen()).isFalse();
            redis.server().pause();
            try {
                long start = System.nanoTime();
                assertThat(open.tryAcquire().failedOpen()).isTrue();
                assertThat(Measure.millisSince(start)).as("the rate-limit timeout, not the command timeout")
                        .isLessThan(2_500);
                assertThat(log.lines(Level.WARN, "fail-open rate limiters grant without checking")).hasSize(1);

                // Known down: 100 decisions that would each wait 200 ms answer without waiting.
                start = System.nanoTime();
                for (int i = 0; i < 50; i++) {
                    assertThat(open.tryAcquire().failedOpen()).isTrue();
                    assertThat(open.tryAcquireAsync(1).join().failedOpen()).isTrue();
                }
                assertThat(Measure.millisSince(start)).as("100 decisions, not 100 x 200 ms").isLessThan(10_000);

                // A fail-closed limiter still asks, and says so within the rate-limit timeout.
                start = System.nanoTime();
                assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class)
                        .hasMessageContaining("did not answer within PT0.2S");
                assertThat(Measure.millisSince(start)).isLessThan(2_500);
            } finally {
                redis.server().resume();
            }
            // A probe sees Redis back: decisions are checked again, and the outage's end is logged.
            await().atMost(Duration.ofSeconds(10)).until(() -> !open.tryAcquire().failedOpen());
            assertThat(log.lines(Level.INFO, "answers again")).hasSize(1);
            String end = log.lines(Level.INFO, "answers again").get(0);
            long unchecked = Long.parseLong(end.replaceAll(".*\\((\\d+) fail-open decisions.*", "$1"));
            assertThat(unchecked).as(end).isGreaterThanOrEqualTo(101);
        }
    }

    @Test
    void withoutAFailOpenGrantTheOutageLogSaysNothingOfUncheckedGrants() {
        try (Baton patient = Baton.connect(fastDecisions()); LogCapture log = LogCapture.start()) {
            RateLimiter closed = patient.rateLimiter("no-fail-open", FIVE_AN_HOUR);
            // A fail-open limiter that exists, and was used before the outage, but not during it.
            RateLimiter open = closed.failOpen();
            assertThat(open.tryAcquire().failedOpen()).isFalse();
            redis.server().pause();
            try {
                assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class);
                assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class);
            } finally {
                redis.server().resume();
            }
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> closed.tryAcquire().allowed());

            // The outage is still a warning, and its end is still told; neither speaks of fail-open grants.
            assertThat(log.lines(Level.WARN, "did not answer within")).as(log.lines().toString()).hasSize(1);
            assertThat(log.lines(Level.INFO, "answers again")).as(log.lines().toString()).hasSize(1);
            assertThat(log.lines()).noneMatch(l -> l.contains("fail-open") || l.contains("unchecked"));
        }
    }

    @Test
    void aFailOpenGrantDuringTheOutageIsToldOnceAndCounted() {
        try (Baton patient = Baton.connect(fastDecisions()); LogCapture log = LogCapture.start()) {
            RateLimiter closed = patient.rateLimiter("some-fail-open", FIVE_AN_HOUR);
            RateLimiter open = closed.failOpen();
            redis.server().pause();
            try {
                // A fail-closed decision finds the outage: no fail-open grant yet, so no word of one.
                assertThatThrownBy(closed::tryAcquire).isInstanceOf(BatonUnavailableException.class);
                assertThat(log.lines(Level.WARN, "did not answer within")).as(log.lines().toString()).hasSize(1);
                assertThat(log.lines()).noneMatch(l -> l.contains("fail-open"));

                // The first unchecked grant is told, once; the others are counted.
                for (int i = 0; i < 4; i++) {
                    assertThat(open.tryAcquire().failedOpen()).isTrue();
                }
                assertThat(log.lines(Level.WARN, "fail-open rate limiters grant without checking"))
                        .as(log.lines().toString()).hasSize(1);
            } finally {
                redis.server().resume();
            }
            // Checked with the fail-closed limiter, so that no grant is added while waiting for Redis.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> closed.tryAcquire().allowed());
            assertThat(log.lines(Level.INFO, "answers again")).as(log.lines().toString())
                    .singleElement().asString().contains("(4 fail-open decisions were granted unchecked meanwhile)");
        }
    }

    /** Decisions that give up on a frozen Redis after 200 ms, with the usual (longer) command timeout. */
    private static BatonConfig fastDecisions() {
        return BatonConfig.builder().uri(redis.server().uri()).commandTimeout(Duration.ofSeconds(3))
                .rateLimitTimeout(Duration.ofMillis(200)).build();
    }

    @Test
    void otherFailuresAreNotHiddenByFailOpen() {
        RateLimiter open = baton.rateLimiter("typed", FIVE_AN_HOUR).failOpen();
        redis.server().command("SET", "baton:rate:{typed}:0g", "not a rate limiter state");
        // A state the script cannot read is treated as empty, not as a failure: the limiter stays usable.
        assertThat(open.tryAcquire().failedOpen()).isFalse();
        redis.server().command("DEL", "baton:rate:{typed}:0g");
        redis.server().command("LPUSH", "baton:rate:{typed}:0g", "wrong type");
        assertThatThrownBy(open::tryAcquire).isInstanceOf(BatonException.class)
                .isNotInstanceOf(BatonUnavailableException.class).hasMessageContaining("WRONGTYPE");
    }
}
