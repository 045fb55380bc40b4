package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.RateLimit.Algorithm;
import dev.baton.support.Deployment;
import dev.baton.support.Measure;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TopologyExtension;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rate limiter's everyday contract against a real Redis: what each algorithm admits, the numbers it reports,
 * peeks, reservations, several limits at once, configuration changes and keys that expire. What each algorithm
 * admits, peeks, reservations and several limits run on every topology (one server, Sentinel, Cluster); the
 * arithmetic of rate changes and the reported fields, which no topology changes, on one server. Limits are mostly
 * "per hour", so that nothing is replenished while a test runs unless the test wants it to.
 */
class RateLimiterIT {
    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private static final Duration HOUR = Duration.ofHours(1);
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Deployment deployment;
    private Baton baton;

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        // Patient timeouts: no test here is about a slow Redis, and a loaded machine must not turn a decision into an
        // outage. (The tests of timeouts and outages are in RateLimiterOutageIT.)
        baton = Baton.connect(deployment.builder().commandTimeout(Duration.ofSeconds(5))
                .rateLimitTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
    }

    @OnEveryTopology
    void gcraAdmitsItsBurstThenRefusesWithRetryAndResetTimes() {
        RateLimiter limiter = baton.rateLimiter("api", RateLimit.of(10, HOUR)); // one permit every 6 minutes
        long scripts = deployment.scriptsRun();
        for (int i = 9; i >= 0; i--) {
            RateLimitDecision d = limiter.tryAcquire();
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(i);
            assertThat(d.retryAfter()).isZero();
        }
        RateLimitDecision refused = limiter.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isZero();
        assertThat(refused.retryAfter()).isBetween(Duration.ofMinutes(6).minusSeconds(2), Duration.ofMinutes(6));
        assertThat(refused.resetAfter()).isBetween(HOUR.minusSeconds(2), HOUR);
        assertThat(refused.retryAfterSeconds()).isBetween(358L, 360L);
        assertThat(refused.limit()).isEqualTo(RateLimit.of(10, HOUR));
        assertThat(refused.failedOpen()).isFalse();
        assertThat(deployment.scriptsRun() - scripts).as("one script per decision").isEqualTo(11);
    }

    @OnEveryTopology
    void anExhaustedLimiterRepeatsItsRefusalWithoutAskingRedis() {
        RateLimiter limiter = baton.rateLimiter("exhausted", RateLimit.builder(3, HOUR)
                .algorithm(RateLimit.Algorithm.FIXED_WINDOW).build());
        assertThat(limiter.tryAcquire(2).allowed()).isTrue();
        RateLimitDecision refused = limiter.tryAcquire(2);
        assertThat(refused.allowed()).isFalse();

        long scripts = deployment.scriptsRun();
        for (int i = 0; i < 100; i++) {
            RateLimitDecision again = limiter.tryAcquire(2 + i % 2);
            assertThat(again.allowed()).isFalse();
            assertThat(again.remaining()).isEqualTo(1);
            assertThat(again.retryAfter()).isPositive().isLessThanOrEqualTo(refused.retryAfter());
        }
        assertThat(deployment.scriptsRun() - scripts).as("answered locally").isZero();
        assertThat(limiter.tryAcquire(1).allowed()).as("fewer permits: Redis is asked").isTrue();
        assertThat(limiter.peek().allowed()).as("a peek always asks Redis").isFalse();
        long learned = System.nanoTime(); // the peek's refusal is held from when it was sent, before this
        assertThat(deployment.scriptsRun() - scripts).isEqualTo(2);

        // Redis's retry is up to an hour away, but the refusal is repeated for at most 1 s before Redis is asked
        // again, so that a limit raised elsewhere is seen.
        RateLimiter raisedElsewhere = baton.rateLimiter("exhausted", RateLimit.builder(10, HOUR)
                .algorithm(RateLimit.Algorithm.FIXED_WINDOW).build());
        assertThat(raisedElsewhere.peek().allowed()).isTrue();
        // Judged by the limiter's own rule, not by a wall-clock bound that a loaded machine could stretch: once 1 s
        // has passed since the refusal was learnt, the very next call asks Redis.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> Measure.millisSince(learned) > 1_000);
        long before = deployment.scriptsRun();
        assertThat(limiter.tryAcquire(2).allowed()).isFalse();
        assertThat(scriptsSince(before)).as("held for at most 1 s").isEqualTo(1);
    }

    @Test
    void aRefusalRepeatedLocallyReportsTheRealTimeLeft() {
        RateLimiter limiter = baton.rateLimiter("hourly", RateLimit.of(1, HOUR));
        assertThat(limiter.tryAcquire().allowed()).isTrue();
        long refusedAt = System.nanoTime();
        RateLimitDecision refused = limiter.tryAcquire();
        assertThat(refused.retryAfter()).isBetween(HOUR.minusSeconds(5), HOUR);
        long scripts = deployment.scriptsRun();
        RateLimitDecision again = limiter.tryAcquire();
        assertThat(deployment.scriptsRun() - scripts).as("answered locally").isZero();
        // The local answer counts Redis's retry down; it does not cap it at the 1 s it is held for.
        assertThat(again.retryAfter()).isLessThanOrEqualTo(refused.retryAfter())
                .isGreaterThan(refused.retryAfter().minusMillis(Measure.millisSince(refusedAt) + 50));
        assertThat(again.retryAfterSeconds()).isGreaterThan(3590);
        assertThat(again.resetAfter()).isGreaterThan(HOUR.minusSeconds(10));
        assertThat(again.rateLimitField("api")).isEqualTo(refused.rateLimitField("api"));
    }

    @OnEveryTopology
    void gcraWithABurstBelowTheRateSpreadsThePermits() {
        RateLimiter limiter = baton.rateLimiter("smooth", RateLimit.builder(100, HOUR).burst(2).build());
        assertThat(limiter.tryAcquire(2).allowed()).isTrue();
        RateLimitDecision refused = limiter.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).as("one emission interval: 36 s")
                .isBetween(Duration.ofSeconds(35), Duration.ofSeconds(36));
    }

    @Test
    void emissionIntervalsThatAreNotWholeMicrosecondsStayExact() {
        // 3 per second: one every 333,333.33 µs. Integer ticks of 1/3 µs keep the third.
        RateLimiter limiter = baton.rateLimiter("thirds", RateLimit.builder(3, Duration.ofSeconds(1)).burst(1).build());
        assertThat(limiter.tryAcquire().allowed()).isTrue();
        RateLimitDecision refused = limiter.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofNanos(333_334_000));
        assertThat(refused.resetAfter()).isEqualTo(refused.retryAfter());
    }

    @OnEveryTopology
    void peekTellsWithoutTaking() {
        RateLimiter limiter = baton.rateLimiter("quota", RateLimit.of(5, HOUR));
        for (int i = 0; i < 20; i++) {
            RateLimitDecision d = limiter.peek();
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(4);
        }
        assertThat(limiter.tryAcquire(3).remaining()).isEqualTo(2);
        assertThat(limiter.peek(2).allowed()).isTrue();
        assertThat(limiter.peek(3).allowed()).isFalse();
        assertThat(limiter.peek(3).retryAfter()).isPositive();
        assertThat(limiter.tryAcquire(2).allowed()).as("the peeks took nothing").isTrue();
        baton.rateLimiter("fresh", RateLimit.of(5, HOUR)).peek();
        assertThat(keys()).as("a peek on a fresh limiter writes nothing").noneMatch(k -> k.contains("{fresh}"));
    }

    @OnEveryTopology
    void severalLimitsAreChargedAllOrNothing() {
        RateLimit hourly = RateLimit.of(5, HOUR);
        RateLimit tight = RateLimit.of(3, HOUR);
        RateLimiter both = baton.rateLimiter("tenant", hourly, tight);
        for (int i = 0; i < 3; i++) {
            assertThat(both.tryAcquire().allowed()).isTrue();
        }
        RateLimitDecision refused = both.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).as("the binding limit").isEqualTo(tight);

        // The same first limit, seen alone: charged for the three granted calls, not for the refused one.
        RateLimiter firstAlone = baton.rateLimiter("tenant", hourly);
        assertThat(firstAlone.peek().remaining()).isEqualTo(1);
        assertThat(both.tryAcquire().allowed()).isFalse();
        assertThat(firstAlone.peek().remaining()).isEqualTo(1);
    }

    @Test
    void aLimiterOfOneGcraLimitAnswersAsTheGeneralPathDoes() throws Exception {
        // The script has a shortcut for the common limiter of one GCRA limit. The same limit next to a limit that
        // never binds goes the general way; both must answer alike, step by step.
        long start = System.nanoTime();
        RateLimit gcra = RateLimit.builder(5, Duration.ofSeconds(1)).burst(5).build();
        RateLimit neverBinds = RateLimit.of(1_000_000, Duration.ofSeconds(1)); // and is full again within µs
        RateLimiter solo = baton.rateLimiter("solo", gcra);
        RateLimiter pair = baton.rateLimiter("pair", gcra, neverBinds);
        assertAlike(start, "take 3", () -> solo.tryAcquire(3), () -> pair.tryAcquire(3));
        assertAlike(start, "peek 3", () -> solo.peek(3), () -> pair.peek(3));
        assertAlike(start, "take 3, refused", () -> solo.tryAcquire(3), () -> pair.tryAcquire(3));
        assertAlike(start, "take 2", () -> solo.tryAcquire(2), () -> pair.tryAcquire(2));
        assertAlike(start, "peek 1, refused", solo::peek, pair::peek);
        // Both reservations are sent before either is awaited, so that both are decided at the same moment.
        CompletableFuture<RateLimitDecision> soloReserved = solo.acquireAsync(2, Duration.ofSeconds(2));
        CompletableFuture<RateLimitDecision> pairReserved = pair.acquireAsync(2, Duration.ofSeconds(2));
        assertAlike(start, "reserve 2", soloReserved::join, pairReserved::join);

        // A rate change: the converted debt is stored by a peek, on both paths.
        RateLimit slower = RateLimit.builder(2, Duration.ofSeconds(1)).burst(4).build();
        RateLimiter soloSlower = baton.rateLimiter("solo", slower);
        RateLimiter pairSlower = baton.rateLimiter("pair", slower, neverBinds);
        assertAlike(start, "peek after the change", soloSlower::peek, pairSlower::peek);
        assertAlike(start, "take after the change", soloSlower::tryAcquire, pairSlower::tryAcquire);
    }

    /**
     * Runs both calls, one after the other, and compares their answers. Each limiter went through the same steps, a
     * moment apart on the Redis clock, so their times may differ by at most the time since the first step (plus a
     * millisecond of rounding): a bound that a loaded machine widens as much as it delays the calls.
     */
    private static void assertAlike(long start, String step, Callable<RateLimitDecision> one,
                                    Callable<RateLimitDecision> general) throws Exception {
        RateLimitDecision first = one.call();
        RateLimitDecision second = general.call();
        assertThat(first.allowed()).as(step + ": allowed").isEqualTo(second.allowed());
        assertThat(first.remaining()).as(step + ": remaining").isEqualTo(second.remaining());
        assertThat(first.limit()).as(step + ": binding limit").isEqualTo(second.limit());
        Duration apart = Duration.ofMillis(Measure.millisSince(start) + 1);
        assertThat(first.retryAfter().minus(second.retryAfter()).abs()).as(step + ": retryAfter")
                .isLessThanOrEqualTo(apart);
        assertThat(first.resetAfter().minus(second.resetAfter()).abs()).as(step + ": resetAfter")
                .isLessThanOrEqualTo(apart);
    }

    @OnEveryTopology
    void allLimitsOfOneLimiterLiveInOneHashSlot() {
        baton.rateLimiter("slot{test}", RateLimit.of(5, HOUR),
                RateLimit.builder(5, HOUR).algorithm(Algorithm.SLIDING_WINDOW_LOG).build(),
                RateLimit.builder(5, HOUR).algorithm(Algorithm.FIXED_WINDOW).build()).tryAcquire();
        List<String> keys = keys();
        assertThat(keys).hasSize(4);
        assertThat(keys.stream().map(SlotHash::getSlot).distinct()).as("slots of %s", keys).hasSize(1);
    }

    @Test
    void aRateChangeKeepsTheSpentPermits() {
        assertThat(baton.rateLimiter("plan", RateLimit.of(10, HOUR)).tryAcquire(6).remaining()).isEqualTo(4);

        // Upgrade: 20 an hour. The 6 spent stay spent.
        RateLimiter upgraded = baton.rateLimiter("plan", RateLimit.of(20, HOUR));
        assertThat(upgraded.peek().remaining()).isEqualTo(13);

        // Another period, same algorithm: the spent permits carry over in the new period.
        RateLimiter perDay = baton.rateLimiter("plan", RateLimit.of(240, Duration.ofDays(1)));
        assertThat(perDay.tryAcquire().remaining()).isEqualTo(240 - 7);

        // Downgrade below what was spent: refused, not reset.
        RateLimiter downgraded = baton.rateLimiter("plan", RateLimit.of(4, HOUR));
        RateLimitDecision refused = downgraded.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("a full burst of debt at most").isLessThanOrEqualTo(HOUR);

        // Another algorithm at the same position starts that limit afresh; the GCRA state is left to expire.
        RateLimiter fixed = baton.rateLimiter("plan", RateLimit.builder(4, HOUR).algorithm(Algorithm.FIXED_WINDOW)
                .build());
        assertThat(fixed.tryAcquire().remaining()).isEqualTo(3);
        assertThat(downgraded.peek().allowed()).as("the GCRA limit still remembers its debt").isFalse();
    }

    @Test
    void windowLimitsKeepTheirCountAcrossARateChange() {
        for (Algorithm algorithm : List.of(Algorithm.SLIDING_WINDOW_LOG, Algorithm.FIXED_WINDOW)) {
            String name = "window-" + algorithm;
            baton.rateLimiter(name, RateLimit.builder(10, HOUR).algorithm(algorithm).build()).tryAcquire(6);
            RateLimiter raised = baton.rateLimiter(name, RateLimit.builder(20, HOUR).algorithm(algorithm).build());
            assertThat(raised.peek().remaining()).as(algorithm.name()).isEqualTo(13);
            RateLimiter lowered = baton.rateLimiter(name, RateLimit.builder(5, HOUR).algorithm(algorithm).build());
            assertThat(lowered.tryAcquire().allowed()).as(algorithm.name()).isFalse();
        }
    }

    @OnEveryTopology
    void slidingWindowLogAdmitsExactlyItsPermitsInAnyWindow() {
        Duration window = Duration.ofMillis(800);
        RateLimiter limiter = baton.rateLimiter("log",
                RateLimit.builder(3, window).algorithm(Algorithm.SLIDING_WINDOW_LOG).build());
        long first = System.nanoTime();
        assertThat(limiter.tryAcquire().allowed()).isTrue();
        assertThat(limiter.tryAcquire(2).allowed()).isTrue();
        RateLimitDecision refused = limiter.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).as("when the first entry leaves the window")
                .isLessThanOrEqualTo(window).isGreaterThan(window.minusMillis(Measure.millisSince(first) + 50));
        // A reservation waits exactly for the first entry to leave; the two-permit entry is still in the window.
        RateLimitDecision reserved = timed(() -> limiter.acquire(1, Duration.ofSeconds(5)));
        assertThat(reserved.allowed()).isTrue();
        assertThat(Measure.millisSince(first)).isBetween(window.toMillis() - 60, window.toMillis() + 2000);
    }

    @OnEveryTopology
    void fixedWindowsAreAlignedToThePeriodOnTheRedisClock() {
        RateLimiter limiter = baton.rateLimiter("fixed", RateLimit.builder(3, HOUR).algorithm(Algorithm.FIXED_WINDOW)
                .build());
        assertThat(limiter.tryAcquire(3).allowed()).isTrue();
        RateLimitDecision refused = limiter.tryAcquire();
        long nowMicros = redisMicros();
        long hourMicros = HOUR.toNanos() / 1000;
        Duration toNextHour = Duration.ofNanos((hourMicros - nowMicros % hourMicros) * 1000);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isBetween(toNextHour.minusSeconds(1), toNextHour.plusSeconds(1));
        assertThat(refused.resetAfter()).isEqualTo(refused.retryAfter());
    }

    @Test
    void acquireReservesAndWaitsOnlyWhenTheWaitFitsMaxWait() throws Exception {
        // One permit every 10 s, no burst: a call that waited for the next permit would take seconds, which no
        // loaded machine's slowness can be mistaken for.
        RateLimiter slow = baton.rateLimiter("slow", RateLimit.builder(6, Duration.ofMinutes(1)).burst(1).build());
        assertThat(slow.acquire(1, Duration.ZERO).allowed()).isTrue();
        long refusedAt = System.nanoTime();
        RateLimitDecision refused = slow.tryAcquire(1, Duration.ofMillis(50));
        assertThat(Measure.millisSince(refusedAt)).as("gives up at once").isLessThan(5_000);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(slow.peek().retryAfter()).as("the refused call reserved nothing")
                .isLessThanOrEqualTo(refused.retryAfter());
        // acquire cannot be mistaken for a grant: it throws, with the same refusal, and reserves nothing either.
        assertThatThrownBy(() -> slow.acquire(1, Duration.ofMillis(50)))
                .isInstanceOfSatisfying(RateLimitExceededException.class, e -> {
                    assertThat(e.decision().allowed()).isFalse();
                    assertThat(e.decision().retryAfter()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
                    assertThat(e.getMessage()).contains("'slow'", "1 permit", "PT0.05S", "retry after");
                });
        assertThat(slow.peek().retryAfter()).as("the throwing call reserved nothing")
                .isLessThanOrEqualTo(refused.retryAfter());

        // One permit every 500 ms, no burst.
        RateLimiter limiter = baton.rateLimiter("paced", RateLimit.builder(2, Duration.ofSeconds(1)).burst(1).build());
        long start = System.nanoTime(); // before the first grant, whose Redis time starts the intervals
        assertThat(limiter.acquire(1, Duration.ZERO).allowed()).isTrue();

        // Three callers at once, each willing to wait 3 s: each reserves its own slot, 500 ms apart.
        List<Callable<Long>> callers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            callers.add(() -> {
                assertThat(limiter.acquire(1, Duration.ofSeconds(3)).allowed()).isTrue();
                return System.nanoTime();
            });
        }
        List<Long> done = new ArrayList<>();
        for (Future<Long> f : threads.invokeAll(callers)) {
            done.add(f.get());
        }
        Collections.sort(done);
        // No caller returns before its own slot (500, 1000 and 1500 ms after the first grant). Judged against the
        // slots, not the gaps between returns: a loaded machine may wake one caller late, which shortens the gap to
        // the next without anyone having been early.
        for (int i = 0; i < done.size(); i++) {
            assertThat((done.get(i) - start) / 1_000_000).as("caller %d's slot", i + 1)
                    .isGreaterThanOrEqualTo((i + 1) * 500L - 10);
        }
    }

    @Test
    void acquireAsyncCompletesWhenTheReservationIsDue() {
        RateLimiter limiter = baton.rateLimiter("async", RateLimit.builder(2, Duration.ofSeconds(1)).burst(1).build());
        long start = System.nanoTime(); // before the first grant, whose Redis time starts the 500 ms
        assertThat(limiter.tryAcquireAsync(1).join().allowed()).isTrue();
        CompletableFuture<RateLimitDecision> reserved = limiter.acquireAsync(1, Duration.ofSeconds(1));
        // While the reservation waits, the permit after it is a whole interval further: who will not wait is refused.
        // (Asked before the reservation is due, so that a slow machine cannot let that next permit come due first.)
        assertThat(limiter.tryAcquireAsync(1, Duration.ZERO).join().allowed()).isFalse();
        assertThatThrownBy(() -> limiter.acquireAsync(1, Duration.ZERO).join())
                .isInstanceOf(CompletionException.class).cause().isInstanceOfSatisfying(
                        RateLimitExceededException.class, e -> assertThat(e.decision().allowed()).isFalse());
        assertThat(reserved.join().allowed()).isTrue();
        assertThat(Measure.millisSince(start)).isBetween(499L, 3000L);
        CompletableFuture<RateLimitDecision> later = limiter.tryAcquireAsync(1, Duration.ofSeconds(1));
        assertThat(later.join().allowed()).as("tryAcquireAsync with a wait reserves and completes when due").isTrue();
    }

    @Test
    void keysExpireOnceTheLimitIsFullAgain() {
        Duration period = Duration.ofSeconds(2);
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimiter limiter = baton.rateLimiter("idle-" + algorithm,
                    RateLimit.builder(4, period).algorithm(algorithm).build());
            limiter.tryAcquire(3);
        }
        for (String key : List.of("baton:rate:{idle-GCRA}:0g", "baton:rate:{idle-SLIDING_WINDOW_LOG}:0s",
                "baton:rate:{idle-SLIDING_WINDOW_LOG}:0s:totals", "baton:rate:{idle-FIXED_WINDOW}:0f")) {
            long pttl = Long.parseLong(deployment.command(key, "PTTL", key));
            if (key.endsWith("f")) {
                // lives until the aligned window ends, which may be any moment: gone (-2) is fine, no TTL (-1) is not
                assertThat(pttl).as("TTL of %s", key).isNotEqualTo(-1L).isLessThanOrEqualTo(period.toMillis());
            } else {
                assertThat(pttl).as("TTL of %s", key).isBetween(1L, period.toMillis());
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> keys().isEmpty());
    }

    @Test
    void aCombinedReservationChargesGcraForTheMomentThePermitsAreUsed() throws Exception {
        RateLimit gcra = RateLimit.builder(1, Duration.ofSeconds(1)).burst(1).build();
        RateLimit log = RateLimit.builder(1, Duration.ofSeconds(2)).algorithm(Algorithm.SLIDING_WINDOW_LOG).build();
        RateLimiter both = baton.rateLimiter("combined", gcra, log);
        assertThat(both.tryAcquire().allowed()).isTrue();
        // The log makes the next permit wait 2 s; GCRA alone would have allowed it after 1 s.
        assertThat(both.acquire(1, Duration.ofSeconds(5)).allowed()).isTrue();
        // GCRA was charged for the moment of use, so its next permit is a whole interval later, not due already.
        // (Charged from now instead, it would have been due 1 s before this peek.)
        assertThat(baton.rateLimiter("combined", gcra).peek().allowed()).isFalse();
    }

    @Test
    void aLowerRateWithTheSamePeriodOutlivesTheOldKeysTtl() {
        Duration period = Duration.ofSeconds(10);
        baton.rateLimiter("downgrade", RateLimit.of(10, period)).tryAcquire(6); // 6 s of debt: TTL 6 s
        RateLimiter lowered = baton.rateLimiter("downgrade", RateLimit.of(1, period));
        // 6 spent, capped at the new burst of 1: a whole 10 s interval to wait, and the key must last as long.
        RateLimitDecision refused = lowered.peek();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(7));
        assertThat(Long.parseLong(deployment.command("baton:rate:{downgrade}", "PTTL", "baton:rate:{downgrade}:0g")))
                .as("TTL of the converted state, beyond the old 6 s").isGreaterThan(7_000L);

        baton.rateLimiter("burst", RateLimit.builder(1000, HOUR).burst(1000).build()).tryAcquire(1000);
        RateLimitDecision smallerBurst = baton.rateLimiter("burst", RateLimit.builder(1000, HOUR).burst(10).build())
                .tryAcquire();
        assertThat(smallerBurst.allowed()).isFalse();
        assertThat(smallerBurst.retryAfter()).as("debt capped at the new burst: one 3.6 s interval")
                .isBetween(Duration.ofSeconds(3), Duration.ofMillis(3600));
    }

    @Test
    void theSlidingLogTotalsMatchTheLogAndAreRebuiltWhenLost() throws Exception {
        RateLimiter limiter = baton.rateLimiter("totals",
                RateLimit.builder(5, Duration.ofMillis(500)).algorithm(Algorithm.SLIDING_WINDOW_LOG).build());
        limiter.tryAcquire(2);
        limiter.tryAcquire(2);
        limiter.tryAcquire(2); // refused
        assertThat(limiter.acquire(2, Duration.ofSeconds(2)).allowed()).isTrue(); // waits for the first entry to leave
        limiter.peek();
        assertThat(totalsSum("totals")).isEqualTo(logSum("totals"));

        deployment.command("baton:rate:{totals}", "DEL", "baton:rate:{totals}:0s:totals");
        long entries = Long.parseLong(deployment.command("baton:rate:{totals}", "ZCARD", "baton:rate:{totals}:0s"));
        assertThat(limiter.tryAcquire().allowed()).isTrue();
        // At most one entry (the second) has left the window meanwhile; the new one must be added, not overwrite.
        assertThat(Long.parseLong(deployment.command("baton:rate:{totals}", "ZCARD", "baton:rate:{totals}:0s")))
                .as("a new entry, not an old one overwritten").isGreaterThanOrEqualTo(entries);
        assertThat(totalsSum("totals")).isEqualTo(logSum("totals"));
    }

    @Test
    void theSlidingLogTrimsAtMost256ExpiredEntriesPerCallAndAPeekTidiesToo() {
        // A batch of more than two calls' trimming, in a period it cannot outlast even on a loaded machine (600 calls
        // in 5 s), so that no call of the batch trims any of it. However much of it has left the window (and been
        // trimmed by the next call, at most 256) when that call runs, more than 256 expired entries are left for the
        // peek below. (With 300 entries in 2 s, a batch that took over a second on a loaded CI machine left the peek
        // fewer than 256 to drop.)
        Duration period = Duration.ofSeconds(5);
        RateLimiter limiter = baton.rateLimiter("trim",
                RateLimit.builder(1000, period).algorithm(Algorithm.SLIDING_WINDOW_LOG).build());
        int batch = 600;
        for (int i = 0; i < batch; i++) {
            limiter.tryAcquire();
        }
        long lastOfBatch = logScore("trim", "-1");
        long periodMicros = period.toNanos() / 1000;
        // Half a period after the batch's last entry (not its first: on a loaded machine the batch itself may take
        // longer than that), so that this entry is still in the window when the batch has left it below.
        await().atMost(Duration.ofSeconds(10)).until(() -> redisMicros() > lastOfBatch + periodMicros / 2);
        assertThat(limiter.tryAcquire().allowed()).isTrue(); // stays live after the batch has left the window
        long before = logSize("trim"); // what is left of the batch, and this entry
        assertThat(before).as("a call drops at most 256 expired entries").isGreaterThanOrEqualTo(batch + 1 - 256);
        await().atMost(Duration.ofSeconds(10)).until(() -> redisMicros() > lastOfBatch + periodMicros);

        limiter.peek(); // charges nothing, but drops up to 256 expired entries and keeps the totals right
        assertThat(logSize("trim")).isEqualTo(before - 256);
        assertThat(totalsSum("trim")).isEqualTo(logSum("trim"));
        limiter.peek();
        limiter.peek();
        assertThat(logSize("trim")).isEqualTo(1);
        assertThat(totalsSum("trim")).isEqualTo(logSum("trim")).isEqualTo(1);
    }

    private long logSize(String name) {
        return Long.parseLong(deployment.command("baton:rate:{" + name + "}", "ZCARD", "baton:rate:{" + name + "}:0s"));
    }

    @OnEveryTopology
    void aFixedWindowReservesIntoTheNextWindowOnly() {
        // A period whose current window has at least 3 s left, so that no boundary passes during the test.
        Duration period = List.of(10, 11, 13, 17, 19, 23, 29, 31, 37).stream().map(Duration::ofSeconds)
                .filter(p -> toWindowEnd(p).compareTo(Duration.ofSeconds(3)) > 0).findFirst().orElseThrow();
        RateLimiter limiter = baton.rateLimiter("windows",
                RateLimit.builder(2, period).algorithm(Algorithm.FIXED_WINDOW).build());
        assertThat(limiter.tryAcquire(2).allowed()).isTrue();
        Duration maxWait = period.multipliedBy(3);
        CompletableFuture<RateLimitDecision> first = limiter.acquireAsync(1, maxWait);
        CompletableFuture<RateLimitDecision> second = limiter.acquireAsync(1, maxWait);
        RateLimitDecision third = limiter.tryAcquireAsync(1, maxWait).join();
        assertThat(third.allowed()).as("the next window is full and a later one cannot be reserved").isFalse();
        Duration toEnd = toWindowEnd(period);
        assertThat(third.retryAfter()).isBetween(toEnd.plus(period).minusSeconds(1), toEnd.plus(period).plusSeconds(1));
        assertThat(third.resetAfter()).isEqualTo(third.retryAfter());
        assertThat(first).as("due when the next window starts").isNotDone();
        assertThat(second).isNotDone();
    }

    @Test
    void anInterruptedCallerReservesNothing() {
        RateLimiter limiter = baton.rateLimiter("interrupted", RateLimit.builder(1, HOUR).build());
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> limiter.acquire(1, Duration.ofSeconds(1)))
                    .isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(limiter.peek().allowed()).isTrue();
    }

    @OnEveryTopology
    void asyncResultsAreNotDeliveredOnTheRedisClientsEventLoop() {
        RateLimiter limiter = baton.rateLimiter("threads", RateLimit.builder(5, Duration.ofMillis(500)).burst(1).build());
        for (CompletableFuture<RateLimitDecision> f : List.of(limiter.tryAcquireAsync(1),
                limiter.acquireAsync(1, Duration.ofSeconds(2)), limiter.tryAcquireAsync(1))) {
            String thread = f.thenApply(d -> Thread.currentThread().getName()).join();
            assertThat(thread).doesNotContainIgnoringCase("eventloop");
        }
    }

    @Test
    void aFastRateStillGetsATtlOfAtLeastOneMillisecond() {
        RateLimiter limiter = baton.rateLimiter("fast", RateLimit.of(1_000_000, Duration.ofSeconds(1)));
        assertThat(limiter.tryAcquire().allowed()).isTrue();
        // 1 µs of debt: the key must still expire, never be written without a TTL.
        for (String key : keys()) {
            assertThat(Long.parseLong(deployment.command(key, "PTTL", key))).isNotEqualTo(-1L);
        }
    }

    @Test
    void decisionsGiveTheIetfFields() {
        RateLimiter limiter = baton.rateLimiter("http", RateLimit.of(100, Duration.ofMinutes(1)));
        RateLimitDecision d = limiter.tryAcquire(40);
        assertThat(d.rateLimitPolicyField("api")).isEqualTo("\"api\";q=100;w=60");
        assertThat(d.rateLimitField("api")).isEqualTo("\"api\";r=60;t=24");
        RateLimitDecision perHalfSecond = baton.rateLimiter("http2", RateLimit.of(5, Duration.ofMillis(500)))
                .peek();
        // The policy is the bucket: it holds 5 and refills in 0.5 s, within a whole second.
        assertThat(perHalfSecond.rateLimitPolicyField("api")).isEqualTo("\"api\";q=5;w=1");
        // A refill time that is no whole number of seconds is rounded up: 3 per 1.5 s is 3 per 2 s, never 4.
        RateLimitDecision oddPeriod = baton.rateLimiter("http3", RateLimit.of(3, Duration.ofMillis(1500))).peek();
        assertThat(oddPeriod.rateLimitPolicyField("api")).isEqualTo("\"api\";q=3;w=2");
    }

    @Test
    void theIetfFieldsOfSeveralLimitsDescribeTheBindingLimitAlone() {
        RateLimit perSecond = RateLimit.builder(5, Duration.ofSeconds(1)).burst(10).build();
        RateLimit perHour = RateLimit.of(12, HOUR);
        RateLimiter limiter = baton.rateLimiter("mixed", perSecond, perHour);
        RateLimitDecision granted = limiter.tryAcquire(10);
        assertThat(granted.limit()).as("fewest left").isEqualTo(perSecond);
        // The bucket of 10 at 5/s refills in 2 s: the policy says so, and t never exceeds it.
        assertThat(granted.rateLimitPolicyField("api")).isEqualTo("\"api\";q=10;w=2");
        assertThat(granted.rateLimitField("api")).isEqualTo("\"api\";r=0;t=2");

        // Refused by the 5/s limit: every figure of both fields is that limit's, none the hourly one's.
        RateLimitDecision refused = baton.rateLimiter("mixed", perSecond, perHour).tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(perSecond);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        assertThat(refused.resetAfter()).as("the decision's own reset is the longest").isGreaterThan(
                Duration.ofMinutes(49));
        assertThat(refused.rateLimitPolicyField("api")).isEqualTo("\"api\";q=10;w=2");
        assertThat(refused.rateLimitField("api")).matches("\"api\";r=0;t=[12]");

        // Once the hourly limit binds, both fields describe it.
        await().atMost(Duration.ofSeconds(10)).until(() -> limiter.peek(2).allowed());
        RateLimitDecision hourlyLeft = limiter.tryAcquire(2);
        assertThat(hourlyLeft.limit()).isEqualTo(perHour);
        assertThat(hourlyLeft.rateLimitPolicyField("api")).isEqualTo("\"api\";q=12;w=3600");
        assertThat(hourlyLeft.rateLimitField("api")).isEqualTo("\"api\";r=0;t=3600");
        RateLimitDecision hourlyRefused = baton.rateLimiter("mixed", perSecond, perHour).tryAcquire();
        assertThat(hourlyRefused.limit()).isEqualTo(perHour);
        assertThat(hourlyRefused.rateLimitField("api")).isEqualTo("\"api\";r=0;t=3600");
        assertThat(hourlyRefused.retryAfterSeconds()).isBetween(295L, 300L); // one of 12 an hour: 5 minutes
    }

    @OnEveryTopology
    void aScriptFlushBetweenDecisionsIsRecoveredFrom() {
        RateLimiter limiter = baton.rateLimiter("flush", RateLimit.of(5, HOUR));
        limiter.tryAcquire();
        deployment.command("baton:rate:{flush}", "SCRIPT", "FLUSH");
        assertThat(limiter.tryAcquire().remaining()).isEqualTo(3);
    }

    private RateLimitDecision timed(Callable<RateLimitDecision> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private long scriptsSince(long before) {
        return deployment.scriptsRun() - before;
    }

    private long logScore(String name, String index) {
        String[] entry = deployment.command("baton:rate:{" + name + "}", "ZRANGE",
                "baton:rate:{" + name + "}:0s", index, index, "WITHSCORES")
                .split("\n");
        return (long) Double.parseDouble(entry[1].trim());
    }

    private long totalsSum(String name) {
        return Long.parseLong(deployment.command("baton:rate:{" + name + "}", "HGET",
                "baton:rate:{" + name + "}:0s:totals", "sum"));
    }

    private long logSum(String name) {
        String members = deployment.command("baton:rate:{" + name + "}", "ZRANGE",
                "baton:rate:{" + name + "}:0s", "0", "-1");
        return Arrays.stream(members.split("\n")).filter(m -> !m.isBlank())
                .mapToLong(m -> Long.parseLong(m.trim().split(":")[1])).sum();
    }

    private Duration toWindowEnd(Duration period) {
        long periodMicros = period.toNanos() / 1000;
        return Duration.ofNanos((periodMicros - redisMicros() % periodMicros) * 1000);
    }

    private List<String> keys() {
        return deployment.keys("baton:rate:*");
    }

    /** The time of a master; all nodes of every topology run on this machine, so any master's clock will do. */
    private long redisMicros() {
        String[] time = deployment.masters().get(0).command("TIME").split("\n");
        return Long.parseLong(time[0].trim()) * 1_000_000 + Long.parseLong(time[1].trim());
    }
}
