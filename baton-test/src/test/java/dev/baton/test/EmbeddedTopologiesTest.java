package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The topologies also come up from the binary inside the embedded-redis jar (Redis 6.2), which is all a machine with
 * only a JDK has; the other topology tests use the binary that {@link RedisBinary#locate()} finds (in CI, PATH's 7.x in
 * the first run and this same 6.2 in the second).
 */
class EmbeddedTopologiesTest {

    private static final RedisBinary EMBEDDED =
            RedisBinary.locate(Map.of(RedisBinary.ENV_VAR, RedisBinary.EMBEDDED_WORD));

    @Test
    void aSentinelGroupStartsFromTheEmbeddedBinary() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(EMBEDDED)) {
            assertThat(group.sentinels().get(0).command("INFO", "server"))
                    .contains("redis_version:6.2", "redis_mode:sentinel");
            assertThat(group.master()).isSameAs(group.dataNodes().get(0));
            assertThat(group.master().command("SET", "k", "v")).isEqualTo("OK");
        }
    }

    @Test
    void aClusterStartsFromTheEmbeddedBinary() {
        try (RedisCluster cluster = RedisCluster.start(EMBEDDED)) {
            assertThat(cluster.nodes().get(0).command("INFO", "server")).contains("redis_version:6.2");
            assertThat(cluster.masters()).containsExactlyElementsOf(cluster.nodes().subList(0, 3));
            assertThat(cluster.masterForKey("{k}").command("SET", "{k}", "v")).isEqualTo("OK");
        }
    }
}
