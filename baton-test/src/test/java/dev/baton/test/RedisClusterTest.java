package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One cluster for the whole class, since creating one takes seconds: the tests run in order, each leaving the
 * cluster in a state the next one can work from (they look up the current owners rather than assume them).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void startsThreeMastersWithOneReplicaEachOverAllSlots() {
        List<RedisServer> nodes = cluster.nodes();
        assertThat(nodes).hasSize(6);
        assertThat(cluster.seedUris()).containsExactlyElementsOf(nodes.stream().map(RedisServer::uri).toList());
        // Every node also listens on port + 10000 for the cluster bus, which must exist.
        assertThat(nodes).allSatisfy(n -> assertThat(n.port()).isLessThanOrEqualTo(55_535));

        assertThat(cluster.masters()).containsExactly(nodes.get(0), nodes.get(1), nodes.get(2));
        for (int i = 0; i < 3; i++) {
            assertThat(cluster.replicasOf(nodes.get(i))).containsExactly(nodes.get(i + 3));
            assertThat(cluster.replicasOf(nodes.get(i + 3))).isEmpty();
        }
        assertThat(List.of(0, 5460, 5461, 10922, 10923, 16383)).extracting(cluster::masterFor).containsExactly(
                nodes.get(0), nodes.get(0), nodes.get(1), nodes.get(1), nodes.get(2), nodes.get(2));
        for (RedisServer node : nodes) {
            assertThat(node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_known_nodes:6",
                    "cluster_size:3", "cluster_slots_ok:16384");
        }
        assertThatThrownBy(() -> cluster.masterFor(HashSlot.COUNT)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Order(2)
    void hashSlotsMatchClusterKeyslot() {
        List<String> keys = new ArrayList<>(List.of("", "a", "foo", "123456789", "{user1000}.following",
                "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{}", "{", "}", "}{", "{a", "a}", "{a}", "{}a", "a{b",
                "ключ{ü}", "baton:lock:{orders}", "x".repeat(300)));
        Random random = new Random(42);
        String alphabet = "ab{}:xy0é";
        for (int i = 0; i < 200; i++) {
            StringBuilder key = new StringBuilder();
            for (int n = random.nextInt(12); n > 0; n--) {
                key.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            keys.add(key.toString());
        }
        RedisServer node = cluster.nodes().get(0);
        for (String key : keys) {
            assertThat(HashSlot.of(key)).as("slot of '%s'", key)
                    .isEqualTo(Integer.parseInt(node.command("CLUSTER", "KEYSLOT", key)));
        }
        for (String key : List.of("a", "foo", "{user1000}.following", "baton:lock:{orders}")) {
            assertThat(cluster.masterForKey(key).command("SET", key, "v")).as("no MOVED for '%s'", key).isEqualTo("OK");
        }
    }

    @Test
    @Order(3)
    void failoverPromotesTheReplicaAndKeysStayReadable() {
        String key = "{failover}k";
        RedisServer master = cluster.masterForKey(key);
        master.command("SET", key, "v1");
        assertThat(master.command("WAIT", "1", "5000")).isEqualTo("1");
        RedisServer replica = cluster.replicasOf(master).get(0);

        cluster.failover(replica);

        assertThat(cluster.masterForKey(key)).isSameAs(replica);
        assertThat(cluster.replicasOf(replica)).containsExactly(master);
        assertThat(replica.command("GET", key)).isEqualTo("v1");
        assertThatThrownBy(() -> master.command("GET", key))
                .hasMessage("MOVED " + HashSlot.of(key) + " 127.0.0.1:" + replica.port());
        assertThatThrownBy(() -> cluster.failover(replica)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Order(4)
    void migrateSlotMovesTheKeysToTheNewOwner() {
        String tag = "{migrate}";
        int slot = HashSlot.of(tag);
        RedisServer from = cluster.masterFor(slot);
        RedisServer to = cluster.masters().stream().filter(m -> !m.equals(from)).findFirst().orElseThrow();
        int keys = 150; // more than one MIGRATE batch
        for (int i = 0; i < keys; i++) {
            from.command("SET", tag + i, "v" + i);
        }
        RedisServer neighbourOwner = cluster.masterFor(slot + 1);

        cluster.migrateSlot(slot, to);

        assertThat(cluster.masterFor(slot)).isSameAs(to);
        for (RedisServer node : cluster.nodes()) {
            assertThat(ClusterNodes.of(node).ownerOf(slot)).get().extracting(ClusterNodes.Node::port)
                    .as("owner in the view of %s", node).isEqualTo(to.port());
        }
        assertThat(cluster.masterFor(slot + 1)).isSameAs(neighbourOwner);
        assertThat(to.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(Integer.toString(keys));
        assertThat(from.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo("0");
        assertThat(to.command("GET", tag + 7)).isEqualTo("v7");
        assertThatThrownBy(() -> from.command("GET", tag + 7)).hasMessage("MOVED " + slot + " 127.0.0.1:" + to.port());

        cluster.migrateSlot(slot, to); // already there: nothing to do
        assertThatThrownBy(() -> cluster.migrateSlot(slot, cluster.replicasOf(to).get(0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Order(5)
    void aKilledMasterIsReplacedByItsReplicaAndRejoinsAsReplicaAfterRestart() {
        RedisServer master = cluster.masterFor(0);
        RedisServer replica = cluster.replicasOf(master).get(0);

        master.kill();
        cluster.awaitStable(WAIT);

        assertThat(cluster.masterFor(0)).isSameAs(replica);
        master.restart();
        cluster.awaitStable(WAIT);
        assertThat(cluster.replicasOf(replica)).containsExactly(master);
    }

    @Test
    @Order(6)
    void closeLeavesNoProcessBehind() {
        NodeTraces traces = NodeTraces.of(cluster.nodes());

        cluster.close();
        cluster.close();

        assertThat(traces.anyAlive()).isFalse();
        assertThat(traces.dirs()).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }

    /** A cluster of another size, as benchmarks that add masters start: the slots split evenly, replicas follow. */
    @Test
    @Order(100)
    void startsAnyNumberOfMastersWithTheSlotsSplitEvenly() {
        assertThatThrownBy(() -> RedisCluster.start(RedisBinary.locate(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("masters");
        try (RedisCluster two = RedisCluster.start(RedisBinary.locate(), 2)) {
            List<RedisServer> nodes = two.nodes();
            assertThat(nodes).hasSize(4);
            assertThat(two.masters()).containsExactly(nodes.get(0), nodes.get(1));
            assertThat(two.replicasOf(nodes.get(0))).containsExactly(nodes.get(2));
            assertThat(two.replicasOf(nodes.get(1))).containsExactly(nodes.get(3));
            assertThat(List.of(0, 8191, 8192, 16383)).extracting(two::masterFor)
                    .containsExactly(nodes.get(0), nodes.get(0), nodes.get(1), nodes.get(1));
            for (RedisServer node : nodes) {
                assertThat(node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_known_nodes:4",
                        "cluster_size:2", "cluster_slots_ok:16384");
            }
        }
    }
}
