package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Baton on a Redis Cluster as an ACL user with the rule of docs/acl.md plus its Cluster additions: locks, wake-ups
 * (sharded on Redis 7), renewals and rate limits work, and nothing is refused.
 */
class ClusterAclIT {
    /** docs/acl.md, "On a Redis Cluster": what a Cluster adds to {@link AclIT#RULE}. */
    static final String CLUSTER_ADDITIONS =
            "+cluster|nodes +cluster|myid +client|setname +info +ssubscribe +sunsubscribe +spublish";
    private static final String PASSWORD = "Xq9v-Tz4k-Wm2j";
    /** Far beyond the waits below: a waiter that acquires in time was woken by a notification. */
    private static final Duration RECHECK = Duration.ofSeconds(60);

    @Test
    void everyFeatureWorksUnderTheClusterRule() throws Exception {
        try (RedisCluster cluster = RedisCluster.start()) {
            List<String> rule = new ArrayList<>(List.of("ACL", "SETUSER", "baton", "reset", "on", ">" + PASSWORD));
            rule.addAll(List.of(AclIT.RULE.split(" ")));
            rule.addAll(List.of(CLUSTER_ADDITIONS.split(" ")));
            for (RedisServer node : cluster.nodes()) {
                assertThat(node.command(rule.toArray(String[]::new))).isEqualTo("OK");
            }
            String[] seeds = cluster.seedUris().stream().map(u -> u.replace("redis://", "redis://baton:" + PASSWORD
                    + "@")).toArray(String[]::new);
            BatonConfig config = BatonConfig.builder().cluster(seeds).commandTimeout(Duration.ofSeconds(3))
                    .watchdogLease(Duration.ofSeconds(3)).recheckInterval(RECHECK).build();
            try (Baton holder = Baton.connect(config); Baton other = Baton.connect(config)) {
                for (RedisServer master : cluster.masters()) {
                    String name = nameOn(cluster, master);
                    DistributedLock lock = holder.lock(name);
                    lock.lock();
                    CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                        DistributedLock theirs = other.lock(name);
                        try {
                            assertThat(theirs.tryLock(Duration.ofSeconds(50))).isTrue();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        long token = theirs.fencingToken();
                        theirs.unlock();
                        return token;
                    });
                    // Held past its watchdog lease: renewals land.
                    long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> System.nanoTime() - until > 0);
                    assertThat(lock.isHeldByCurrentThread()).isTrue();
                    long token = lock.fencingToken();
                    lock.unlock();
                    assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(token);
                }
                RateLimiter limiter = holder.rateLimiter("cluster-acl", RateLimit.of(2, Duration.ofHours(1)));
                assertThat(limiter.tryAcquire(2).allowed()).isTrue();
                assertThat(limiter.tryAcquire().allowed()).isFalse();
            }
            for (RedisServer node : cluster.nodes()) {
                assertThat(node.command("ACL", "LOG")).as("refusals on " + node).doesNotContain("baton");
            }
        }
    }

    private static String nameOn(RedisCluster cluster, RedisServer master) {
        for (int i = 0; ; i++) {
            String name = "acl-" + i;
            if (cluster.masterForKey("baton:lock:{" + name + "}").port() == master.port()) {
                return name;
            }
        }
    }
}
