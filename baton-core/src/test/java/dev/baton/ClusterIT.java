package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.TestBatons;
import dev.baton.test.HashSlot;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Baton on a Redis Cluster (3 masters, 1 replica each): locks on every master, waiters woken, renewals that land
 * (one script per hash slot), rate limiters, and the same {@code Baton} through a failover and a slot migration
 * while locks are held.
 */
class ClusterIT {
    /** Long enough that a loaded machine's slow round is no lost lease; the holds below outlive it twice. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private static Baton connect() {
        return Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(2)).watchdogLease(LEASE)
                .recheckInterval(TestBatons.RECHECK).build());
    }

    /** A lock name whose keys live on the given master. */
    private static String nameOn(RedisServer master, String prefix) {
        for (int i = 0; ; i++) {
            String name = prefix + i;
            if (cluster.masterForKey("baton:lock:{" + name + "}").port() == master.port()) {
                return name;
            }
        }
    }

    @Test
    void locksOnEveryMasterAreRenewedAndWaitersWoken() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (Baton baton = connect(); Baton other = connect()) {
            List<DistributedLock> held = new ArrayList<>();
            for (RedisServer master : cluster.masters()) {
                DistributedLock lock = baton.lock(nameOn(master, "every-"));
                lock.lock();
                held.add(lock);
                assertThat(master.command("EXISTS", "baton:lock:{" + lock.name() + "}")).isEqualTo("1");
            }
            // Twice the watchdog lease: only renewals (one script per slot) keep them.
            long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - until > 0);
            for (DistributedLock lock : held) {
                assertThat(lock.isHeldByCurrentThread()).isTrue();
                assertThat(other.lock(lock.name()).isLocked()).isTrue();
            }

            // Another process waits on each; a release wakes it.
            List<Future<Long>> waiters = new ArrayList<>();
            for (DistributedLock lock : held) {
                waiters.add(threads.submit(() -> {
                    DistributedLock theirs = other.lock(lock.name());
                    theirs.lock();
                    long token = theirs.fencingToken();
                    theirs.unlock();
                    return token;
                }));
            }
            for (int i = 0; i < held.size(); i++) {
                long mine = held.get(i).fencingToken();
                held.get(i).unlock();
                assertThat(waiters.get(i).get(20, TimeUnit.SECONDS)).isGreaterThan(mine);
            }

            RateLimiter limiter = baton.rateLimiter("cluster-api", RateLimit.of(5, Duration.ofHours(1)),
                    RateLimit.builder(3, Duration.ofMinutes(1)).algorithm(RateLimit.Algorithm.SLIDING_WINDOW_LOG)
                            .build());
            assertThat(limiter.tryAcquire(3).allowed()).isTrue();
            assertThat(limiter.tryAcquire().allowed()).isFalse();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theSameBatonFollowsAFailoverAndASlotMigrationWhileLocksAreHeld() throws Exception {
        try (Baton baton = connect()) {
            RedisServer first = cluster.masters().get(0);
            DistributedLock moving = baton.lock(nameOn(first, "moving-"));
            moving.lock();
            RedisServer target = cluster.masters().get(1);
            cluster.migrateSlot(HashSlot.of(moving.name()), target);
            assertThat(target.command("EXISTS", "baton:lock:{" + moving.name() + "}")).isEqualTo("1");
            // Renewals and the release find the lock on its new master (MOVED is followed).
            long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - until > 0);
            assertThat(moving.isHeldByCurrentThread()).isTrue();
            moving.unlock();
            assertThat(baton.lock(moving.name()).isLocked()).isFalse();

            RedisServer third = cluster.masters().get(2);
            String name = nameOn(third, "failover-");
            DistributedLock before = baton.lock(name);
            before.lock();
            long token = before.fencingToken();
            before.unlock();
            cluster.failover(cluster.replicasOf(third).get(0));
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock after = baton.lock(name);
                if (!after.tryLock()) {
                    return false;
                }
                boolean increasing = after.fencingToken() > token;
                after.unlock();
                return increasing;
            });
        }
    }

    @Test
    void replicaAcknowledgedLocksAreRefusedOnAClusterBeforeAnyRedisCall() {
        try (Baton baton = connect()) {
            assertThatThrownBy(() -> baton.lock("acked", LockOptions.replicaAcknowledged(1, Duration.ofSeconds(1))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("not supported on a Redis Cluster");
            DistributedLock plain = baton.lock("acked", LockOptions.unacknowledged());
            assertThat(plain.tryLock()).isTrue();
            plain.unlock();
        }
    }

    @Test
    void aClusterUriAgainstAStandaloneServerAndTheReverseSayWhatIsWrong() {
        try (RedisServer standalone = RedisServer.start()) {
            assertThatThrownBy(() -> Baton.connect(BatonConfig.builder().cluster(standalone.uri())
                    .commandTimeout(Duration.ofSeconds(2)).build()))
                    .isExactlyInstanceOf(BatonException.class).hasMessageContaining("is not a cluster node");
        }
        try (Baton wrong = Baton.connect(BatonConfig.builder().uri(cluster.seedUris().get(0))
                .commandTimeout(Duration.ofSeconds(2)).build())) {
            // Some name lands on another master than the one connected to.
            RedisServer elsewhere = cluster.masters().stream()
                    .filter(m -> !cluster.seedUris().get(0).endsWith(":" + m.port())).findFirst().orElseThrow();
            String name = nameOn(elsewhere, "elsewhere-");
            assertThatThrownBy(() -> wrong.lock(name).tryLock()).isExactlyInstanceOf(BatonException.class)
                    .hasMessageContaining("is a node of a Redis Cluster").hasMessageContaining("cluster(");
        }
    }
}
