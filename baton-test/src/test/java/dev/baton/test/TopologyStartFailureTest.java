package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topology that cannot become ready fails with a clear message and closes the nodes it had started. The failures
 * are provoked with a wrapper around the real binary that breaks one mode; it exec's redis-server, so the kit still
 * owns the process.
 */
class TopologyStartFailureTest {

    @TempDir
    Path dir;

    private RedisBinary wrapper(String script) throws IOException {
        Path file = dir.resolve("redis-server");
        Files.writeString(file, "#!/bin/sh\n" + script.replace("REAL", "'" + RedisBinary.locate().path() + "'"));
        assertThat(file.toFile().setExecutable(true)).isTrue();
        return RedisBinary.locate(Map.of(RedisBinary.ENV_VAR, file.toString()));
    }

    @Test
    void aSentinelGroupWhoseSentinelsCannotStartClosesItsDataNodes() throws IOException {
        RedisBinary binary = wrapper("for arg in \"$@\"; do\n"
                + "  if [ \"$arg\" = --sentinel ]; then echo 'test wrapper: no sentinel mode here'; exit 1; fi\n"
                + "done\n"
                + "exec REAL \"$@\"\n");
        Set<Long> before = NodeTraces.liveChildren();

        assertThatThrownBy(() -> RedisSentinelGroup.start(binary)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no sentinel mode here");

        Set<Long> left = NodeTraces.liveChildren();
        left.removeAll(before);
        assertThat(left).isEmpty();
    }

    @Test
    void aClusterWhoseNodesRefuseClusterCommandsClosesThem() throws IOException {
        RedisBinary binary = wrapper("exec REAL \"$@\" --cluster-enabled no\n");
        Set<Long> before = NodeTraces.liveChildren();

        assertThatThrownBy(() -> RedisCluster.start(binary)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("creating the cluster failed").hasMessageContaining("cluster support disabled");

        Set<Long> left = NodeTraces.liveChildren();
        left.removeAll(before);
        assertThat(left).isEmpty();
    }
}
