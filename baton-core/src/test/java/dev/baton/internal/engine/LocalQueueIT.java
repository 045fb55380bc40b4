package dev.baton.internal.engine;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonConfig;
import dev.baton.Lease;
import dev.baton.support.Measure;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A waiter that arrives while another waiter of the same Baton is already asleep on a held lock queues behind it
 * without sending a try that can only fail; and newcomers never queue behind each other with nobody asking Redis.
 *
 * <p>The engines re-check only once a minute here, so a waiter that nobody wakes would show as a stall, and the
 * script counts are exact.
 */
class LocalQueueIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration SLOW_RECHECK = Duration.ofMinutes(1);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestEngine local;
    private TestEngine remote;

    @BeforeEach
    void start() {
        local = TestEngine.start(config());
        remote = TestEngine.start(config());
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        local.close();
        remote.close();
    }

    @Test
    void aNewcomerQueuesBehindASleepingLocalWaiterWithoutAFailedTry() throws Exception {
        Lease remoteHold = remote.lock("queue").acquire(Duration.ofSeconds(30));
        CompletableFuture<Lease> first = local.lock("queue").acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> local.bookkeeping().sleepingWaiters() == 1);

        long scriptsBefore = Measure.scriptsRun(redis.server());
        CompletableFuture<Lease> second = local.lock("queue").acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> local.bookkeeping().waiters() == 2);
        assertThat(Measure.scriptsRun(redis.server())).as("scripts sent by the newcomer").isEqualTo(scriptsBefore);

        remoteHold.release();
        Lease firstHold = first.get(10, TimeUnit.SECONDS);
        assertThat(second).isNotDone();
        firstHold.release(); // hands the lock straight to the newcomer
        Lease secondHold = second.get(10, TimeUnit.SECONDS);
        assertThat(secondHold.fencingToken()).isGreaterThan(firstHold.fencingToken());
        // The remote release, the woken waiter's try and the handoff: the newcomer itself sent nothing.
        assertThat(Measure.scriptsRun(redis.server()) - scriptsBefore).isEqualTo(3);
        secondHold.release();
        assertThat(local.lock("queue").isLocked()).isFalse();
    }

    @Test
    void aReentryNeverQueuesBehindALocalWaiter() throws Exception {
        Lease remoteHold = remote.lock("reentry").acquire(Duration.ZERO);
        CompletableFuture<Lease> waiter = local.lock("reentry").acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> local.bookkeeping().sleepingWaiters() == 1);
        // The remote hold vanishes without a release message (as after a failover): the waiter sleeps on.
        redis.server().command("DEL", "baton:lock:{reentry}");

        var lock = local.lock("reentry");
        assertThat(lock.tryLock()).as("a single try does not queue").isTrue();
        long start = System.nanoTime();
        assertThat(lock.tryLock(Duration.ofMillis(200))).as("re-entry while a local waiter sleeps").isTrue();
        assertThat(lock.holdCount()).isEqualTo(2);
        assertThat(System.nanoTime() - start).as("re-entry took one round trip, not a wait")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(200));
        lock.unlock();
        lock.unlock(); // hands the lock to the sleeping waiter
        waiter.get(10, TimeUnit.SECONDS).release();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(remoteHold::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void newcomersArrivingTogetherOnAFreeLockNeverWaitForEachOther() throws Exception {
        int threadCount = 4;
        int rounds = 200;
        CyclicBarrier together = new CyclicBarrier(threadCount);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            workers.add(threads.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    together.await(30, TimeUnit.SECONDS);
                    Lease lease = local.lock("together").acquireAsync(Duration.ofMinutes(5)).get(30, TimeUnit.SECONDS);
                    lease.release();
                }
                return null;
            }));
        }
        // With a one-minute re-check, two newcomers queued behind each other would stall a round far past this.
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> local.bookkeeping().waiters() == 0);
    }

    private static BatonConfig config() {
        return BatonConfig.builder().uri(redis.server().uri()).watchdogLease(Duration.ofSeconds(30))
                .commandTimeout(Duration.ofSeconds(2)).recheckInterval(SLOW_RECHECK).build();
    }
}
