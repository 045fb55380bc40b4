package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.support.ChildJvm;
import dev.baton.support.MultiLockWorker;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Multi-locks across processes: overlapping sets asked for in opposite orders never deadlock and never let two
 * holders in at once; a holder that crashes blocks the multi-lock for at most one lease.
 */
class MultiProcessMultiLockIT {
    private static final int ROUNDS = 150;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void overlappingSetsInOppositeOrdersFromTwoProcessesNeverDeadlockNorOverlap() throws Exception {
        // Each process walks through its sets; each set overlaps sets of the other process, named in another order.
        String[][] sets = {
                {"a,b,c", "c,a", "b,d", "d,c,b,a"},
                {"c,b,a", "a,c", "d,b", "a,b,c,d"},
        };
        Map<String, Long> expected = new HashMap<>();
        for (String[] mine : sets) {
            for (int i = 0; i < ROUNDS; i++) {
                for (String name : mine[i % mine.length].split(",")) {
                    expected.merge(name, 1L, Long::sum);
                }
            }
        }
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (String[] mine : sets) {
                List<String> args = new ArrayList<>(List.of("count", redis.server().uri(), Integer.toString(ROUNDS)));
                args.addAll(List.of(mine));
                children.add(ChildJvm.start(MultiLockWorker.class, args.toArray(String[]::new)));
            }
            for (ChildJvm child : children) {
                // A deadlock would show here, as a child that never finishes.
                assertThat(child.awaitLine("DONE", 240)).isEqualTo("DONE " + ROUNDS + " REJECTED 0");
                assertThat(child.awaitExit(30)).isZero();
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            assertThat(Long.parseLong(redis.server().command("GET", "test:count:" + e.getKey())))
                    .as("updates of '%s' (a lost one means two holders at once)", e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(redis.server().command("KEYS", "baton:lock:{*}").trim()).as("locks left").isEmpty();
    }

    @Test
    void aKilledHolderBlocksTheMultiLockForAtMostOneLease() throws Exception {
        long leaseMillis = 2000;
        try (ChildJvm holder = ChildJvm.start(MultiLockWorker.class, "hold", redis.server().uri(),
                Long.toString(leaseMillis), "x,y,z");
             Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            long crashedToken = Long.parseLong(holder.awaitLine("TOKEN", 60).substring(6));
            DistributedLock multi = baton.multiLock("z", "y", "x");
            assertThat(multi.tryLock()).isFalse();
            assertThat(redis.server().command("KEYS", "baton:lock:{*}").trim()).as("locks left by a failed try")
                    .contains("{x}").contains("{y}").contains("{z}");
            for (String name : List.of("x", "y", "z")) {
                // What bounds the wait: no lock of the crashed holder lives longer than its lease.
                Duration remaining = baton.inspect(name).holder().orElseThrow().remainingLease();
                assertThat(remaining).isLessThanOrEqualTo(Duration.ofMillis(leaseMillis));
            }

            holder.process().destroyForcibly(); // SIGKILL: no release, no goodbye
            holder.awaitExit(30);
            assertThat(multi.tryLock(Duration.ofSeconds(60))).isTrue();
            assertThat(multi.fencingToken()).isGreaterThan(crashedToken);
            multi.unlock();
            assertThat(redis.server().command("KEYS", "baton:lock:{*}").trim()).isEmpty();
        }
    }
}
