package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every public method with bad arguments: rejected before any Redis call, with a message naming the parameter. */
class ArgumentValidationIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private Baton baton;
    private DistributedLock lock;
    private long commandsBefore;

    @BeforeEach
    void connect() {
        // Patient: these tests are about argument checks, not timeouts; a loaded machine must not fail the set-up.
        baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()));
        lock = baton.lock("valid");
        commandsBefore = commandsProcessed();
    }

    @AfterEach
    void noRedisCallWasMade() {
        // the INFO that reads the counter counts itself once
        assertThat(commandsProcessed()).as("commands sent to Redis").isEqualTo(commandsBefore + 1);
        baton.close();
    }

    @Test
    void connectAndConfig() {
        rejects(() -> Baton.connect((String) null), NullPointerException.class, "redisUri");
        rejects(() -> Baton.connect((BatonConfig) null), NullPointerException.class, "config");
        rejects(() -> Baton.connect("localhost:6379"), IllegalArgumentException.class, "uri");
        rejects(() -> Baton.connect("http://localhost:6379"), IllegalArgumentException.class, "uri must start with");
        rejects(() -> Baton.connect("redis://:pw@exa mple:1"), IllegalArgumentException.class, "uri");
        rejects(() -> BatonConfig.builder().build(), IllegalArgumentException.class, "uri is required");
        rejects(() -> BatonConfig.builder().uri(null), NullPointerException.class, "uri");
        rejects(() -> config().namespace(" ").build(), IllegalArgumentException.class, "namespace");
        rejects(() -> config().namespace("a{b").build(), IllegalArgumentException.class, "namespace");
        rejects(() -> config().namespace(null), NullPointerException.class, "namespace");
        rejects(() -> config().watchdogLease(Duration.ZERO).build(), IllegalArgumentException.class,
                "watchdogLease must be positive");
        rejects(() -> config().commandTimeout(Duration.ofSeconds(-1)).build(), IllegalArgumentException.class,
                "commandTimeout must be positive");
        rejects(() -> config().recheckInterval(Duration.ZERO).build(), IllegalArgumentException.class,
                "recheckInterval");
        rejects(() -> config().fencingTokenRetention(Duration.ZERO).build(), IllegalArgumentException.class,
                "fencingTokenRetention");
        rejects(() -> config().commandTimeout(null), NullPointerException.class, "commandTimeout");
        rejects(() -> config().recheckInterval(null), NullPointerException.class, "recheckInterval");
        rejects(() -> config().fencingTokenRetention(null), NullPointerException.class, "fencingTokenRetention");
        rejects(() -> config().localHandoffLimit(-1).build(), IllegalArgumentException.class,
                "localHandoffLimit must not be negative");
        // A watchdog lease shorter than the command timeout is legal (say, for fast crash recovery in tests): a
        // renewal that arrives late finds the lock gone and the holder is told, it never extends someone else's.
        assertThat(config().watchdogLease(Duration.ofSeconds(1)).build().commandTimeout())
                .isEqualTo(Duration.ofSeconds(3));
        rejects(() -> config().fencingTokenRetention(Duration.ofSeconds(1)).build(), IllegalArgumentException.class,
                "fencingTokenRetention");
        rejects(() -> config().watchdogLease(null), NullPointerException.class, "watchdogLease");
        assertThat(config().uri("redis://user:pw@host:1").build().toString()).doesNotContain("pw");
    }

    @Test
    void lockNames() {
        rejects(() -> baton.lock(null), NullPointerException.class, "name");
        rejects(() -> baton.lock(""), IllegalArgumentException.class, "name must not be blank");
        rejects(() -> baton.lock(" \t"), IllegalArgumentException.class, "name must not be blank");
        rejects(() -> baton.lock("x".repeat(1025)), IllegalArgumentException.class, "1024 bytes");
        rejects(() -> baton.lock("é".repeat(513)), IllegalArgumentException.class, "was 1026 bytes");
        rejects(() -> baton.inspect(null), NullPointerException.class, "name");
        rejects(() -> baton.inspect(""), IllegalArgumentException.class, "name");
        assertThat(baton.lock("x".repeat(1024)).name()).hasSize(1024);
    }

    @Test
    void durations() {
        rejects(() -> lock.lock(null), NullPointerException.class, "lease");
        rejects(() -> lock.lock(Duration.ZERO), IllegalArgumentException.class, "lease must be positive");
        rejects(() -> lock.lock(Duration.ofMillis(-1)), IllegalArgumentException.class, "lease");
        rejects(() -> lock.lock(Duration.ofNanos(500_000)), IllegalArgumentException.class, "at least 1 ms");
        rejects(() -> lock.lock(Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class,
                "lease must be at most 53375 days (about 146 years)");
        rejects(() -> lock.tryLock(null), NullPointerException.class, "wait");
        rejects(() -> lock.tryLock(Duration.ofMillis(-1)), IllegalArgumentException.class, "wait must not be negative");
        rejects(() -> lock.tryLock(Duration.ZERO, null), NullPointerException.class, "lease");
        rejects(() -> lock.tryLock(null, Duration.ofSeconds(1)), NullPointerException.class, "wait");
        rejects(() -> lock.tryLock(Duration.ZERO, Duration.ZERO), IllegalArgumentException.class, "lease");
        rejects(() -> lock.tryLock(Duration.ofMillis(-1), Duration.ofSeconds(1)), IllegalArgumentException.class,
                "wait must not be negative");
        rejects(() -> lock.tryLock(1, null), NullPointerException.class, "unit");
        rejects(() -> lock.acquire(null), NullPointerException.class, "wait");
        rejects(() -> lock.acquire(Duration.ofSeconds(-1)), IllegalArgumentException.class, "wait");
        rejects(() -> lock.tryAcquire(null, Duration.ofSeconds(1)), NullPointerException.class, "wait");
        rejects(() -> lock.tryAcquire(Duration.ZERO, null), NullPointerException.class, "lease");
        rejects(() -> lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(-3)), IllegalArgumentException.class,
                "lease");
        rejects(() -> lock.tryAcquire(Duration.ofSeconds(-1), Duration.ofSeconds(1)), IllegalArgumentException.class,
                "wait must not be negative");
        rejects(() -> lock.acquireAsync(null), NullPointerException.class, "wait");
        rejects(() -> lock.acquireAsync(Duration.ofMillis(-1)), IllegalArgumentException.class, "wait");
    }

    @Test
    void replicaAcknowledgement() {
        rejects(() -> LockOptions.replicaAcknowledged(0, Duration.ofSeconds(1)), IllegalArgumentException.class,
                "replicas must be at least 1: 0");
        rejects(() -> LockOptions.replicaAcknowledged(-2, Duration.ofSeconds(1)), IllegalArgumentException.class,
                "replicas must be at least 1: -2");
        rejects(() -> LockOptions.replicaAcknowledged(1, null), NullPointerException.class, "timeout");
        rejects(() -> LockOptions.replicaAcknowledged(1, Duration.ZERO), IllegalArgumentException.class,
                "timeout must be positive");
        rejects(() -> LockOptions.replicaAcknowledged(1, Duration.ofMillis(-5)), IllegalArgumentException.class,
                "timeout must be positive");
        rejects(() -> LockOptions.replicaAcknowledged(1, Duration.ofNanos(999_999)), IllegalArgumentException.class,
                "timeout must be at least 1 ms");
        rejects(() -> LockOptions.replicaAcknowledged(1, Duration.ofDays(2)), IllegalArgumentException.class,
                "timeout must be at most a day");
        rejects(() -> LockOptions.defaults().withReplicaAcknowledgement(0, Duration.ofSeconds(1)),
                IllegalArgumentException.class, "replicas");
        rejects(() -> config().replicaAcknowledged(0, Duration.ofSeconds(1)), IllegalArgumentException.class,
                "replicas must be at least 1");
        rejects(() -> config().replicaAcknowledged(1, Duration.ZERO), IllegalArgumentException.class,
                "timeout must be positive");
        rejects(() -> config().replicaAcknowledged(1, null), NullPointerException.class, "timeout");
        rejects(() -> BatonConfig.builder().cluster("redis://n1:7000").replicaAcknowledged(1, Duration.ofSeconds(1))
                .build(), IllegalArgumentException.class, "not supported on a Redis Cluster");
        rejects(() -> baton.lock("x", null), NullPointerException.class, "options");
        rejects(() -> baton.lock(null, LockOptions.defaults()), NullPointerException.class, "name");
        rejects(() -> baton.lock(" ", LockOptions.unacknowledged()), IllegalArgumentException.class,
                "name must not be blank");
        assertThat(baton.lock("x", LockOptions.replicaAcknowledged(1, Duration.ofMillis(1))).name()).isEqualTo("x");
    }

    @Test
    void misuseWithoutRedis() {
        rejects(lock::unlock, IllegalMonitorStateException.class, "'valid' is not held by the current thread");
        rejects(lock::fencingToken, IllegalMonitorStateException.class, "'valid' is not held");
        rejects(lock::newCondition, UnsupportedOperationException.class, "Condition");
        assertThat(lock.holdCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(TimeUnit.SECONDS).isNotNull();
    }

    @Test
    void rateLimits() {
        Duration second = Duration.ofSeconds(1);
        rejects(() -> RateLimit.of(0, second), IllegalArgumentException.class, "permits must be at least 1: 0");
        rejects(() -> RateLimit.of(-5, second), IllegalArgumentException.class, "permits must be at least 1: -5");
        rejects(() -> RateLimit.of(1, null), NullPointerException.class, "period");
        rejects(() -> RateLimit.of(1, Duration.ZERO), IllegalArgumentException.class, "period must be positive");
        rejects(() -> RateLimit.of(1, Duration.ofSeconds(-1)), IllegalArgumentException.class,
                "period must be positive");
        rejects(() -> RateLimit.of(1, Duration.ofNanos(999_999)), IllegalArgumentException.class,
                "period must be at least 1 ms");
        rejects(() -> RateLimit.of(1, Duration.ofNanos(1_000_000_500)), IllegalArgumentException.class,
                "period must be a whole number of microseconds");
        rejects(() -> RateLimit.builder(10, second).burst(0), IllegalArgumentException.class,
                "burst must be at least 1: 0");
        rejects(() -> RateLimit.builder(10, second).algorithm(null), NullPointerException.class, "algorithm");
        rejects(() -> RateLimit.builder(10, second).burst(20).algorithm(RateLimit.Algorithm.FIXED_WINDOW).build(),
                IllegalArgumentException.class, "burst applies to GCRA only");
        rejects(() -> RateLimit.builder(10, Duration.ofDays(365)).burst(1_000_000).build(),
                IllegalArgumentException.class, "burst × period must be at most 2^51");
        rejects(() -> RateLimit.of(1L << 41, Duration.ofSeconds(1)), IllegalArgumentException.class,
                "permits must be at most 2^40");
        rejects(() -> RateLimit.builder(1_000_000, second).algorithm(RateLimit.Algorithm.SLIDING_WINDOW_LOG).build(),
                IllegalArgumentException.class, "SLIDING_WINDOW_LOG limit must be at most 100000");
    }

    @Test
    void rateLimiters() {
        RateLimit limit = RateLimit.builder(10, Duration.ofSeconds(1)).burst(5).build();
        rejects(() -> baton.rateLimiter(null, limit), NullPointerException.class, "name");
        rejects(() -> baton.rateLimiter(" ", limit), IllegalArgumentException.class, "name must not be blank");
        rejects(() -> baton.rateLimiter("x".repeat(1025), limit), IllegalArgumentException.class, "name must be at most");
        rejects(() -> baton.rateLimiter("api"), IllegalArgumentException.class, "limits must not be empty");
        rejects(() -> baton.rateLimiter("api", (RateLimit[]) null), NullPointerException.class, "limits");
        rejects(() -> baton.rateLimiter("api", limit, null), NullPointerException.class, "limits[1]");

        RateLimiter limiter = baton.rateLimiter("api", limit, RateLimit.of(100, Duration.ofMinutes(1)));
        for (RateLimiter l : new RateLimiter[] {limiter, limiter.failOpen()}) {
            rejects(() -> l.tryAcquire(0), IllegalArgumentException.class, "permits must be at least 1: 0");
            rejects(() -> l.tryAcquire(-1), IllegalArgumentException.class, "permits must be at least 1: -1");
            rejects(() -> l.tryAcquire(6), IllegalArgumentException.class,
                    "permits must be at most the smallest burst of rate limiter 'api' (5)");
            rejects(() -> l.tryAcquireAsync(0), IllegalArgumentException.class, "permits");
            rejects(() -> l.peek(0), IllegalArgumentException.class, "permits");
            rejects(() -> l.peek(6), IllegalArgumentException.class, "smallest burst");
            rejects(() -> l.acquire(0, Duration.ZERO), IllegalArgumentException.class, "permits");
            rejects(() -> l.acquire(1, Duration.ofMillis(-1)), IllegalArgumentException.class,
                    "maxWait must not be negative");
            rejects(() -> l.acquire(1, null), NullPointerException.class, "maxWait");
            rejects(() -> l.acquireAsync(6, Duration.ZERO), IllegalArgumentException.class, "permits");
            rejects(() -> l.acquireAsync(1, Duration.ofMillis(-1)), IllegalArgumentException.class, "maxWait");
        }
        RateLimitDecision decision = new RateLimitDecision(true, 1, Duration.ZERO, Duration.ZERO, limit, false);
        rejects(() -> decision.rateLimitField("a\"b"), IllegalArgumentException.class, "policy must be printable");
        rejects(() -> decision.rateLimitPolicyField(null), NullPointerException.class, "policy");
    }

    private BatonConfig.Builder config() {
        return BatonConfig.builder().uri(redis.server().uri());
    }

    private static void rejects(ThrowingCallable call, Class<? extends Throwable> type, String message) {
        assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(message);
    }

    private long commandsProcessed() {
        for (String line : redis.server().command("INFO", "stats").split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("INFO stats has no total_commands_processed");
    }
}
