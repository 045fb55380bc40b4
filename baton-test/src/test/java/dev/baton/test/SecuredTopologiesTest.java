package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The topologies as production runs them: a Sentinel group whose data nodes and sentinels each require a password of
 * their own, and a cluster that speaks TLS only. The kit keeps its guarantees on them.
 */
class SecuredTopologiesTest {

    @Test
    void aSentinelGroupWithPasswordsOfItsOwnForDataNodesAndSentinelsFailsOver() {
        try (RedisSentinelGroup group = RedisSentinelGroup.startWithPasswords("data-pw", "sentinel-pw")) {
            RedisServer sentinel = group.sentinels().get(0);
            RedisServer master = group.master();
            assertThatThrownBy(() -> Resp.call(sentinel.host(), sentinel.port(), 2_000, null, "PING"))
                    .as("a sentinel wants its password").hasMessageStartingWith("NOAUTH");
            assertThatThrownBy(() -> Resp.call(sentinel.host(), sentinel.port(), 2_000, "data-pw", "PING"))
                    .as("and not the data nodes'").hasMessageMatching("(WRONGPASS|ERR invalid password).*");
            assertThatThrownBy(() -> Resp.call(master.host(), master.port(), 2_000, null, "PING"))
                    .as("a data node wants its password").hasMessageStartingWith("NOAUTH");
            assertThat(group.sentinelUri()).doesNotContain("pw");

            RedisServer promoted = group.failover();

            assertThat(promoted).isNotSameAs(master);
            assertThat(promoted.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(master.command("ROLE")).as("the old master replicates with masterauth")
                    .startsWith("slave\n127.0.0.1\n" + promoted.port());
        }
    }

    @Test
    void startWithPasswordsRefusesAnEmptyOne() {
        assertThatThrownBy(() -> RedisSentinelGroup.startWithPasswords("", "sentinel-pw"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataNodePassword");
    }

    @Test
    void aTlsClusterSpeaksTlsOnClientPortsAndBetweenNodes() {
        TlsFiles tls = TlsFiles.generate();
        try (RedisCluster cluster = RedisCluster.startTls(tls)) {
            assertThat(cluster.seedUris()).allSatisfy(uri -> assertThat(uri).startsWith("rediss://127.0.0.1:"));
            RedisServer node = cluster.nodes().get(0);
            assertThat(node.command("CONFIG", "GET", "tls-cluster")).isEqualTo("tls-cluster\nyes");
            assertThat(node.command("CONFIG", "GET", "port")).isEqualTo("port\n0");
            assertThatThrownBy(() -> Resp.call(node.host(), node.port(), 2_000, null, "PING"))
                    .isInstanceOf(IOException.class);
            RedisServer owner = cluster.masterForKey("{k}");
            assertThat(owner.command("SET", "{k}", "v")).isEqualTo("OK");
            assertThat(owner.command("WAIT", "1", "5000")).as("replicated over TLS").isEqualTo("1");
        }
    }

    @Test
    void aTlsSentinelGroupFailsOverOverTls() {
        TlsFiles tls = TlsFiles.generate();
        try (RedisSentinelGroup group = RedisSentinelGroup.startTls(tls)) {
            assertThat(group.sentinelUri()).startsWith("rediss-sentinel://127.0.0.1:");
            RedisServer sentinel = group.sentinels().get(0);
            assertThatThrownBy(() -> Resp.call(sentinel.host(), sentinel.port(), 2_000, null, "PING"))
                    .as("a sentinel speaks TLS only").isInstanceOf(IOException.class);
            // Redis says redis_mode:sentinel, Valkey server_mode:sentinel.
            assertThat(sentinel.command("INFO", "server")).containsPattern("(?m)^(redis|server)_mode:sentinel\\r?$");
            RedisServer master = group.master();

            RedisServer promoted = group.failover();

            assertThat(promoted).isNotSameAs(master);
            assertThat(promoted.command("SET", "k", "v")).isEqualTo("OK");
        }
    }
}
