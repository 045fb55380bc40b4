package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.support.ChildJvm;
import dev.baton.support.LockWorker;
import dev.baton.test.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Four JVMs, 500 acquisitions each, one lock, a non-atomic read-modify-write: no update may be lost. */
class MultiProcessMutualExclusionIT {
    private static final int PROCESSES = 4;
    private static final int ACQUISITIONS = 500;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void processesNeverOverlapAndTokensFollowAcquisitionOrder() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start(LockWorker.class, "count", redis.server().uri(), "counter",
                        Integer.toString(ACQUISITIONS)));
            }
            for (ChildJvm child : children) {
                assertThat(child.awaitLine("DONE", 180)).isEqualTo("DONE " + ACQUISITIONS);
                assertThat(child.awaitExit(30)).isZero();
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
        assertThat(Long.parseLong(redis.server().command("GET", "test:counter")))
                .isEqualTo((long) PROCESSES * ACQUISITIONS);
        String[] tokens = redis.server().command("LRANGE", "test:tokens", "0", "-1").split("\n");
        assertThat(tokens).hasSize(PROCESSES * ACQUISITIONS);
        for (int i = 1; i < tokens.length; i++) {
            assertThat(Long.parseLong(tokens[i])).as("token #%d", i).isGreaterThan(Long.parseLong(tokens[i - 1]));
        }
        assertThat(redis.server().command("EXISTS", "baton:lock:{counter}")).isEqualTo("0");
    }
}
