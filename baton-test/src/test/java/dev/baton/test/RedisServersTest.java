package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The additions for Redlock-style tests; {@link RedisServerTest} covers the rest of {@link RedisServers}. */
class RedisServersTest {

    @Test
    void independentMastersFromAGivenBinaryReportTheirUris() {
        NodeTraces traces;
        try (RedisServers masters = RedisServers.start(RedisBinary.locate(), 3)) {
            assertThat(masters.uris()).containsExactlyElementsOf(
                    masters.servers().stream().map(RedisServer::uri).toList()).doesNotHaveDuplicates();
            for (RedisServer master : masters.servers()) {
                assertThat(master.command("ROLE")).startsWith("master");
                assertThat(master.binary()).isEqualTo(RedisBinary.locate());
            }
            traces = NodeTraces.of(masters.servers());
        }
        assertThat(traces.anyAlive()).isFalse();
        assertThat(traces.dirs()).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }
}
