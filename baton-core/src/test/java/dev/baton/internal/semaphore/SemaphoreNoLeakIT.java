package dev.baton.internal.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.TestEngine;
import dev.baton.support.Measure;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Thousands of contended semaphore acquisitions, with waits that time out or are cancelled mixed in, must leave no
 * subscription, renewal, waiter, hold or timer behind, in Redis or in the engines; only each semaphore's total and
 * fencing counter stay, with their expiry. Also reports what an acquisition costs Redis under contention.
 */
class SemaphoreNoLeakIT {
    private static final int THREADS_PER_ENGINE = 4;
    private static final int CYCLES_PER_THREAD = 250;
    private static final int PERMITS = 3;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void contendedCyclesLeaveNothingBehind() throws Exception {
        List<TestEngine> engines = List.of(TestEngine.start(TestBatons.patientConfig(redis.server().uri())),
                TestEngine.start(TestBatons.patientConfig(redis.server().uri())));
        ExecutorService pool = Executors.newFixedThreadPool(engines.size() * THREADS_PER_ENGINE);
        redis.server().command("CONFIG", "RESETSTAT");
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (TestEngine engine : engines) {
                for (int t = 0; t < THREADS_PER_ENGINE; t++) {
                    int seed = t;
                    workers.add(pool.submit(() -> cycles(engine, seed)));
                }
            }
            int acquisitions = 0;
            for (Future<Integer> w : workers) {
                acquisitions += w.get(10, TimeUnit.MINUTES);
            }
            long scripts = Measure.scriptsRun(redis.server());
            long publishes = commandCalls("publish");
            // Every acquisition is released once; the rest are tries that found the permits taken, and withdrawals.
            System.out.printf("semaphore, %d threads in %d engines, %d permits on 2 names: %d acquisitions, "
                            + "%.2f scripts and %.2f publishes per acquisition%n", engines.size() * THREADS_PER_ENGINE,
                    engines.size(), PERMITS, acquisitions, (double) scripts / acquisitions,
                    (double) publishes / acquisitions);

            for (TestEngine engine : engines) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    LockEngine.Bookkeeping b = engine.bookkeeping();
                    assertThat(b.renewedHolds()).as("holds under renewal").isZero();
                    assertThat(b.reentrantHolds()).as("thread holds").isZero();
                    assertThat(b.localHolders()).as("local holders").isZero();
                    assertThat(b.waitedLockNames()).as("subscribed names").isZero();
                    assertThat(b.waiters()).as("waiters").isZero();
                    assertThat(b.scheduledTasks()).as("timers besides the watchdog").isLessThanOrEqualTo(1);
                });
            }
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> redis.server().command("PUBSUB", "CHANNELS", "baton:*").isEmpty());
            assertThat(redis.server().command("KEYS", "baton:*").split("\n")).containsExactlyInAnyOrder(
                    "baton:semaphore:{hot-0}", "baton:semaphore:{hot-0}:token",
                    "baton:semaphore:{hot-1}", "baton:semaphore:{hot-1}:token");
            for (String key : redis.server().command("KEYS", "baton:*").split("\n")) {
                assertThat(Long.parseLong(redis.server().command("PTTL", key))).as("expiry of %s", key).isPositive();
            }
            assertThat(engines.get(0).semaphore("hot-0", PERMITS).availablePermits()).isEqualTo(PERMITS);
            assertThat(engines.get(1).semaphore("hot-1", PERMITS).availablePermits()).isEqualTo(PERMITS);
        } finally {
            pool.shutdownNow();
            engines.forEach(TestEngine::close);
        }
    }

    /**
     * Mostly acquire/release of 1 or 2 permits with a watchdog lease; every tenth cycle a fixed lease; every 25th,
     * while holding every permit, a wait that is bound to time out and one that is cancelled.
     */
    private static int cycles(TestEngine engine, int seed) throws Exception {
        int acquired = 0;
        for (int i = 0; i < CYCLES_PER_THREAD; i++) {
            DistributedSemaphore semaphore = engine.semaphore("hot-" + ((i + seed) % 2), PERMITS);
            if (i % 25 == 0) {
                Optional<Lease> all = semaphore.tryAcquire(PERMITS, Duration.ofSeconds(60), Duration.ofSeconds(30));
                assertThat(all).isPresent();
                try {
                    assertThat(semaphore.acquireAsync(1, Duration.ofMillis(5)).handle((l, e) -> l != null).join())
                            .isFalse();
                    CompletableFuture<Lease> cancelled = semaphore.acquireAsync(1, Duration.ofSeconds(60));
                    cancelled.cancel(false);
                    assertThat(cancelled.handle((l, e) -> e instanceof CancellationException
                            || e instanceof CompletionException).join()).isTrue();
                } finally {
                    all.get().release();
                }
            } else if (i % 10 == 0) {
                semaphore.tryAcquire(1, Duration.ofSeconds(60), Duration.ofSeconds(30)).orElseThrow().release();
            } else {
                semaphore.acquire(1 + (i + seed) % 2, Duration.ofSeconds(60)).release();
            }
            acquired++;
        }
        return acquired;
    }

    private static long commandCalls(String command) {
        return redis.server().command("INFO", "commandstats").lines()
                .filter(l -> l.startsWith("cmdstat_" + command + ":")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("^[^:]+:calls=(\\d+),.*", "$1"))).orElse(0L);
    }
}
