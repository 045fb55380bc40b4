package dev.baton.internal.rw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.TestEngine;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Contended read-write cycles on two engines, with downgrades, leases, writers that time out and cancelled waits
 * mixed in, must leave no subscription, renewal, waiter, hold or timer behind, and in Redis nothing but the fencing
 * counters.
 */
class ReadWriteNoLeakIT {
    private static final int CYCLES = 2_000;
    private static final int THREADS_PER_ENGINE = 3;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void contendedCyclesLeaveNothingBehind() throws Exception {
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
                total += w.get(10, TimeUnit.MINUTES);
            }
            assertThat(total).isEqualTo(perThread * engines.size() * THREADS_PER_ENGINE);

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
                    redis.server().command("KEYS", "baton:rw:*").lines().sorted().toList())
                    .containsExactly("baton:rw:{doc-0}:token", "baton:rw:{doc-1}:token"));
        } finally {
            pool.shutdownNow();
            engines.forEach(TestEngine::close);
        }
    }

    /**
     * Mostly reads, a write every fifth cycle, a downgrade every 13th; every 17th a write that is bound to time out
     * behind a read this thread holds through a lease; every 23rd a read lease waited for asynchronously and
     * cancelled while a write holds it back.
     */
    private static int cycles(TestEngine engine, int n, int seed) throws Exception {
        int done = 0;
        for (int i = 0; i < n; i++) {
            DistributedReadWriteLock rw = engine.readWriteLock("doc-" + ((i + seed) % 2));
            if (i % 17 == 0) {
                try (Lease read = rw.readLock().acquire(Duration.ofSeconds(60))) {
                    assertThat(rw.writeLock().tryLock(Duration.ofMillis(20))).isFalse();
                }
            } else if (i % 23 == 0) {
                rw.writeLock().lock();
                try {
                    CompletableFuture<Lease> read = engine.readWriteLock(rw.name()).readLock()
                            .acquireAsync(Duration.ofSeconds(60));
                    read.cancel(true);
                } finally {
                    rw.writeLock().unlock();
                }
            } else if (i % 13 == 0) {
                rw.writeLock().lock();
                rw.readLock().lock();
                rw.writeLock().unlock();
                rw.readLock().unlock();
            } else if (i % 5 == 0) {
                assertThat(rw.writeLock().tryLock(Duration.ofSeconds(60))).isTrue();
                rw.writeLock().unlock();
            } else if (i % 7 == 0) {
                rw.readLock().acquire(Duration.ofSeconds(60)).release();
            } else {
                assertThat(rw.readLock().tryLock(Duration.ofSeconds(60))).isTrue();
                rw.readLock().unlock();
            }
            done++;
        }
        return done;
    }
}
