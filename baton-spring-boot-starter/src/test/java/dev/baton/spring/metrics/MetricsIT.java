package dev.baton.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import dev.baton.test.RedisExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * After known traffic, Baton's meters hold exactly its counts, tagged by name (within the cardinality guard), lock
 * type and outcome.
 */
class MetricsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    DataRedisAutoConfiguration.class, BatonAutoConfiguration.class,
                    BatonMetricsAutoConfiguration.class));

    private ApplicationContextRunner connected() {
        return runner.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
                "spring.data.redis.port=" + redis.server().port());
    }

    /** The sum over every counter of that name with these tags (whatever their other tags). */
    private static double count(MeterRegistry registry, String meter, String... tags) {
        return registry.find(meter).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** The events recorded by every timer of that name with these tags. */
    private static long timed(MeterRegistry registry, String meter, String... tags) {
        return registry.find(meter).tags(tags).timers().stream().mapToLong(Timer::count).sum();
    }

    @Test
    void locksAreCountedAndTimedByNameTypeAndOutcome() {
        connected().run(context -> {
            Baton baton = context.getBean(Baton.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(baton.config().listener()).isPresent();
            DistributedLock orders = baton.lock("orders");
            for (int i = 0; i < 5; i++) {
                orders.lock();
                orders.unlock();
            }
            baton.fairLock("queue").acquire(Duration.ZERO).release();

            DistributedLock busy = baton.lock("busy");
            busy.lock();
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                assertThat(other.submit(() -> baton.lock("busy").tryLock(Duration.ofMillis(200)))
                        .get(20, TimeUnit.SECONDS)).isFalse();
            } finally {
                other.shutdownNow();
            }
            busy.unlock();

            await().atMost(PATIENCE).until(() -> count(registry, MicrometerBatonListener.LOCK_ACQUIRED,
                    "name", "orders", "type", "lock") == 5
                    && count(registry, MicrometerBatonListener.LOCK_TIMEOUTS, "name", "busy") == 1
                    && timed(registry, MicrometerBatonListener.LOCK_HELD, "name", "busy") == 1);
            assertThat(timed(registry, MicrometerBatonListener.LOCK_WAIT, "name", "orders", "type", "lock",
                    "outcome", "acquired")).isEqualTo(5);
            assertThat(timed(registry, MicrometerBatonListener.LOCK_HELD, "name", "orders", "type", "lock"))
                    .isEqualTo(5);
            assertThat(count(registry, MicrometerBatonListener.LOCK_ACQUIRED, "name", "queue", "type", "fair"))
                    .isEqualTo(1);
            assertThat(timed(registry, MicrometerBatonListener.LOCK_HELD, "name", "queue", "type", "fair"))
                    .isEqualTo(1);
            Timer timedOut = registry.find(MicrometerBatonListener.LOCK_WAIT)
                    .tags("name", "busy", "outcome", "timed-out").timer();
            assertThat(timedOut).isNotNull();
            assertThat(timedOut.count()).isEqualTo(1);
            assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(200);
            Timer held = registry.find(MicrometerBatonListener.LOCK_HELD).tags("name", "busy").timer();
            assertThat(held.totalTime(TimeUnit.MILLISECONDS)).as("held through the other thread's wait")
                    .isGreaterThanOrEqualTo(200);
        });
    }

    @Test
    void rateLimitDecisionsAreCountedByOutcomeAndPeeksAreNot() {
        connected().run(context -> {
            Baton baton = context.getBean(Baton.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            RateLimiter limiter = baton.rateLimiter("api", RateLimit.of(2, Duration.ofHours(1)));
            limiter.peek();
            for (int i = 0; i < 3; i++) {
                limiter.tryAcquire();
            }
            await().atMost(PATIENCE).until(() ->
                    count(registry, MicrometerBatonListener.RATE_LIMIT_DECISIONS, "name", "api") == 3);
            assertThat(count(registry, MicrometerBatonListener.RATE_LIMIT_DECISIONS, "name", "api",
                    "outcome", "allowed")).isEqualTo(2);
            assertThat(count(registry, MicrometerBatonListener.RATE_LIMIT_DECISIONS, "name", "api",
                    "outcome", "refused")).isEqualTo(1);
        });
    }

    @Test
    void anOutageShowsAsFailedOpenDecisionsFailedRenewalsAndLostLeases() {
        connected().withPropertyValues("baton.command-timeout=500ms", "baton.watchdog-lease=1500ms",
                "baton.recheck-interval=300ms").run(context -> {
                    Baton baton = context.getBean(Baton.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    RateLimiter open = baton.rateLimiter("open", RateLimit.of(10, Duration.ofHours(1))).failOpen();
                    baton.lock("renewed").lock();
                    redis.server().pause();
                    try {
                        assertThat(open.tryAcquire().failedOpen()).isTrue();
                        await().atMost(PATIENCE).until(() ->
                                count(registry, MicrometerBatonListener.RENEWAL_FAILURES) >= 1
                                && count(registry, MicrometerBatonListener.LOCK_LOST, "name", "renewed",
                                        "type", "lock") == 1);
                    } finally {
                        redis.server().resume();
                    }
                    await().atMost(PATIENCE).until(() -> count(registry,
                            MicrometerBatonListener.RATE_LIMIT_DECISIONS, "name", "open", "outcome", "failed-open")
                            == 1);
                });
    }

    @Test
    void namesBeyondTheLimitAreTaggedOther() {
        connected().withPropertyValues("baton.metrics.max-names=3").run(context -> {
            Baton baton = context.getBean(Baton.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (String name : new String[] {"a", "b", "c", "d", "e", "a"}) {
                baton.lock(name).lock();
                baton.lock(name).unlock();
            }
            await().atMost(PATIENCE).until(() ->
                    registry.find(MicrometerBatonListener.LOCK_ACQUIRED).counters().stream()
                            .mapToDouble(Counter::count).sum() == 6);
            assertThat(registry.find(MicrometerBatonListener.LOCK_ACQUIRED).counters())
                    .extracting(c -> c.getId().getTag("name")).containsExactlyInAnyOrder("a", "b", "c", "other");
            assertThat(count(registry, MicrometerBatonListener.LOCK_ACQUIRED, "name", "a")).isEqualTo(2);
            assertThat(count(registry, MicrometerBatonListener.LOCK_ACQUIRED, "name", "other")).isEqualTo(2);
        });
    }

    @Test
    void metricsCanBeTurnedOff() {
        connected().withPropertyValues("baton.metrics.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(MicrometerBatonListener.class);
            assertThat(context.getBean(Baton.class).config().listener()).isEmpty();
        });
        connected().withPropertyValues("baton.metrics.max-names=-1").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().message()
                        .contains("baton.metrics.max-names"));
    }
}
