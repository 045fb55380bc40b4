package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.HashSlot;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How releases reach waiters on a Redis Cluster: by sharded pub/sub on Redis 7 (the release is published on the
 * node that owns the lock's slot, and the subscription follows the slot when it moves), by classic pub/sub on
 * Redis 6.2, which has no sharded pub/sub (the subscription stays on the node it was made on, and every node hears
 * every release over the cluster bus, wherever the slot lives). The re-check interval is far longer than the bounds
 * below, so a waiter that acquires in time was woken by a notification, not by its re-check.
 *
 * <p>The first test runs on the binary the kit finds (PATH's 7.x in CI's first pass, the embedded 6.2 in its
 * second and on a machine with only a JDK) and checks what Baton does on the version it got; the second always runs
 * on the embedded 6.2.
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

    /** Whether the cluster runs Redis 7 or later, where Baton uses sharded pub/sub (as Baton tells, from INFO). */
    private static boolean hasShardedPubSub(RedisCluster cluster) {
        return !cluster.nodes().get(0).command("INFO", "server").contains("redis_version:6.");
    }

    /** The nodes on which someone listens on the channel with classic SUBSCRIBE. */
    private static List<RedisServer> classicListeners(RedisCluster cluster, String channel) {
        return cluster.nodes().stream().filter(n -> n.command("PUBSUB", "CHANNELS").contains(channel)).toList();
    }

    @Test
    void aWaiterIsWokenBeforeAndAfterItsLocksSlotMoves() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(); Baton holder = connect(cluster);
                Baton waiting = connect(cluster)) {
            boolean sharded = hasShardedPubSub(cluster);
            String name = "sharded";
            RedisServer owner = cluster.masterForKey("baton:lock:{" + name + "}");
            RedisServer target = cluster.masters().stream().filter(m -> !m.equals(owner)).findFirst().orElseThrow();
            DistributedLock lock = holder.lock(name);
            lock.lock();
            CompletableFuture<Long> waiter = waitFor(waiting, name);
            if (sharded) {
                // Redis 7: SSUBSCRIBE on the slot's owner, and no classic subscription anywhere.
                await().atMost(WOKEN_WITHIN).until(() -> owner.command("PUBSUB", "SHARDCHANNELS").contains(name));
                assertThat(classicListeners(cluster, channel(name))).isEmpty();
            } else {
                // Redis 6.2 (no PUBSUB SHARDCHANNELS, nor SSUBSCRIBE): a classic subscription, on one node only.
                await().atMost(WOKEN_WITHIN).until(() -> !classicListeners(cluster, channel(name)).isEmpty());
                assertThat(classicListeners(cluster, channel(name))).hasSize(1);
            }
            long first = lock.fencingToken();
            lock.unlock();
            assertThat(waiter.get(WOKEN_WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(first);

            // The slot moves while a waiter listens. On Redis 7 the old owner drops the subscription, Baton
            // subscribes again on the new owner; on 6.2 nothing is dropped, the subscription stays where it is, and
            // the new owner's PUBLISH reaches it over the cluster bus. Either way the next release wakes the waiter.
            lock.lock();
            CompletableFuture<Long> second = waitFor(waiting, name);
            // The second waiter is asleep: its try marked the lock (until then, the subscription seen could be the
            // first waiter's, lingering and about to be dropped).
            await().atMost(WOKEN_WITHIN).until(() -> owner.command("HGET", "baton:lock:{" + name + "}", "waiters")
                    != null);
            List<RedisServer> listeners;
            if (sharded) {
                await().atMost(WOKEN_WITHIN).until(() -> owner.command("PUBSUB", "SHARDCHANNELS").contains(name));
                listeners = List.of();
            } else {
                await().atMost(WOKEN_WITHIN).until(() -> !classicListeners(cluster, channel(name)).isEmpty());
                listeners = classicListeners(cluster, channel(name));
            }
            cluster.migrateSlot(HashSlot.of(name), target);
            if (sharded) {
                await().atMost(WOKEN_WITHIN).until(() -> target.command("PUBSUB", "SHARDCHANNELS").contains(name)
                        && !owner.command("PUBSUB", "SHARDCHANNELS").contains(name));
            } else {
                // Nothing moves it (awaited only in case the subscription seen above was the first waiter's,
                // then dropped by its linger and made again, on the same connection).
                await().atMost(WOKEN_WITHIN).until(() -> classicListeners(cluster, channel(name)).equals(listeners));
            }
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
