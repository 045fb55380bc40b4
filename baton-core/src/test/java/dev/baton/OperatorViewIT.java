package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What operators see of a running Baton without reading Redis keys: {@link Baton#heldLocks()} lists exactly the holds
 * of this process, with their kind, token, count, thread and lease; {@link Baton#health()} says whether Redis runs
 * Baton's scripts, and answers within the command timeout when Redis is gone, never hanging.
 */
class OperatorViewIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private static BatonConfig.Builder config() {
        return BatonConfig.builder().uri(redis.server().uri()).commandTimeout(TIMEOUT)
                .watchdogLease(Duration.ofSeconds(30));
    }

    @Test
    void heldLocksListsEveryHoldOfThisProcessAndNothingElse() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "a worker thread"));
        CountDownLatch done = new CountDownLatch(1);
        try (Baton baton = Baton.connect(config().build()); Baton elsewhere = Baton.connect(config().build())) {
            assertThat(baton.heldLocks()).isEmpty();
            Instant before = Instant.now();
            DistributedLock mutex = baton.lock("orders");
            mutex.lock();
            mutex.lock(); // re-entered: one hold, count 2
            Lease lease = baton.fairLock("queue").acquire(Duration.ZERO);
            Optional<Lease> fixed = baton.lock("fixed").tryAcquire(Duration.ZERO, Duration.ofSeconds(20));
            Future<?> reader = other.submit(() -> {
                baton.readWriteLock("catalog").readLock().lock();
                done.await();
                baton.readWriteLock("catalog").readLock().unlock();
                return null;
            });
            elsewhere.lock("not-ours").lock();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> baton.heldLocks().size() == 4);

            List<HeldLock> held = baton.heldLocks();
            assertThat(held).extracting(HeldLock::name).containsExactly("catalog", "fixed", "orders", "queue");
            HeldLock orders = held.get(2);
            assertThat(orders.type()).isEqualTo(LockType.LOCK);
            assertThat(orders.holdCount()).isEqualTo(2);
            assertThat(orders.fencingToken()).isEqualTo(mutex.fencingToken());
            assertThat(orders.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(orders.leaseOwned()).isFalse();
            assertThat(orders.watchdog()).isTrue();
            assertThat(orders.since()).isBetween(before.minusSeconds(1), Instant.now());
            assertThat(orders.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
            assertThat(held.get(3)).satisfies(q -> {
                assertThat(q.type()).isEqualTo(LockType.FAIR);
                assertThat(q.leaseOwned()).isTrue();
                assertThat(q.fencingToken()).isEqualTo(lease.fencingToken());
            });
            assertThat(held.get(1)).satisfies(f -> {
                assertThat(f.watchdog()).as("a fixed lease is not renewed").isFalse();
                assertThat(f.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
            });
            assertThat(held.get(0)).satisfies(r -> {
                assertThat(r.type()).isEqualTo(LockType.READ);
                assertThat(r.thread()).isEqualTo("a worker thread");
            });

            done.countDown();
            reader.get(10, TimeUnit.SECONDS);
            mutex.unlock();
            mutex.unlock();
            lease.release();
            fixed.orElseThrow().release();
            assertThat(baton.heldLocks()).isEmpty();
            elsewhere.lock("not-ours").unlock();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void aClosedBatonHoldsNothingAndSaysItIsClosed() {
        Baton baton = Baton.connect(config().build());
        baton.lock("left-behind").lock();
        baton.close();
        assertThat(baton.heldLocks()).isEmpty();
        BatonHealth health = baton.health();
        assertThat(health.status()).isEqualTo(BatonHealth.Status.CLOSED);
        assertThat(health.isUp()).isFalse();
    }

    @Test
    void healthIsUpWithTheScriptsRunnableEvenForTheDocumentedAclUser() {
        List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", "health-user", "reset", "on",
                ">Xq9v-Tz4k-Wm2j"));
        args.addAll(List.of(AclIT.RULE.split(" "))); // docs/acl.md's rule: no PING, scripts only
        redis.server().command(args.toArray(String[]::new));
        try (Baton baton = Baton.connect(config().username("health-user")
                .password("Xq9v-Tz4k-Wm2j".toCharArray()).build())) {
            BatonHealth health = baton.health();
            assertThat(health.isUp()).as("%s", health).isTrue();
            assertThat(health.problem()).isEmpty();
            assertThat(health.topology()).isEqualTo("standalone");
            assertThat(health.endpoint()).contains(String.valueOf(redis.server().port()))
                    .doesNotContain("Xq9v");
            assertThat(health.latency()).isPositive().isLessThan(TIMEOUT.multipliedBy(2));
        }
    }

    @Test
    void healthLoadsFlushedScriptsAgainAndReportsAUserThatMayNotRunThemAsRefused() {
        List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", "health-user", "reset", "on",
                ">Xq9v-Tz4k-Wm2j"));
        args.addAll(List.of(AclIT.RULE.split(" ")));
        redis.server().command(args.toArray(String[]::new));
        try (Baton baton = Baton.connect(config().username("health-user")
                .password("Xq9v-Tz4k-Wm2j".toCharArray()).build())) {
            assertThat(baton.health().isUp()).isTrue();
            // A restarted or failed-over Redis has no scripts cached: the check loads Baton's script again.
            redis.server().command("SCRIPT", "FLUSH");
            assertThat(baton.health().isUp()).as("after SCRIPT FLUSH").isTrue();

            // An operator takes the scripting commands away from Baton's user: Redis answers, but refuses.
            redis.server().command("ACL", "SETUSER", "health-user", "-evalsha", "-eval");
            BatonHealth refused = baton.health();
            assertThat(refused.status()).as("%s", refused).isEqualTo(BatonHealth.Status.REFUSED);
            assertThat(refused.problem()).hasValueSatisfying(problem -> assertThat(problem)
                    .containsIgnoringCase("NOPERM").doesNotContain("Xq9v"));
        } finally {
            redis.server().command("ACL", "DELUSER", "health-user");
        }
    }

    @Test
    void healthReportsARedisThatNoLongerAnswersWithinTheTimeout() {
        try (Baton baton = Baton.connect(config().build())) {
            assertThat(baton.health().isUp()).isTrue();
            redis.server().pause(); // connected, but nothing answers: only the timeout ends the check
            try {
                long start = System.nanoTime();
                BatonHealth down = baton.health();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(down.status()).isEqualTo(BatonHealth.Status.UNREACHABLE);
                assertThat(took).isGreaterThanOrEqualTo(TIMEOUT.minusMillis(50))
                        .isLessThan(TIMEOUT.multipliedBy(3).plusSeconds(2));
            } finally {
                redis.server().resume();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> baton.health().isUp());
        }
    }

    @Test
    void healthReportsAStoppedRedisWithinTheTimeoutAndRecoversWithIt() {
        try (Baton baton = Baton.connect(config().build())) {
            assertThat(baton.health().isUp()).isTrue();
            redis.server().stop();
            try {
                long start = System.nanoTime();
                BatonHealth down = baton.health();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(down.status()).isEqualTo(BatonHealth.Status.UNREACHABLE);
                assertThat(down.problem()).isPresent();
                // the await's bound is the command timeout plus a margin; a loaded machine adds scheduling delays
                assertThat(took).isLessThan(TIMEOUT.multipliedBy(3).plusSeconds(2));
            } finally {
                redis.server().restart();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> baton.health().isUp());
        }
    }
}
