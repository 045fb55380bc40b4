package dev.baton.internal.engine;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.DistributedLock;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 10,000 contended lock/unlock cycles, with timed-out waits and lease acquisitions mixed in, must leave no
 * subscription, renewal, waiter, hold or timer behind, in Redis or in the engines.
 */
class NoLeakIT {
    private static final int CYCLES = 10_000;
    private static final int THREADS_PER_ENGINE = 4;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void tenThousandContendedCyclesLeaveNothingBehind() throws Exception {
        List<TestEngine> engines = List.of(TestEngine.start(TestBatons.patientConfig(redis.server().uri())),
                TestEngine.start(TestBatons.patientConfig(redis.server().uri())));
        int clientsBefore = clientCount();
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

            for (TestEngine engine : engines) {
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    LockEngine.Bookkeeping b = engine.bookkeeping();
                    assertThat(b.renewedHolds()).as("holds under renewal").isZero();
                    assertThat(b.reentrantHolds()).as("thread holds").isZero();
                    assertThat(b.localHolders()).as("local holders").isZero();
                    assertThat(b.waitedLockNames()).as("subscribed names").isZero();
                    assertThat(b.waiters()).as("waiters").isZero();
                    assertThat(b.scheduledTasks()).as("timers besides the watchdog").isLessThanOrEqualTo(1);
                });
            }
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> redis.server().command("PUBSUB", "CHANNELS", "baton:*").isEmpty());
            assertThat(redis.server().command("KEYS", "baton:lock:*:token")).isNotEmpty();
            assertThat(redis.server().command("EXISTS", "baton:lock:{hot-0}", "baton:lock:{hot-1}",
                    "baton:lock:{hot-2}")).isEqualTo("0");
            assertThat(clientCount()).as("one pub/sub connection per engine, none per waiter")
                    .isEqualTo(clientsBefore + engines.size());
        } finally {
            pool.shutdownNow();
            engines.forEach(TestEngine::close);
        }
    }

    /** Mostly lock/unlock on three hot names; every tenth cycle a lease, every 25th a wait that is bound to expire. */
    private static int cycles(TestEngine engine, int n, int seed) throws InterruptedException {
        int done = 0;
        for (int i = 0; i < n; i++) {
            DistributedLock lock = engine.lock("hot-" + ((i + seed) % 3));
            if (i % 25 == 0 && lock.tryLock()) {
                // hold it while another short wait on the same name runs out
                try {
                    boolean got = engine.lock(lock.name()).acquireAsync(Duration.ofMillis(5))
                            .handle((lease, e) -> lease != null).join();
                    assertThat(got).isFalse();
                } finally {
                    lock.unlock();
                }
            } else if (i % 10 == 0) {
                lock.acquire(Duration.ofSeconds(30)).release();
            } else {
                assertThat(lock.tryLock(Duration.ofSeconds(30))).isTrue();
                lock.unlock();
            }
            done++;
        }
        return done;
    }

    private int clientCount() {
        return redis.server().command("CLIENT", "LIST").split("\n").length;
    }
}
