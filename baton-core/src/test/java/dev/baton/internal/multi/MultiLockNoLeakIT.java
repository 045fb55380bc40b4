package dev.baton.internal.multi;

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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Contended multi-lock cycles over overlapping sets, with waits that run out while holding some locks, leases, and
 * cancelled asynchronous acquisitions mixed in, must leave no hold, renewal, waiter, subscription or lock behind, in
 * Redis or in the engines.
 */
class MultiLockNoLeakIT {
    private static final int CYCLES_PER_THREAD = 150;
    private static final int THREADS_PER_ENGINE = 4;
    private static final String[][] SETS = {{"n0", "n1", "n2"}, {"n2", "n0"}, {"n1", "n3"}, {"n3", "n2", "n1"}};

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void contendedCyclesLeaveNothingBehind() throws Exception {
        List<TestEngine> engines = List.of(TestEngine.start(TestBatons.patientConfig(redis.server().uri())),
                TestEngine.start(TestBatons.patientConfig(redis.server().uri())));
        ExecutorService pool = Executors.newFixedThreadPool(engines.size() * THREADS_PER_ENGINE);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (TestEngine engine : engines) {
                for (int t = 0; t < THREADS_PER_ENGINE; t++) {
                    int seed = t;
                    workers.add(pool.submit(() -> cycles(engine, seed)));
                }
            }
            int total = 0;
            for (Future<Integer> w : workers) {
                total += w.get(5, TimeUnit.MINUTES);
            }
            assertThat(total).isEqualTo(engines.size() * THREADS_PER_ENGINE * CYCLES_PER_THREAD);

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
            assertThat(redis.server().command("EXISTS", "baton:lock:{n0}", "baton:lock:{n1}", "baton:lock:{n2}",
                    "baton:lock:{n3}")).isEqualTo("0");
        } finally {
            pool.shutdownNow();
            engines.forEach(TestEngine::close);
        }
    }

    /** Mostly lock/unlock; every 5th cycle a short wait, every 7th a lease, every 11th a cancelled async wait. */
    private static int cycles(TestEngine engine, int seed) throws Exception {
        int done = 0;
        for (int i = 0; i < CYCLES_PER_THREAD; i++) {
            DistributedLock multi = engine.multiLock(SETS[(i + seed) % SETS.length]);
            if (i % 11 == 3) {
                CompletableFuture<Lease> pending = multi.acquireAsync(Duration.ofSeconds(30));
                pending.cancel(false);
                try {
                    pending.get(30, TimeUnit.SECONDS).release();
                } catch (CancellationException expected) {
                    // the usual outcome; the attempt gives back what it took on its own
                }
            } else if (i % 7 == 2) {
                Optional<Lease> lease = multi.tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(30));
                lease.orElseThrow().release();
            } else if (i % 5 == 1) {
                if (multi.tryLock(Duration.ofMillis(2))) {
                    multi.unlock();
                }
            } else {
                multi.lock();
                multi.unlock();
            }
            done++;
        }
        return done;
    }
}
