package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.TestBatons;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Baton behind Sentinel: it finds the master through the sentinels ({@code redis-sentinel://...#master}), and the same
 * {@code Baton} follows a failover to the promoted replica, with fencing tokens that keep increasing across it.
 */
class SentinelIT {
    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start();
    }

    @AfterAll
    static void stopGroup() {
        group.close();
    }

    private static Baton connect() {
        return Baton.connect(BatonConfig.builder().uri(group.sentinelUri()).commandTimeout(Duration.ofSeconds(2))
                .watchdogLease(Duration.ofSeconds(6)).recheckInterval(TestBatons.RECHECK).build());
    }

    @Test
    void replicaAcknowledgedLocksAreOnBothReplicasAndFollowAFailover() {
        try (Baton baton = Baton.connect(BatonConfig.builder().uri(group.sentinelUri())
                .commandTimeout(Duration.ofSeconds(2)).watchdogLease(Duration.ofSeconds(6))
                .recheckInterval(TestBatons.RECHECK).replicaAcknowledged(2, Duration.ofSeconds(5)).build())) {
            assertAcknowledgedByEveryReplica(baton, "acked-before");

            group.failover();

            // The dedicated connections of the WAITs reach the new master too, once the sentinels name it.
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .untilAsserted(() -> assertAcknowledgedByEveryReplica(baton, "acked-after"));
        }
    }

    private static void assertAcknowledgedByEveryReplica(Baton baton, String name) {
        DistributedLock lock = baton.lock(name);
        lock.lock();
        try {
            String token = Long.toString(lock.fencingToken());
            for (RedisServer replica : group.replicas()) {
                assertThat(replica.command("HGET", "baton:lock:{" + name + "}", "token")).as("on " + replica)
                        .isEqualTo(token);
            }
        } finally {
            lock.unlock();
        }
    }

    @Test
    void findsTheMasterThroughTheSentinelsAndFollowsAFailover() {
        try (Baton baton = connect()) {
            RedisServer master = group.master();
            DistributedLock lock = baton.lock("sentinel");
            lock.lock();
            long before = lock.fencingToken();
            lock.unlock();
            assertThat(master.command("EXISTS", "baton:lock:{sentinel}:token")).as("written to the master")
                    .isEqualTo("1");
            RateLimiter limiter = baton.rateLimiter("sentinel", RateLimit.of(100, Duration.ofHours(1)));
            assertThat(limiter.tryAcquire().allowed()).isTrue();

            RedisServer promoted = group.failover();
            assertThat(promoted.port()).isNotEqualTo(master.port());

            // The same Baton reaches the new master once it has reconnected; nothing else is needed.
            AtomicLong after = new AtomicLong();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock again = baton.lock("sentinel");
                if (!again.tryLock()) {
                    return false;
                }
                after.set(again.fencingToken());
                again.unlock();
                return true;
            });
            assertThat(after.get()).as("tokens keep increasing across the failover").isGreaterThan(before);
            assertThat(promoted.command("EXISTS", "baton:lock:{sentinel}:token")).isEqualTo("1");
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> limiter.tryAcquire().allowed());
        }
    }
}
