package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit.Algorithm;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The IETF {@code RateLimit} and {@code RateLimit-Policy} fields of real decisions are one description of one limit,
 * for every algorithm and for several limits at once: {@code 0 <= r <= q}, {@code t <= w}, a refusal has {@code r = 0}
 * and a {@code t} no shorter than {@code Retry-After} (up to the window), and both fields name the limit that decided.
 * Each limiter is driven through grants, refusals, peeks and requests of several permits.
 */
class RateLimitFieldsIT {
    private static final Pattern POLICY = Pattern.compile("\"api\";q=(\\d+);w=(\\d+)");
    private static final Pattern FIELD = Pattern.compile("\"api\";r=(\\d+);t=(\\d+)");

    private static final RateLimit GCRA_BURST = RateLimit.builder(5, Duration.ofSeconds(1)).burst(10).build();
    private static final RateLimit GCRA_SMOOTH = RateLimit.builder(100, Duration.ofHours(1)).burst(2).build();
    private static final RateLimit GCRA_ODD = RateLimit.of(3, Duration.ofMillis(1500));
    private static final RateLimit LOG = RateLimit.builder(4, Duration.ofMillis(1500))
            .algorithm(Algorithm.SLIDING_WINDOW_LOG).build();
    private static final RateLimit LOG_HOURLY = RateLimit.builder(12, Duration.ofHours(1))
            .algorithm(Algorithm.SLIDING_WINDOW_LOG).build();
    private static final RateLimit FIXED = RateLimit.builder(4, Duration.ofMillis(1500))
            .algorithm(Algorithm.FIXED_WINDOW).build();
    private static final RateLimit FIXED_HOURLY = RateLimit.builder(3, Duration.ofHours(1))
            .algorithm(Algorithm.FIXED_WINDOW).build();
    private static final RateLimit ONE_AN_HOUR = RateLimit.of(1, Duration.ofHours(1));

    /** What each limit's policy must say, worked out by hand: q the bucket, w the seconds to refill it. */
    private static final Map<RateLimit, long[]> POLICIES = Map.of(
            GCRA_BURST, new long[] {10, 2},
            GCRA_SMOOTH, new long[] {2, 72},
            GCRA_ODD, new long[] {3, 2},
            LOG, new long[] {4, 2},
            LOG_HOURLY, new long[] {12, 3600},
            FIXED, new long[] {4, 2},
            FIXED_HOURLY, new long[] {3, 3600},
            ONE_AN_HOUR, new long[] {1, 3600});

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private Baton baton;
    private int checked;

    @BeforeEach
    void connect() {
        // Patient timeouts: nothing here is about a slow Redis.
        baton = Baton.connect(BatonConfig.builder().uri(redis.server().uri()).commandTimeout(Duration.ofSeconds(5))
                .rateLimitTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void gcraFieldsDescribeTheBucket() {
        // The limiter: emptied, then refused. Policy q=10;w=2, and t never beyond 2.
        List<RateLimitDecision> ds = drive(baton.rateLimiter("gcra-burst", GCRA_BURST));
        RateLimitDecision emptied = ds.stream().filter(d -> d.allowed() && d.limitRemaining() == 0).findFirst()
                .orElseThrow();
        assertThat(emptied.rateLimitField("api")).isEqualTo("\"api\";r=0;t=2");
        drive(baton.rateLimiter("gcra-smooth", GCRA_SMOOTH));
        drive(baton.rateLimiter("gcra-odd", GCRA_ODD));
        assertThat(checked).isGreaterThan(20);
    }

    @Test
    void slidingWindowLogFieldsDescribeTheWindow() {
        drive(baton.rateLimiter("log", LOG));
        drive(baton.rateLimiter("log-hourly", LOG_HOURLY));
    }

    @Test
    void fixedWindowFieldsDescribeTheWindow() {
        drive(baton.rateLimiter("fixed", FIXED));
        drive(baton.rateLimiter("fixed-hourly", FIXED_HOURLY));
    }

    @Test
    void severalLimitsDescribeTheOneThatDecided() {
        List<RateLimitDecision> ds = new ArrayList<>();
        ds.addAll(drive(baton.rateLimiter("burst-and-hourly-log", GCRA_BURST, LOG_HOURLY)));
        ds.addAll(drive(baton.rateLimiter("fixed-and-smooth", FIXED_HOURLY, GCRA_SMOOTH)));
        ds.addAll(drive(baton.rateLimiter("three", LOG, FIXED, GCRA_ODD)));
        ds.addAll(drive(baton.rateLimiter("hourly-pair", LOG_HOURLY, FIXED_HOURLY)));
        // More than one limit decided somewhere, so the fields followed the binding limit, not the first one.
        assertThat(ds.stream().map(RateLimitDecision::limit).distinct().count()).isGreaterThanOrEqualTo(4);
    }

    @Test
    void limitsReservedAheadKeepTWithinTheWindow() {
        // Reservations put a limit further in debt than one window; the fields stay within the policy, and
        // Retry-After tells the rest. (The reservations' futures complete hours from now: nobody waits for them.)
        RateLimiter gcra = baton.rateLimiter("reserved-gcra", ONE_AN_HOUR);
        RateLimiter fixed = baton.rateLimiter("reserved-fixed", FIXED_HOURLY);
        List<CompletableFuture<RateLimitDecision>> reservations = new ArrayList<>();
        check(gcra.tryAcquire());
        check(fixed.tryAcquire(3));
        reservations.add(gcra.tryAcquireAsync(1, Duration.ofHours(3)));
        reservations.add(gcra.tryAcquireAsync(1, Duration.ofHours(3)));
        reservations.add(fixed.tryAcquireAsync(3, Duration.ofHours(2)));

        RateLimitDecision gcraRefused = check(gcra.tryAcquire());
        assertThat(gcraRefused.allowed()).isFalse();
        assertThat(gcraRefused.retryAfterSeconds()).isGreaterThan(3600);
        assertThat(gcraRefused.rateLimitField("api")).isEqualTo("\"api\";r=0;t=3600");
        RateLimitDecision fixedRefused = check(fixed.tryAcquire());
        assertThat(fixedRefused.allowed()).isFalse();
        assertThat(fixedRefused.retryAfterSeconds()).isGreaterThan(3600);
        assertThat(fixedRefused.rateLimitField("api")).isEqualTo("\"api\";r=0;t=3600");
        reservations.forEach(f -> f.cancel(false));
    }

    /**
     * Takes permits one by one (and a request of several, and peeks) until refused, then a little more, checking the
     * fields of every decision; returns the decisions.
     */
    private List<RateLimitDecision> drive(RateLimiter limiter) {
        long smallestBurst = limiter.limits().stream().mapToLong(RateLimit::burst).min().orElseThrow();
        List<RateLimitDecision> ds = new ArrayList<>();
        ds.add(check(limiter.peek()));
        ds.add(check(limiter.peek(smallestBurst)));
        int refusals = 0;
        for (int i = 0; i < 40 && refusals < 3; i++) {
            RateLimitDecision d = check(limiter.tryAcquire());
            ds.add(d);
            if (!d.allowed()) {
                refusals++;
                ds.add(check(limiter.peek()));
                ds.add(check(limiter.tryAcquire(smallestBurst)));
            }
        }
        assertThat(refusals).as("%s was driven to refusals", limiter).isPositive();
        if (smallestBurst > 1) {
            // A refusal of several permits while fewer are left: nothing to report as left beside a 429.
            ds.add(check(limiter.tryAcquire(smallestBurst)));
        }
        return ds;
    }

    private RateLimitDecision check(RateLimitDecision d) {
        String description = d + " of " + d.limit();
        Matcher policy = POLICY.matcher(d.rateLimitPolicyField("api"));
        Matcher field = FIELD.matcher(d.rateLimitField("api"));
        assertThat(policy.matches()).as(d.rateLimitPolicyField("api")).isTrue();
        assertThat(field.matches()).as(d.rateLimitField("api")).isTrue();
        long q = Long.parseLong(policy.group(1));
        long w = Long.parseLong(policy.group(2));
        long r = Long.parseLong(field.group(1));
        long t = Long.parseLong(field.group(2));

        // The policy is the decided limit's, as worked out by hand.
        assertThat(POLICIES).as("a policy worked out for %s", d.limit()).containsKey(d.limit());
        assertThat(new long[] {q, w}).as("policy of %s", description).containsExactly(POLICIES.get(d.limit()));
        assertThat(r).as("r of %s", description).isBetween(0L, q);
        assertThat(t).as("t of %s", description).isBetween(0L, w);
        if (d.allowed()) {
            assertThat(r).as("r of %s", description).isEqualTo(d.limitRemaining());
        } else {
            assertThat(r).as("r of %s", description).isZero();
            assertThat(t).as("t of %s", description).isGreaterThanOrEqualTo(Math.min(d.retryAfterSeconds(), w))
                    .isPositive();
        }
        checked++;
        return d;
    }
}
