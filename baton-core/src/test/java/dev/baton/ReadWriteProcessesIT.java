package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.ReadWriteWorker;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lock across processes ({@link ReadWriteWorker} children): readers of several JVMs at once, readers
 * and writers of several JVMs never overlapping, a crashed reader or writer blocking the other side for one lease at
 * most, and a writer that gets in while readers of other JVMs keep coming.
 */
class ReadWriteProcessesIT {
    /** The children's watchdog lease in the crash tests: what a crashed holder may cost. */
    private static final long CRASH_LEASE_MS = 2000;
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private Baton patient() {
        return Baton.connect(BatonConfig.builder().uri(redis.server().uri()).watchdogLease(Duration.ofSeconds(20))
                .commandTimeout(Duration.ofSeconds(5)).recheckInterval(Duration.ofMillis(300)).build());
    }

    @Test
    void readersOfSeveralProcessesHoldTheLockAtOnce() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try (Baton baton = patient()) {
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(ReadWriteWorker.class, "hold", redis.server().uri(), "shared", "read",
                        "20000"));
            }
            for (ChildJvm child : children) {
                tokens.add(Long.parseLong(child.awaitLine("TOKEN", 120).substring(6)));
            }
            DistributedReadWriteLock rw = baton.readWriteLock("shared");
            assertThat(rw.readLock().inspect().holders()).isEqualTo(3);
            assertThat(rw.readLock().tryLock()).as("one more reader, here").isTrue();
            rw.readLock().unlock();
            assertThat(rw.writeLock().tryLock()).isFalse();
            assertThat(tokens).doesNotHaveDuplicates();

            CompletableFuture<Lease> writer = rw.writeLock().acquireAsync(SETTLE);
            for (ChildJvm child : children) {
                child.send("RELEASE");
                assertThat(child.awaitLine("RELEASED", 60)).isEqualTo("RELEASED");
            }
            Lease w = writer.get(60, TimeUnit.SECONDS);
            assertThat(w.fencingToken()).isGreaterThan(tokens.stream().mapToLong(Long::longValue).max().orElseThrow());
            w.release();
        } finally {
            children.forEach(ChildJvm::close);
        }
        assertNothingLeft("shared");
    }

    @Test
    void readersAndWritersOfSeveralProcessesNeverOverlap() throws Exception {
        int n = 120;
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(ReadWriteWorker.class, "mixed", redis.server().uri(), "mixed",
                        Integer.toString(n)));
            }
            for (ChildJvm child : children) {
                assertThat(child.awaitLine("DONE", 300)).isEqualTo("DONE " + n);
                assertThat(child.awaitExit(60)).isZero();
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
        assertThat(redis.server().command("GET", "test:rw:mixed:violations"))
                .as(redis.server().command("GET", "test:rw:mixed:violation")).isNull();
        assertThat(redis.server().command("GET", "resource:mixed:token")).as("writes happened").isNotEmpty();
        assertNothingLeft("mixed");
    }

    /**
     * Each reader has its own lease: a killed reader's hold runs out one lease after its last renewal while another
     * reader keeps its own, and a writer waiting meanwhile gets in as soon as the live reader leaves.
     */
    @Test
    void aKilledReaderStopsBlockingAWriterAfterItsOwnLease() throws Exception {
        try (ChildJvm crashing = ChildJvm.start(ReadWriteWorker.class, "hold", redis.server().uri(), "crash-read",
                "read", Long.toString(CRASH_LEASE_MS));
             Baton baton = patient(); Baton writerSide = patient()) {
            long crashedToken = Long.parseLong(crashing.awaitLine("TOKEN", 120).substring(6));
            DistributedLock live = baton.readWriteLock("crash-read").readLock();
            live.lock();
            CompletableFuture<Lease> writer = writerSide.readWriteLock("crash-read").writeLock().acquireAsync(SETTLE);

            crashing.process().destroyForcibly(); // SIGKILL: no release, no goodbye
            crashing.awaitExit(30);
            await("the killed reader's lease runs out on its own").atMost(SETTLE)
                    .until(() -> live.inspect().holders() == 1);
            assertThat(live.isHeldByCurrentThread()).isTrue();
            assertThat(live.inspect().holder().orElseThrow().batonInstance()).isEqualTo(baton.instanceId());
            assertThat(writer).as("the live reader still holds it").isNotDone();

            live.unlock();
            Lease w = writer.get(60, TimeUnit.SECONDS);
            assertThat(w.fencingToken()).isGreaterThan(crashedToken);
            w.release();
        }
        assertNothingLeft("crash-read");
    }

    @Test
    void aKilledWriterStopsBlockingReadersAfterItsLease() throws Exception {
        try (ChildJvm crashing = ChildJvm.start(ReadWriteWorker.class, "hold", redis.server().uri(), "crash-write",
                "write", Long.toString(CRASH_LEASE_MS));
             Baton baton = patient()) {
            long crashedToken = Long.parseLong(crashing.awaitLine("TOKEN", 120).substring(6));
            DistributedReadWriteLock rw = baton.readWriteLock("crash-write");
            assertThat(rw.readLock().tryLock()).isFalse();
            List<CompletableFuture<Lease>> readers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                readers.add(rw.readLock().acquireAsync(SETTLE));
            }
            crashing.process().destroyForcibly();
            crashing.awaitExit(30);
            for (CompletableFuture<Lease> r : readers) {
                assertThat(r.get(60, TimeUnit.SECONDS).fencingToken()).isGreaterThan(crashedToken);
            }
            assertThat(rw.readLock().inspect().holders()).isEqualTo(3);
            for (CompletableFuture<Lease> r : readers) {
                r.get().release();
            }
        }
        assertNothingLeft("crash-write");
    }

    @Test
    void aWriterGetsInWhileReadersOfOtherProcessesKeepComing() throws Exception {
        List<ChildJvm> streams = new ArrayList<>();
        try (Baton baton = patient()) {
            for (int i = 0; i < 2; i++) {
                streams.add(ChildJvm.start(ReadWriteWorker.class, "stream", redis.server().uri(), "stream", "3"));
            }
            for (ChildJvm s : streams) {
                s.awaitLine("STREAMING", 120);
            }
            DistributedLock write = baton.readWriteLock("stream").writeLock();
            assertThat(write.tryLock(SETTLE)).as("the writer is not starved").isTrue();
            try {
                // the read side reports the whole lock: its one holder is the writer, and no reader holds it
                assertThat(baton.readWriteLock("stream").readLock().inspect().allHolders())
                        .extracting(LockInfo.Holder::kind).containsExactly(LockType.WRITE);
            } finally {
                write.unlock();
            }
            for (ChildJvm s : streams) {
                s.send("STOP");
                assertThat(Long.parseLong(s.awaitLine("DONE", 120).substring(5))).isPositive();
                assertThat(s.awaitExit(60)).isZero();
            }
        } finally {
            streams.forEach(ChildJvm::close);
        }
        assertThat(redis.server().command("GET", "test:rw:stream:violations"))
                .as(redis.server().command("GET", "test:rw:stream:violation")).isNull();
        assertNothingLeft("stream");
    }

    /** Once everyone is done, only the fencing counter stays (it expires after the token retention). */
    private static void assertNothingLeft(String name) {
        await().atMost(SETTLE).untilAsserted(() -> assertThat(redis.server().command("KEYS", "baton:rw:*").strip())
                .isEqualTo("baton:rw:{" + name + "}:token"));
    }
}
