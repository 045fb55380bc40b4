package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One group for the whole class, since starting one takes seconds: the tests run in order, each leaving the group
 * in a state the next one expects (after a failover, after a killed master).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelGroupTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start();
    }

    @AfterAll
    static void closeGroup() {
        if (group != null) {
            group.close();
        }
    }

    private static Map<String, String> masterState(RedisServer sentinel) {
        return Replies.fields(Replies.call(sentinel, "SENTINEL", "MASTER", RedisSentinelGroup.MASTER_NAME));
    }

    private static int reportedMasterPort(RedisServer sentinel) {
        return Integer.parseInt(sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "baton-master").split("\n")[1]);
    }

    @Test
    @Order(1)
    void startsOneMasterTwoReplicasAndThreeSentinelsThatAgree() {
        List<RedisServer> data = group.dataNodes();
        List<RedisServer> sentinels = group.sentinels();
        assertThat(data).hasSize(3);
        assertThat(sentinels).hasSize(3);
        assertThat(group.masterName()).isEqualTo("baton-master");
        assertThat(group.sentinelUri()).isEqualTo("redis-sentinel://127.0.0.1:" + sentinels.get(0).port()
                + ",127.0.0.1:" + sentinels.get(1).port() + ",127.0.0.1:" + sentinels.get(2).port() + "#baton-master");

        RedisServer master = data.get(0);
        assertThat(group.master()).isSameAs(master);
        assertThat(group.replicas()).containsExactly(data.get(1), data.get(2));
        for (RedisServer sentinel : sentinels) {
            // Redis says redis_mode:sentinel, Valkey server_mode:sentinel.
            assertThat(sentinel.command("INFO", "server")).containsPattern("(?m)^(redis|server)_mode:sentinel\\r?$");
            assertThat(reportedMasterPort(sentinel)).isEqualTo(master.port());
            Map<String, String> state = masterState(sentinel);
            assertThat(state).containsEntry("flags", "master").containsEntry("num-slaves", "2")
                    .containsEntry("num-other-sentinels", "2").containsEntry("quorum", "2");
        }
        for (RedisServer replica : group.replicas()) {
            assertThat(replica.command("INFO", "replication"))
                    .contains("master_port:" + master.port()).contains("master_link_status:up");
        }
        assertThat(master.command("SET", "k", "v")).isEqualTo("OK");
        assertThat(master.command("WAIT", "2", "5000")).isEqualTo("2");
        assertThat(group.replicas()).allSatisfy(r -> assertThat(r.command("GET", "k")).isEqualTo("v"));
    }

    @Test
    @Order(2)
    void aRestartedSentinelKeepsWhatItLearnt() {
        RedisServer sentinel = group.sentinels().get(2);
        long pid = sentinel.pid();
        sentinel.restart();
        assertThat(sentinel.pid()).isNotEqualTo(pid);
        // Known at once from the config file it rewrote, before it hears from anyone again.
        assertThat(reportedMasterPort(sentinel)).isEqualTo(group.dataNodes().get(0).port());
        assertThat(masterState(sentinel)).containsEntry("num-slaves", "2").containsEntry("num-other-sentinels", "2");
        assertThat(group.awaitMaster(WAIT)).isSameAs(group.dataNodes().get(0));
    }

    @Test
    @Order(3)
    void failoverPromotesAReplicaAndTheGroupReportsIt() {
        RedisServer old = group.master();
        old.command("SET", "written-before-failover", "kept");
        assertThat(old.command("WAIT", "2", "5000")).isEqualTo("2");

        RedisServer promoted = group.failover();

        assertThat(promoted).isNotSameAs(old).isIn(group.dataNodes());
        assertThat(group.master()).isSameAs(promoted);
        assertThat(group.replicas()).hasSize(2).contains(old).doesNotContain(promoted);
        assertThat(group.sentinels()).allSatisfy(s -> assertThat(reportedMasterPort(s)).isEqualTo(promoted.port()));
        assertThat(promoted.command("GET", "written-before-failover")).isEqualTo("kept");
        assertThat(promoted.command("SET", "written-after-failover", "1")).isEqualTo("OK");
        for (RedisServer replica : group.replicas()) {
            assertThat(replica.command("ROLE")).startsWith("slave\n127.0.0.1\n" + promoted.port() + "\nconnected");
            assertThatThrownBy(() -> replica.command("SET", "x", "1")).hasMessageStartingWith("READONLY");
        }
    }

    @Test
    @Order(4)
    void theSentinelsReplaceAKilledMaster() {
        RedisServer killed = group.awaitMaster(WAIT);
        killed.kill();

        RedisServer master = group.awaitMaster(WAIT);

        assertThat(master).isNotSameAs(killed);
        assertThat(group.master()).isSameAs(master);
        assertThat(master.command("GET", "written-before-failover")).isEqualTo("kept");
    }

    @Test
    @Order(5)
    void closeLeavesNoProcessBehind() {
        List<RedisServer> all = new ArrayList<>(group.dataNodes());
        all.addAll(group.sentinels());
        NodeTraces traces = NodeTraces.of(all);

        group.close();
        group.close();

        assertThat(traces.anyAlive()).isFalse();
        assertThat(traces.dirs()).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }
}
