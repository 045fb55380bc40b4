package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.LockWorker;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Four JVMs take one Redlock over five masters, each doing a non-atomic read-modify-write of a counter kept on a
 * separate server; two masters are killed halfway. No update may be lost, and fencing tokens must follow the order of
 * the acquisitions throughout.
 */
class RedlockProcessesIT {
    private static final int PROCESSES = 4;
    private static final int ACQUISITIONS = 150;

    @Test
    void fourProcessesNeverOverlapAndTokensFollowAcquisitionOrderWhileTwoMastersDie() throws Exception {
        try (RedisServers masters = RedisServers.start(5); RedisServer checker = RedisServer.start()) {
            String target = "redlock:" + String.join(",", masters.uris());
            List<ChildJvm> children = new ArrayList<>();
            try {
                for (int i = 0; i < PROCESSES; i++) {
                    children.add(ChildJvm.start(LockWorker.class, "count", target, "counter",
                            Integer.toString(ACQUISITIONS), checker.uri()));
                }
                await().atMost(Duration.ofSeconds(120)).until(() -> {
                    String counter = checker.command("GET", "test:counter");
                    return counter != null && Long.parseLong(counter) >= PROCESSES * ACQUISITIONS / 3;
                });
                masters.get(1).kill();
                masters.get(3).kill();
                for (ChildJvm child : children) {
                    assertThat(child.awaitLine("DONE", 180)).isEqualTo("DONE " + ACQUISITIONS);
                    assertThat(child.awaitExit(30)).isZero();
                }
            } finally {
                children.forEach(ChildJvm::close);
            }
            assertThat(Long.parseLong(checker.command("GET", "test:counter")))
                    .isEqualTo((long) PROCESSES * ACQUISITIONS);
            String[] tokens = checker.command("LRANGE", "test:tokens", "0", "-1").split("\n");
            assertThat(tokens).hasSize(PROCESSES * ACQUISITIONS);
            for (int i = 1; i < tokens.length; i++) {
                assertThat(Long.parseLong(tokens[i])).as("token #%d", i)
                        .isGreaterThan(Long.parseLong(tokens[i - 1]));
            }
            for (int i : new int[] {0, 2, 4}) {
                assertThat(masters.get(i).command("EXISTS", "baton:lock:{counter}")).isEqualTo("0");
            }
        }
    }
}
