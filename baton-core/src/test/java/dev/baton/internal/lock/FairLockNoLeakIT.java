package dev.baton.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.TestEngine;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Thousands of contended fair-lock cycles, with waits that run out while the lock is being handed to them, leases and
 * re-entries mixed in: never two holders at once, and nothing left behind, in Redis (no queue, no lock, only the
 * fencing counters) or in the engines (no waiter, hold, subscription or timer).
 */
class FairLockNoLeakIT {
    private static final int CYCLES = 3_000;
    private static final int THREADS_PER_ENGINE = 4;
    private static final int NAMES = 2;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final AtomicIntegerArray inside = new AtomicIntegerArray(NAMES);
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger gaveUp = new AtomicInteger();

    @Test
    void thousandsOfContendedCyclesWithAbandonedWaitsKeepOneHolderAndLeaveNothingBehind() throws Exception {
        List<TestEngine> engines = List.of(TestEngine.start(TestBatons.patientConfig(redis.server().uri())),
                TestEngine.start(TestBatons.patientConfig(redis.server().uri())));
        ExecutorService pool = Executors.newFixedThreadPool(engines.size() * THREADS_PER_ENGINE);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            int perThread = CYCLES / (engines.size() * THREADS_PER_ENGINE);
            for (TestEngine engine : engines) {
                for (int t = 0; t < THREADS_PER_ENGINE; t++) {
                    int seed = t;
                    workers.add(pool.submit(() -> cycles(engine, perThread, seed)));
                }
            }
            int total = 0;
            for (Future<Integer> w : workers) {
                total += w.get(5, TimeUnit.MINUTES);
            }
            assertThat(total).isEqualTo(CYCLES);
            assertThat(overlaps.get()).as("two holders at once").isZero();
            assertThat(gaveUp.get()).as("waits that ran out (the abandon path was taken)").isPositive();

            for (TestEngine engine : engines) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    LockEngine.Bookkeeping b = engine.bookkeeping();
                    assertThat(b.renewedHolds()).as("holds under renewal").isZero();
                    assertThat(b.reentrantHolds()).as("thread holds").isZero();
                    assertThat(b.waitedLockNames()).as("subscribed names").isZero();
                    assertThat(b.waiters()).as("waiters").isZero();
                    assertThat(b.scheduledTasks()).as("timers besides the watchdog").isLessThanOrEqualTo(1);
                });
            }
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> redis.server().command("PUBSUB", "CHANNELS", "baton:*").isEmpty());
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                    Arrays.stream(redis.server().command("KEYS", "baton:fair:*").split("\n")).sorted().toList())
                    .containsExactly("baton:fair:{fair-0}:token", "baton:fair:{fair-1}:token"));
        } finally {
            pool.shutdownNow();
            engines.forEach(TestEngine::close);
        }
    }

    /**
     * Mostly lock/unlock; every 7th cycle a wait of a few milliseconds that is likely to run out (often just as the
     * lock is handed to it), every 10th a lease, every 13th a re-entry.
     */
    private int cycles(TestEngine engine, int n, int seed) throws InterruptedException {
        int done = 0;
        for (int i = 0; i < n; i++) {
            int name = (i + seed) % NAMES;
            DistributedLock lock = engine.fairLock("fair-" + name);
            if (i % 7 == 0) {
                Optional<Lease> lease = lock.tryAcquire(Duration.ofMillis(1 + i % 5), Duration.ofSeconds(30));
                if (lease.isPresent()) {
                    critical(name);
                    lease.get().release();
                } else {
                    gaveUp.incrementAndGet();
                }
            } else if (i % 10 == 0) {
                Lease lease = lock.acquire(Duration.ofMinutes(1));
                critical(name);
                lease.release();
            } else {
                assertThat(lock.tryLock(Duration.ofMinutes(1))).isTrue();
                try {
                    critical(name);
                    if (i % 13 == 0) {
                        lock.lock();
                        lock.unlock();
                    }
                } finally {
                    lock.unlock();
                }
            }
            done++;
        }
        return done;
    }

    private void critical(int name) {
        if (inside.incrementAndGet(name) != 1) {
            overlaps.incrementAndGet();
        }
        Thread.yield();
        inside.decrementAndGet(name);
    }
}
