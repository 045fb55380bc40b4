package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.WhenNotAcquired;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The ShedLock case: two instances of a service run the same {@code @Scheduled} job on a cron aligned to the second;
 * {@code @DistributedLock} with SKIP and a minimum hold time keeps it to one run per period across both.
 */
class ScheduledJobIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Runs per period (the epoch second divided by the period), shared by both instances of this JVM. */
    static final Map<Long, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    /** The job: every 3 s, held for at least 2.5 s so that a slow instance's late start cannot run it again. */
    public static class Job {
        @Scheduled(cron = "*/3 * * * * *")
        @DistributedLock(key = "'job'", waitTime = "0", minHoldTime = "2500ms",
                whenNotAcquired = WhenNotAcquired.SKIP)
        public void run() {
            RUNS.computeIfAbsent(System.currentTimeMillis() / 3000, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    @Import(TestBatonConfiguration.class)
    static class JobApp {
        @Bean
        Job job() {
            return new Job();
        }
    }

    @Test
    void theJobRunsOncePerPeriodAcrossBothInstances() {
        try (ConfigurableApplicationContext first = TestApps.start(JobApp.class, redis.server());
             ConfigurableApplicationContext second = TestApps.start(JobApp.class, redis.server())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> RUNS.size() >= 4);
        }
        Map<Long, AtomicInteger> runs = new TreeMap<>(RUNS);
        assertThat(runs.values()).as("runs per period: %s", runs).allSatisfy(n -> assertThat(n).hasValue(1));
        long firstPeriod = runs.keySet().iterator().next();
        assertThat(runs.keySet()).as("no period was missed").containsExactlyElementsOf(
                java.util.stream.LongStream.range(firstPeriod, firstPeriod + runs.size()).boxed().toList());
    }
}
