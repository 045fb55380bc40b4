package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.support.ChildJvm;
import dev.baton.support.FencedResource;
import dev.baton.support.LockWorker;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A holder process that crashes or freezes must not block others for more than one lease, nor corrupt data. */
class HolderFaultsIT {
    private static final long LEASE_MS = 2000;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void aKilledHolderBlocksOthersForAtMostOneLease() throws Exception {
        try (ChildJvm holder = ChildJvm.start(LockWorker.class, "hold", redis.server().uri(), "crash",
                Long.toString(LEASE_MS));
             // Patient: the bound under test is the killed holder's lease; this observer's own timeout is unrelated.
             Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            holder.awaitLine("TOKEN", 60);
            DistributedLock lock = baton.lock("crash");
            assertThat(lock.tryLock()).isFalse();

            holder.process().destroyForcibly(); // SIGKILL: no release, no goodbye
            long killed = System.nanoTime();
            holder.awaitExit(10);
            assertThat(lock.tryLock(Duration.ofSeconds(10))).isTrue();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertThat(waitedMs).as("acquired within one watchdog lease of the kill").isLessThan(LEASE_MS + 500);
            lock.unlock();
        }
    }

    @Test
    void aPausedHolderIsFencedOffAndLearnsItsLeaseWasLost() throws Exception {
        RedisClient client = RedisClient.create(redis.server().uri());
        try (ChildJvm holder = ChildJvm.start(LockWorker.class, "hold", redis.server().uri(), "frozen",
                Long.toString(LEASE_MS));
             // Patient: it connects while the child JVM starts, which on a loaded machine can take a 500 ms connect
             // past its timeout; this test is about fencing, not timeouts.
             Baton baton = Baton.connect(TestBatons.patientConfig(redis.server().uri()));
             StatefulRedisConnection<String, String> connection = client.connect()) {
            long pausedToken = Long.parseLong(holder.awaitLine("TOKEN", 60).substring(6));

            holder.signal("STOP"); // a GC pause, a VM migration, a laptop lid...
            Lease mine = baton.lock("frozen").acquire(Duration.ofSeconds(10));
            assertThat(mine.fencingToken()).isGreaterThan(pausedToken);
            FencedResource resource = new FencedResource(connection.sync(), "frozen");
            assertThat(resource.write(mine.fencingToken(), "parent")).isTrue();

            holder.signal("CONT");
            holder.send("WRITE");
            assertThat(holder.awaitLine("WRITE", 30)).isEqualTo("WRITE REJECTED");
            assertThat(resource.value()).isEqualTo("parent");
            holder.send("AWAIT-LOST");
            assertThat(holder.awaitLine("LOST", 30)).isEqualTo("LOST valid=false");
            holder.send("RELEASE");
            assertThat(holder.awaitLine("RELEASE", 30)).startsWith("RELEASE-FAILED").contains("lost");

            assertThat(mine.isValid()).as("the paused holder's wake-up did not disturb the new owner").isTrue();
            mine.release();
        } finally {
            client.shutdown();
        }
    }
}
