package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.HashSlot;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How releases reach waiters on a Redis Cluster: by sharded pub/sub on Redis 7 (the release is published on the
 * node that owns the lock's slot, and the subscription follows the slot when it moves), by classic pub/sub on
 * Redis 6.2. The re-check interval is far longer than the bounds below, so a waiter that acquires in time was woken
 * by a notification, not by its re-check.
 */
class ShardedNotificationsIT {
    /** Far beyond every wait below: only a notification can wake a waiter in time. */
    private static final Duration RECHECK = Duration.ofSeconds(60);
    private static final Duration WOKEN_WITHIN = Duration.ofSeconds(15);

    private static Baton connect(RedisCluster cluster) {
        return Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(2)).recheckInterval(RECHECK).build());
    }

    private static String channel(String name) {
        return "baton:lock:{" + name + "}:released";
    }

    /** Starts a waiter for the lock in another Baton; completes with its fencing token once it acquired. */
    private static CompletableFuture<Long> waitFor(Baton other, String name) {
        return CompletableFuture.supplyAsync(() -> {
            DistributedLock lock = other.lock(name);
            try {
                if (!lock.tryLock(Duration.ofSeconds(50))) {
                    throw new AssertionError("the waiter for " + name + " was not woken");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            long token = lock.fencingToken();
            lock.unlock();
            return token;
        });
    }

    @Test
    void onRedis7AReleaseIsPublishedOnTheLocksShardAndTheSubscriptionFollowsItsSlot() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(); Baton holder = connect(cluster);
                Baton waiting = connect(cluster)) {
            String name = "sharded";
            RedisServer owner = cluster.masterForKey("baton:lock:{" + name + "}");
            DistributedLock lock = holder.lock(name);
            lock.lock();
            CompletableFuture<Long> waiter = waitFor(waiting, name);
            await().atMost(WOKEN_WITHIN).until(() -> owner.command("PUBSUB", "SHARDCHANNELS").contains(name));
            for (RedisServer node : cluster.nodes()) {
                assertThat(node.command("PUBSUB", "CHANNELS")).doesNotContain(name);
            }
            long first = lock.fencingToken();
            lock.unlock();
            assertThat(waiter.get(WOKEN_WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(first);

            // The slot moves while a waiter listens: the old owner drops the subscription, Baton subscribes again
            // on the new owner, and the next release still wakes the waiter.
            lock.lock();
            CompletableFuture<Long> second = waitFor(waiting, name);
            await().atMost(WOKEN_WITHIN).until(() -> owner.command("PUBSUB", "SHARDCHANNELS").contains(name));
            RedisServer target = cluster.masters().stream().filter(m -> !m.equals(owner)).findFirst().orElseThrow();
            cluster.migrateSlot(HashSlot.of(name), target);
            await().atMost(WOKEN_WITHIN).until(() -> target.command("PUBSUB", "SHARDCHANNELS").contains(name));
            long before = lock.fencingToken();
            lock.unlock();
            assertThat(second.get(WOKEN_WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(before);
        }
    }

    @Test
    void onRedis62ReleasesUseClassicPubSub() throws Exception {
        RedisBinary embedded = RedisBinary.embedded();
        try (RedisCluster cluster = RedisCluster.start(embedded); Baton holder = connect(cluster);
                Baton waiting = connect(cluster)) {
            String name = "classic";
            DistributedLock lock = holder.lock(name);
            lock.lock();
            CompletableFuture<Long> waiter = waitFor(waiting, name);
            await().atMost(WOKEN_WITHIN).until(() -> cluster.nodes().stream()
                    .anyMatch(node -> node.command("PUBSUB", "CHANNELS").contains(channel(name))));
            long token = lock.fencingToken();
            lock.unlock();
            assertThat(waiter.get(WOKEN_WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(token);
        }
    }
}
