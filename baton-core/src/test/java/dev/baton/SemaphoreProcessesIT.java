package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.SemaphoreWorker;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semaphore across processes: the permit bound holds for threads of several JVMs together, a killed holder's
 * permits come back after its lease, and a killed waiter stops blocking the queue.
 */
class SemaphoreProcessesIT {
    private static final Duration LONG = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void threadsOfSeveralProcessesNeverHoldMoreThanThePermits() throws Exception {
        int processes = 3;
        int threads = 3;
        int each = 40;
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                children.add(ChildJvm.start(SemaphoreWorker.class, "churn", redis.server().uri(), "pool", "4",
                        Integer.toString(threads), Integer.toString(each)));
            }
            for (ChildJvm child : children) {
                assertThat(child.awaitLine("DONE", 300)).isEqualTo("DONE " + threads * each);
                assertThat(child.awaitExit(30)).isZero();
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
        int most = Integer.parseInt(redis.server().command("GET", SemaphoreWorker.mostKey("pool")));
        assertThat(most).as("most permits held at once, by the shared checker").isBetween(2, 4);
        assertThat(redis.server().command("GET", SemaphoreWorker.heldKey("pool"))).isEqualTo("0");
        String[] tokens = redis.server().command("LRANGE", SemaphoreWorker.tokensKey("pool"), "0", "-1").split("\n");
        assertThat(Arrays.stream(tokens).distinct()).as("a fresh token per lease").hasSize(processes * threads * each);
        try (Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            assertThat(baton.semaphore("pool", 4).availablePermits()).isEqualTo(4);
        }
        assertThat(redis.server().command("KEYS", "baton:semaphore:*").split("\n"))
                .containsExactlyInAnyOrder("baton:semaphore:{pool}", "baton:semaphore:{pool}:token");
    }

    @Test
    void aKilledHoldersPermitsComeBackAfterItsLease() throws Exception {
        try (ChildJvm holder = ChildJvm.start(SemaphoreWorker.class, "hold", redis.server().uri(), "crash", "4", "3",
                "2000");
             Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            long crashedToken = Long.parseLong(holder.awaitLine("TOKEN", 60).substring(6));
            DistributedSemaphore semaphore = baton.semaphore("crash", 4);
            assertThat(semaphore.availablePermits()).isEqualTo(1);
            CompletableFuture<Lease> waiting = semaphore.acquireAsync(2, LONG);
            await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);

            holder.process().destroyForcibly(); // SIGKILL: no release, no goodbye
            holder.awaitExit(30);
            Lease lease = waiting.get(1, TimeUnit.MINUTES); // once the killed holder's 2 s lease ran out
            assertThat(lease.fencingToken()).isGreaterThan(crashedToken);
            SemaphoreInfo info = semaphore.inspect();
            assertThat(info.holders()).singleElement().extracting(SemaphoreInfo.Holder::batonInstance)
                    .isEqualTo(baton.instanceId());
            assertThat(info.availablePermits()).isEqualTo(2);
            lease.release();
            assertThat(semaphore.availablePermits()).isEqualTo(4);
        }
    }

    @Test
    void aKilledWaiterStopsBlockingThoseBehindIt() throws Exception {
        try (Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()));
             ChildJvm waiter = ChildJvm.start(SemaphoreWorker.class, "wait", redis.server().uri(), "line", "2", "2",
                     "1000")) {
            DistributedSemaphore semaphore = baton.semaphore("line", 2);
            Lease held = semaphore.acquire(2, Duration.ZERO);
            waiter.awaitLine("WAITING", 60);
            await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);
            CompletableFuture<Lease> behind = semaphore.acquireAsync(1, LONG);
            await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 2);

            waiter.process().destroyForcibly();
            waiter.awaitExit(30);
            held.release();
            // The dead waiter was first in line: its place lapses once it has not tried for its recheck interval
            // plus twice its command timeout (2.3 s here), and the next waiter takes the permit.
            Lease next = behind.get(1, TimeUnit.MINUTES);
            assertThat(semaphore.inspect().waiting()).isZero();
            next.release();
            assertThat(redis.server().command("KEYS", "baton:semaphore:{line}:*").split("\n"))
                    .containsExactly("baton:semaphore:{line}:token");
        }
    }
}
