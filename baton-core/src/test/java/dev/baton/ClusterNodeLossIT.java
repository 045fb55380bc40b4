package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An operator learns from the log when Baton loses a cluster node, not only when it loses its main connection: the
 * node's connection drop is a warning naming the node, and the same Baton keeps working once a replica took over.
 */
class ClusterNodeLossIT {

    @Test
    void losingAClusterNodeIsAWarningNamingTheNodeAndTheBatonCarriesOn() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(); LogCapture log = LogCapture.start();
                Baton baton = Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                        .commandTimeout(Duration.ofSeconds(2)).build())) {
            // A lock on every master, so that Baton has a connection to each.
            for (RedisServer master : cluster.masters()) {
                DistributedLock lock = baton.lock(nameOn(cluster, master));
                lock.lock();
                lock.unlock();
            }
            RedisServer victim = cluster.masters().get(1);
            String name = nameOn(cluster, victim);
            victim.kill();
            await().atMost(Duration.ofSeconds(20)).until(() -> !log.lines(Level.WARN,
                    "lost the connection to cluster node").isEmpty());
            assertThat(log.lines(Level.WARN, "lost the connection to cluster node"))
                    .anyMatch(line -> line.contains(":" + victim.port()));

            cluster.awaitStable(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock lock = baton.lock(name);
                if (!lock.tryLock()) {
                    return false;
                }
                lock.unlock();
                return true;
            });
        }
    }

    private static String nameOn(RedisCluster cluster, RedisServer master) {
        for (int i = 0; ; i++) {
            String name = "node-loss-" + i;
            if (cluster.masterForKey("baton:lock:{" + name + "}").port() == master.port()) {
                return name;
            }
        }
    }
}
