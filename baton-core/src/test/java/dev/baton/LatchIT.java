package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.Measure;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TestBatons;
import dev.baton.support.TopologyExtension;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The count-down latch's contract against a real Redis: set once, counted down atomically and never below zero,
 * waiters released by the last count-down (on every topology), by expiry, or timing out; arguments refused before any
 * Redis call; Redis down; events; what operators see. Across processes: {@link LatchProcessesIT}.
 */
class LatchIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    /** Waiters released within this are released by the notification: their re-check is far longer. */
    private static final Duration SLOW_RECHECK = Duration.ofSeconds(120);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        baton = Baton.connect(deployment.patientBuilder().build());
        other = Baton.connect(deployment.patientBuilder().build());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void theLastCountDownReleasesWaitersOfEveryBatonAtOnceAndTheLatchMaybeSetAgain() throws Exception {
        // Waiters re-check only every two minutes: released within seconds, they heard the release.
        try (Baton slow = Baton.connect(deployment.patientBuilder().recheckInterval(SLOW_RECHECK).build());
             Baton slowToo = Baton.connect(deployment.patientBuilder().recheckInterval(SLOW_RECHECK).build())) {
            DistributedCountDownLatch latch = baton.countDownLatch("gate");
            assertThat(latch.name()).isEqualTo("gate");
            assertThat(latch.count()).as("never set").isZero();
            assertThat(latch.await(Duration.ZERO)).as("a latch never set is open").isTrue();
            assertThat(latch.trySetCount(3)).isTrue();
            assertThat(other.countDownLatch("gate").trySetCount(5)).as("already set").isFalse();
            assertThat(other.countDownLatch("gate").count()).isEqualTo(3);
            assertThat(latch.await(Duration.ZERO)).isFalse();

            List<Future<Boolean>> waiters = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                DistributedCountDownLatch mine = (i % 2 == 0 ? slow : slowToo).countDownLatch("gate");
                waiters.add(threads.submit(() -> mine.await(LONG)));
            }
            String channel = "baton:latch:{gate}:released";
            await().atMost(LONG).until(() -> deployment.subscribers(channel) == 2);

            latch.countDown();
            assertThat(latch.count()).isEqualTo(2);
            other.countDownLatch("gate").countDown();
            assertThat(latch.count()).isEqualTo(1);
            assertThat(waiters).noneMatch(Future::isDone);
            other.countDownLatch("gate").countDown();
            for (Future<Boolean> waiter : waiters) {
                assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(latch.count()).isZero();
            assertThat(deployment.keys("baton:latch:*")).as("a released latch leaves no key").isEmpty();

            latch.countDown();
            assertThat(latch.count()).as("never below zero").isZero();
            assertThat(deployment.keys("baton:latch:*")).isEmpty();
            assertThat(latch.trySetCount(1)).as("set again after its release").isTrue();
            assertThat(other.countDownLatch("gate").count()).isEqualTo(1);
            await().atMost(LONG).until(() -> deployment.subscribers(channel) == 0);
        }
    }

    @Test
    void awaitRunsOutAfterItsWaitWithTheLatchUntouched() throws Exception {
        DistributedCountDownLatch latch = baton.countDownLatch("slow");
        latch.trySetCount(1);
        long start = System.nanoTime();
        assertThat(latch.await(Duration.ofMillis(700))).isFalse();
        assertThat(Measure.millisSince(start)).isGreaterThanOrEqualTo(700).isLessThan(700 + 5_000);
        assertThat(latch.count()).isEqualTo(1);
        assertThat(latch.await(Duration.ZERO)).isFalse();
    }

    @Test
    void concurrentCountDownsAreEachCountedOnceAndNeverGoBelowZero() throws Exception {
        DistributedCountDownLatch latch = baton.countDownLatch("many");
        assertThat(latch.trySetCount(100)).isTrue();
        countDownConcurrently(60);
        assertThat(latch.count()).as("no count-down lost").isEqualTo(40);
        countDownConcurrently(60);
        assertThat(latch.count()).as("twenty too many did nothing").isZero();
        assertThat(deployment.keys("baton:latch:*")).isEmpty();
        assertThat(latch.trySetCount(2)).isTrue();
        assertThat(latch.count()).as("the earlier count-downs left nothing behind").isEqualTo(2);
    }

    private void countDownConcurrently(int total) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
            DistributedCountDownLatch mine = (t % 2 == 0 ? baton : other).countDownLatch("many");
            done.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < total / 12; i++) {
                    mine.countDown();
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void anAbandonedLatchExpiresAndReleasesItsWaiters() throws Exception {
        DistributedCountDownLatch latch = baton.countDownLatch("abandoned");
        assertThat(latch.trySetCount(5, Duration.ofMillis(1500))).isTrue();
        long pttl = Long.parseLong(deployment.command("baton:latch:{abandoned}", "PTTL", "baton:latch:{abandoned}"));
        assertThat(pttl).isPositive().isLessThanOrEqualTo(1500);
        latch.countDown();
        assertThat(Long.parseLong(deployment.command("baton:latch:{abandoned}", "PTTL", "baton:latch:{abandoned}")))
                .as("a count-down does not extend the latch's life").isLessThanOrEqualTo(1500);
        Future<Boolean> waiter = threads.submit(() -> other.countDownLatch("abandoned").await(LONG));
        await().atMost(Duration.ofSeconds(20)).until(waiter::isDone);
        assertThat(waiter.get()).as("released by the expiry, at its next re-check").isTrue();
        assertThat(latch.count()).isZero();
        assertThat(latch.trySetCount(1)).isTrue();
    }

    @Test
    void badArgumentsAreRefusedByNameBeforeAnyRedisCall() {
        long scripts = deployment.scriptsRun();
        DistributedCountDownLatch latch = baton.countDownLatch("args");
        assertThatThrownBy(() -> latch.trySetCount(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count");
        assertThatThrownBy(() -> latch.trySetCount(-3, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count");
        assertThatThrownBy(() -> latch.trySetCount(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expiry");
        assertThatThrownBy(() -> latch.trySetCount(1, Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> latch.trySetCount(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("expiry");
        assertThatThrownBy(() -> latch.await(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> latch.await(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> baton.countDownLatch(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> baton.countDownLatch(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThat(deployment.scriptsRun()).as("no script ran").isEqualTo(scripts);
    }

    @Test
    void redisDownFailsEveryCallAndEveryWaiterWithinTheTimeout() throws Exception {
        RedisServer server = deployment.masters().get(0);
        try (Baton quick = Baton.connect(TestBatons.config(server.uri()))) {
            DistributedCountDownLatch latch = quick.countDownLatch("down");
            latch.trySetCount(2);
            Future<Boolean> waiter = threads.submit(() -> latch.await(LONG));
            await().atMost(LONG).until(() -> deployment.subscribers("baton:latch:{down}:released") == 1);

            server.kill();
            long killed = System.nanoTime();
            assertThatThrownBy(() -> waiter.get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(BatonUnavailableException.class);
            long bound = TestBatons.RECHECK.toMillis() + TestBatons.TIMEOUT.toMillis() + 3_000;
            assertThat(Measure.millisSince(killed)).as("within a re-check plus a command timeout").isLessThan(bound);
            for (Runnable call : List.<Runnable>of(latch::countDown, latch::count, () -> latch.trySetCount(1))) {
                long start = System.nanoTime();
                assertThatThrownBy(call::run).isInstanceOf(BatonUnavailableException.class);
                assertThat(Measure.millisSince(start)).isLessThan(TestBatons.TIMEOUT.toMillis() + 3_000);
            }
            long start = System.nanoTime();
            assertThatThrownBy(() -> latch.await(LONG)).isInstanceOf(BatonUnavailableException.class);
            assertThat(Measure.millisSince(start)).isLessThan(TestBatons.TIMEOUT.toMillis() + 3_000);
        }
    }

    @Test
    void anInterruptedOrClosedWaitEnds() throws Exception {
        DistributedCountDownLatch latch = other.countDownLatch("ends");
        latch.trySetCount(1);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> latch.await(LONG)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("the interrupt was consumed").isFalse();

        CountDownLatch started = new CountDownLatch(1);
        List<Throwable> ended = new CopyOnWriteArrayList<>();
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                latch.await(LONG);
            } catch (Throwable t) {
                ended.add(t);
            }
        });
        waiter.start();
        started.await();
        await().atMost(LONG).until(() -> deployment.subscribers("baton:latch:{ends}:released") == 1);
        waiter.interrupt();
        await().atMost(LONG).until(() -> !ended.isEmpty());
        assertThat(ended.get(0)).isInstanceOf(InterruptedException.class);

        Future<Boolean> closedOn = threads.submit(() -> latch.await(LONG));
        await().atMost(LONG).until(() -> deployment.subscribers("baton:latch:{ends}:released") == 1);
        other.close();
        assertThatThrownBy(() -> closedOn.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> other.countDownLatch("ends")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(latch::count).isInstanceOf(IllegalStateException.class);
        assertThat(baton.countDownLatch("ends").count()).isEqualTo(1);
    }

    @Test
    void everyCountDownIsAnEvent() throws Exception {
        List<BatonListener.LatchCountedDown> events = new CopyOnWriteArrayList<>();
        BatonListener listener = new BatonListener() {
            @Override
            public void latchCountedDown(LatchCountedDown event) {
                events.add(event);
            }
        };
        try (Baton heard = Baton.connect(deployment.patientBuilder().listener(listener).build())) {
            DistributedCountDownLatch latch = heard.countDownLatch("told");
            latch.trySetCount(2);
            latch.countDown();
            latch.countDown();
            latch.countDown();
            baton.countDownLatch("told").countDown(); // another Baton's: not this listener's
            await().atMost(LONG).until(() -> events.size() == 3);
            assertThat(events).containsExactly(new BatonListener.LatchCountedDown("told", 1),
                    new BatonListener.LatchCountedDown("told", 0), new BatonListener.LatchCountedDown("told", 0));
        }
    }

    @OnEveryTopology
    void operatorsSeeTheLatchBesideTheLocksOfItsName() throws Exception {
        DistributedCountDownLatch latch = baton.countDownLatch("shared");
        latch.trySetCount(7);
        LockInfo alone = baton.inspect("shared");
        assertThat(alone.kinds()).containsExactly(LockType.LOCK, LockType.LATCH);
        assertThat(alone.isLocked()).as("nobody holds a latch").isFalse();
        assertThat(alone.otherKinds().get(0)).satisfies(l -> {
            assertThat(l.kind()).isEqualTo(LockType.LATCH);
            assertThat(l.permits()).as("the count").isEqualTo(7);
            assertThat(l.holder()).isEmpty();
            assertThat(l.holders()).isZero();
            assertThat(l.waiting()).isZero();
        });

        Lease held = other.lock("shared").acquire(Duration.ZERO);
        latch.countDown();
        LockInfo both = baton.inspect("shared");
        assertThat(both.kinds()).containsExactly(LockType.LOCK, LockType.LATCH);
        assertThat(both.isLocked()).isTrue();
        assertThat(both.otherKinds().get(0).permits()).isEqualTo(6);
        assertThat(latch.count()).as("the lock and the latch of a name are different objects").isEqualTo(6);
        held.release();

        for (int i = 0; i < 6; i++) {
            latch.countDown();
        }
        assertThat(baton.inspect("shared").kinds()).as("a released latch is gone").containsExactly(LockType.LOCK);
    }
}
