package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.Measure;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TopologyExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lock's contract against a real Redis: shared readers, an exclusive writer, downgrade, a refused
 * upgrade, no writer starvation, wake-ups across Batons, fencing tokens across both sides, leases, and nothing left
 * behind. The protocol tests run on every topology; those about local behaviour on one server. Processes: see
 * {@link ReadWriteProcessesIT}.
 */
class ReadWriteLockIT {
    /** Longer than any pause of a loaded machine, so only what a test is about can make a hold run out. */
    private static final Duration PATIENT_LEASE = Duration.ofSeconds(20);
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        baton = patient();
        other = patient();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
        other.close();
    }

    private Baton patient() {
        return Baton.connect(deployment.builder().watchdogLease(PATIENT_LEASE)
                .commandTimeout(Duration.ofSeconds(5)).build());
    }

    @OnEveryTopology
    void readersShareTheLockAndAWaitingWriterGetsInWhenTheyLeave() throws Exception {
        DistributedReadWriteLock mine = baton.readWriteLock("doc");
        DistributedReadWriteLock theirs = other.readWriteLock("doc");
        int readers = 5;
        CyclicBarrier allIn = new CyclicBarrier(readers + 1);
        CountDownLatch leave = new CountDownLatch(1);
        List<Future<Long>> readerTokens = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            DistributedLock read = (i % 2 == 0 ? mine : theirs).readLock();
            readerTokens.add(threads.submit(() -> {
                read.lock();
                try {
                    allIn.await(60, TimeUnit.SECONDS); // only returns if every reader holds the lock at once
                    leave.await();
                    return read.fencingToken();
                } finally {
                    read.unlock();
                }
            }));
        }
        allIn.await(60, TimeUnit.SECONDS);
        assertThat(mine.readLock().isLocked()).isTrue();
        assertThat(mine.writeLock().isLocked()).isFalse();
        LockInfo info = theirs.readLock().inspect();
        assertThat(info.holders()).isEqualTo(readers);
        assertThat(info.holder()).isPresent();
        // the write side reports the whole lock: held, by the readers, of whom none is a writer
        LockInfo fromWriteSide = theirs.writeLock().inspect();
        assertThat(fromWriteSide.isLocked()).isTrue();
        assertThat(fromWriteSide.kind()).isEqualTo(LockType.READ);
        assertThat(fromWriteSide.allHolders()).hasSize(readers).extracting(LockInfo.Holder::kind)
                .containsOnly(LockType.READ);
        assertThat(mine.writeLock().tryLock()).as("readers hold it").isFalse();

        Future<Long> writer = threads.submit(() -> {
            DistributedLock write = theirs.writeLock();
            assertThat(write.tryLock(SETTLE)).isTrue();
            try {
                return write.fencingToken();
            } finally {
                write.unlock();
            }
        });
        await().atMost(SETTLE).until(() -> exists("baton:rw:{doc}:writers"));
        assertThat(mine.readLock().tryLock()).as("a new reader queues behind the waiting writer").isFalse();

        leave.countDown();
        long writeToken = writer.get(60, TimeUnit.SECONDS);
        for (Future<Long> r : readerTokens) {
            assertThat(writeToken).isGreaterThan(r.get(60, TimeUnit.SECONDS));
        }
        assertThat(mine.readLock().tryLock(SETTLE)).isTrue();
        assertThat(mine.readLock().fencingToken()).isGreaterThan(writeToken);
        mine.readLock().unlock();
        assertNothingLeft("doc");
    }

    @OnEveryTopology
    void aWriterExcludesReadersAndWritersAndReentersWithItsToken() throws Exception {
        DistributedReadWriteLock mine = baton.readWriteLock("ledger");
        DistributedLock write = mine.writeLock();
        write.lock();
        long token = write.fencingToken();
        write.lock();
        assertThat(write.holdCount()).isEqualTo(2);
        assertThat(write.fencingToken()).isEqualTo(token);
        assertThat(threads.submit(() -> mine.writeLock().tryLock()).get()).as("another thread").isFalse();
        assertThat(threads.submit(() -> mine.readLock().tryLock()).get()).isFalse();
        assertThat(other.readWriteLock("ledger").writeLock().tryLock()).as("another Baton").isFalse();
        assertThat(other.readWriteLock("ledger").readLock().tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                .isEmpty();
        LockInfo.Holder holder = other.readWriteLock("ledger").writeLock().inspect().holder().orElseThrow();
        assertThat(holder.batonInstance()).isEqualTo(baton.instanceId());
        assertThat(holder.holdCount()).isEqualTo(2);
        assertThat(holder.fencingToken()).isEqualTo(token);
        assertThat(holder.leaseOwned()).isFalse();
        assertThat(mine.readLock().isLocked()).isFalse();

        assertThatThrownBy(() -> threads.submit(write::unlock).get())
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        write.unlock();
        assertThat(write.isLocked()).isTrue();
        write.unlock();
        assertThat(write.isLocked()).isFalse();
        assertThatThrownBy(write::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("ledger");
        assertNothingLeft("ledger");
    }

    @OnEveryTopology
    void aWriterMayDowngradeAndAnUpgradeFailsAtOnceWithoutARedisCall() throws Exception {
        DistributedReadWriteLock mine = baton.readWriteLock("config");
        DistributedReadWriteLock theirs = other.readWriteLock("config");
        mine.writeLock().lock();
        long writeToken = mine.writeLock().fencingToken();
        mine.readLock().lock();
        assertThat(mine.readLock().fencingToken()).as("a token of its own").isGreaterThan(writeToken);
        assertThat(theirs.readLock().tryLock()).as("still write-locked").isFalse();
        mine.writeLock().unlock();

        assertThat(mine.readLock().holdCount()).isEqualTo(1);
        assertThat(mine.writeLock().isHeldByCurrentThread()).isFalse();
        assertThat(theirs.readLock().tryLock()).as("downgraded: readers may join").isTrue();
        assertThat(threads.submit(() -> theirs.writeLock().tryLock()).get()).isFalse();

        long scripts = deployment.scriptsRun();
        for (Runnable upgrade : List.<Runnable>of(mine.writeLock()::lock, mine.writeLock()::tryLock,
                () -> mine.writeLock().lock(Duration.ofSeconds(5)), () -> interruptibly(mine.writeLock()))) {
            assertThat(Measure.thrownBy(upgrade)).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("config").hasMessageContaining("upgrade");
        }
        assertThat(deployment.scriptsRun()).as("refused before any Redis call").isEqualTo(scripts);
        assertThat(mine.writeLock().holdCount()).isZero();
        assertThat(exists("baton:rw:{config}:writers")).isFalse();

        theirs.readLock().unlock();
        mine.readLock().unlock();
        assertThat(mine.writeLock().tryLock()).as("nothing of the upgrade stayed behind").isTrue();
        mine.writeLock().unlock();
        assertNothingLeft("config");
    }

    @OnEveryTopology
    void fencingTokensIncreaseAcrossReadsAndWrites() throws Exception {
        DistributedReadWriteLock mine = baton.readWriteLock("fenced");
        DistributedReadWriteLock theirs = other.readWriteLock("fenced");
        List<Long> tokens = new ArrayList<>();
        mine.readLock().lock();
        tokens.add(mine.readLock().fencingToken());
        Lease lease = theirs.readLock().acquire(Duration.ZERO);
        tokens.add(lease.fencingToken());
        mine.readLock().lock();
        assertThat(mine.readLock().fencingToken()).as("a re-entry keeps its token").isEqualTo(tokens.get(0));
        mine.readLock().unlock();
        mine.readLock().unlock();
        lease.release();
        try (Lease w = theirs.writeLock().acquire(Duration.ZERO)) {
            tokens.add(w.fencingToken());
        }
        mine.writeLock().lock();
        tokens.add(mine.writeLock().fencingToken());
        mine.readLock().lock();
        tokens.add(mine.readLock().fencingToken());
        mine.writeLock().unlock();
        mine.readLock().unlock();
        // The counter may expire once the name is unused; tokens must still go up without it.
        deployment.command("baton:rw:{fenced}", "DEL", "baton:rw:{fenced}:token");
        try (Lease r = mine.readLock().acquire(Duration.ZERO)) {
            tokens.add(r.fencingToken());
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(mine.readLock().inspect().lastFencingToken()).isEqualTo(tokens.get(tokens.size() - 1));

        // Concurrent acquisitions of both sides from two Batons: every one gets a token of its own.
        List<Long> concurrent = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            DistributedReadWriteLock rw = t % 2 == 0 ? mine : theirs;
            int seed = t;
            workers.add(threads.submit(() -> {
                for (int i = 0; i < 15; i++) {
                    DistributedLock side = (i + seed) % 3 == 0 ? rw.writeLock() : rw.readLock();
                    side.lock();
                    try {
                        concurrent.add(side.fencingToken());
                    } finally {
                        side.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        assertThat(new HashSet<>(concurrent)).hasSize(60);
        assertThat(Collections.min(concurrent)).isGreaterThan(tokens.get(tokens.size() - 1));
        assertNothingLeft("fenced");
    }

    @OnEveryTopology
    void readersAndWritersNeverOverlapUnderContention() throws Exception {
        Checker checker = new Checker();
        List<Future<Integer>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            DistributedReadWriteLock rw = (t % 2 == 0 ? baton : other).readWriteLock("contended");
            int seed = t;
            workers.add(threads.submit(() -> {
                int done = 0;
                for (int i = 0; i < 30; i++) {
                    if ((i + seed) % 4 == 0) {
                        checker.write(rw.writeLock());
                    } else if ((i + seed) % 7 == 0) {
                        try (Lease lease = rw.readLock().acquire(SETTLE)) {
                            checker.read(lease.fencingToken());
                        }
                    } else {
                        checker.read(rw.readLock());
                    }
                    done++;
                }
                return done;
            }));
        }
        int total = 0;
        for (Future<Integer> w : workers) {
            total += w.get(5, TimeUnit.MINUTES);
        }
        assertThat(total).isEqualTo(180);
        assertThat(checker.violations).as(checker.firstViolation.toString()).hasValue(0);
        assertThat(checker.maxReaders.get()).as("readers did share the lock").isGreaterThan(1);
        assertNothingLeft("contended");
    }

    /**
     * Readers that each take their next read lease before releasing the one they hold: without writer priority the
     * read lock is never free, and a writer would wait forever. With it, the readers' next leases queue behind the
     * waiting writer, the readers drain, and the writer gets in; then the readers carry on.
     */
    @Test
    void aStreamOfReadersDoesNotStarveAWriter() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        Checker checker = new Checker();
        List<Future<?>> readers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            DistributedLock read = (t % 2 == 0 ? baton : other).readWriteLock("hot").readLock();
            readers.add(threads.submit(() -> {
                Lease held = read.acquire(SETTLE);
                try {
                    while (!stop.get()) {
                        Lease current = held;
                        checker.inRead(current.fencingToken(), () -> pause(5)); // work done under the lock
                        reads.incrementAndGet();
                        held = chainedRead(read, current);
                    }
                } finally {
                    held.close();
                }
                return null;
            }));
        }
        await().atMost(SETTLE).until(() -> reads.get() > 40 && checker.maxReaders.get() > 1);
        DistributedLock write = baton.readWriteLock("hot").writeLock();
        try {
            assertThat(write.tryLock(SETTLE)).as("the writer gets in while readers keep coming").isTrue();
            checker.inWrite(write.fencingToken(), () -> { });
        } finally {
            if (write.isHeldByCurrentThread()) {
                write.unlock();
            }
        }
        long after = reads.get();
        await().atMost(SETTLE).until(() -> reads.get() > after + 20);
        stop.set(true);
        for (Future<?> r : readers) {
            r.get(60, TimeUnit.SECONDS);
        }
        assertThat(checker.violations).as(checker.firstViolation.toString()).hasValue(0);
        assertNothingLeft("hot");
    }

    /**
     * The next read lease of a reader that holds {@code current}: taken while still holding it when it comes within
     * 100 ms; otherwise (a writer waits) {@code current} is released first, and the next lease waited for.
     */
    static Lease chainedRead(DistributedLock read, Lease current) throws InterruptedException {
        try {
            Lease next = read.acquire(Duration.ofMillis(100));
            current.release();
            return next;
        } catch (LockTimeoutException queuedBehindAWriter) {
            current.release();
            return read.acquire(SETTLE);
        }
    }

    /**
     * A writer and a reader waiting in one Baton, readers waiting in another, and re-check intervals and leases far
     * longer than the test: only release notifications can wake them. When the holding writer leaves, the message
     * must reach the waiting writer, although a reader of its Baton waits longer than it (readers pass the message
     * on); when that writer leaves, every waiting reader must go.
     */
    @Test
    void releasesWakeWaitersInEveryBatonWithoutWaitingForTheRecheck() throws Exception {
        try (Baton writerSide = sleepy(); Baton readerSide = sleepy(); Baton holder = sleepy()) {
            Lease held = holder.readWriteLock("wake").writeLock().acquire(Duration.ZERO);
            List<CompletableFuture<Lease>> readers = new ArrayList<>();
            readers.add(writerSide.readWriteLock("wake").readLock().acquireAsync(SETTLE));
            // Subscribed: the reader is registered, ahead of the writer below.
            await().atMost(SETTLE).until(() -> deployment.subscribers("baton:rw:{wake}:released") == 1);
            for (int i = 0; i < 3; i++) {
                readers.add(readerSide.readWriteLock("wake").readLock().acquireAsync(SETTLE));
            }
            await().atMost(SETTLE).until(() -> deployment.subscribers("baton:rw:{wake}:released") == 2);
            CompletableFuture<Lease> writer = writerSide.readWriteLock("wake").writeLock().acquireAsync(SETTLE);
            await().atMost(SETTLE).until(() -> exists("baton:rw:{wake}:writers"));

            held.release();
            Lease w = writer.get(30, TimeUnit.SECONDS);
            for (CompletableFuture<Lease> r : readers) {
                assertThat(r).as("queued behind the writer").isNotDone();
            }
            w.release();
            for (CompletableFuture<Lease> r : readers) {
                r.get(30, TimeUnit.SECONDS); // all at once: they hold the read lock together
            }
            assertThat(readerSide.readWriteLock("wake").readLock().inspect().holders()).isEqualTo(4);
            for (CompletableFuture<Lease> r : readers) {
                r.get().release();
            }
        }
        assertNothingLeft("wake");
    }

    /** A writer that gives up (timed out, cancelled) withdraws its intent at once and lets the queued readers in. */
    @Test
    void aWriterThatGivesUpLetsQueuedReadersIn() throws Exception {
        try (Baton writerSide = sleepy(); Baton readerSide = sleepy()) {
            Lease reader = readerSide.readWriteLock("giveup").readLock().acquire(Duration.ZERO);
            CompletableFuture<Lease> writer = writerSide.readWriteLock("giveup").writeLock().acquireAsync(SETTLE);
            await().atMost(SETTLE).until(() -> exists("baton:rw:{giveup}:writers"));
            CompletableFuture<Lease> queued = readerSide.readWriteLock("giveup").readLock().acquireAsync(SETTLE);
            await().atMost(SETTLE).until(() -> deployment.subscribers("baton:rw:{giveup}:released") == 2);
            assertThat(queued).isNotDone();

            writer.cancel(true);
            queued.get(30, TimeUnit.SECONDS).release();
            await().atMost(SETTLE).until(() -> !exists("baton:rw:{giveup}:writers"));

            DistributedLock write = writerSide.readWriteLock("giveup").writeLock();
            assertThat(write.tryLock(Duration.ofMillis(300))).isFalse();
            await("a timed-out writer withdraws its intent").atMost(SETTLE)
                    .until(() -> !exists("baton:rw:{giveup}:writers"));
            assertThat(readerSide.readWriteLock("giveup").readLock().tryLock()).isTrue();
            readerSide.readWriteLock("giveup").readLock().unlock();
            reader.release();
        }
        assertNothingLeft("giveup");
    }

    @Test
    void readLeasesAreLostWhenForceUnlockedAndRunOutWhenFixed() throws Exception {
        try (Baton quick = deployment.connect()) { // watchdog lease 1.5 s: renewals every half second
            DistributedReadWriteLock rw = quick.readWriteLock("leases");
            Lease a = rw.readLock().acquire(Duration.ZERO);
            Lease b = rw.readLock().acquire(Duration.ZERO);
            assertThat(rw.writeLock().forceUnlock()).as("no writer").isFalse();
            assertThat(other.readWriteLock("leases").readLock().forceUnlock()).isTrue();
            a.lost().get(30, TimeUnit.SECONDS);
            b.lost().get(30, TimeUnit.SECONDS);
            assertThat(a.isValid()).isFalse();
            assertThatThrownBy(a::release).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("lost");

            Optional<Lease> fixed = rw.readLock().tryAcquire(Duration.ZERO, Duration.ofMillis(300));
            assertThat(fixed).isPresent();
            DistributedLock write = other.readWriteLock("leases").writeLock();
            assertThat(write.tryLock(SETTLE)).as("the fixed read lease ran out").isTrue();
            assertThat(write.fencingToken()).isGreaterThan(fixed.get().fencingToken());
            fixed.get().lost().get(30, TimeUnit.SECONDS);
            write.unlock();
        }
        assertNothingLeft("leases");
    }

    @Test
    void badInputIsRejectedBeforeAnyRedisCall() {
        long before = commandsProcessed();
        DistributedReadWriteLock rw = baton.readWriteLock("valid");
        assertThatThrownBy(() -> baton.readWriteLock(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> baton.readWriteLock(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be blank");
        assertThatThrownBy(() -> baton.readWriteLock("x".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1024 bytes");
        for (DistributedLock side : List.of(rw.readLock(), rw.writeLock())) {
            assertThatThrownBy(() -> side.lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease");
            assertThatThrownBy(() -> side.tryLock(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait");
            assertThatThrownBy(() -> side.tryAcquire(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("lease");
            assertThatThrownBy(() -> side.acquireAsync(null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("wait");
            assertThatThrownBy(side::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThatThrownBy(side::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
        }
        // the INFO that reads the counter counts itself once
        assertThat(commandsProcessed()).as("commands sent to Redis").isEqualTo(before + 1);
    }

    // ---- helpers ----

    /**
     * A Baton whose waiters re-check only every two minutes and whose holds last two minutes (a waiter also comes
     * back when the lease it waits for could end): in these tests, only notifications wake them.
     */
    private Baton sleepy() {
        return Baton.connect(deployment.builder().watchdogLease(Duration.ofMinutes(2))
                .commandTimeout(Duration.ofSeconds(5)).recheckInterval(Duration.ofMinutes(2)).build());
    }

    private boolean exists(String key) {
        return deployment.command(key, "EXISTS", key).equals("1");
    }

    private long commandsProcessed() {
        return deployment.masters().get(0).command("INFO", "stats").lines()
                .filter(l -> l.startsWith("total_commands_processed:")).findFirst()
                .map(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim())).orElseThrow();
    }

    /** Once everyone is done, only the fencing counter stays (it expires after the token retention). */
    private void assertNothingLeft(String name) {
        await().atMost(SETTLE).untilAsserted(() -> assertThat(deployment.keys("baton:rw:*"))
                .containsExactly("baton:rw:{" + name + "}:token"));
    }

    private static void interruptibly(DistributedLock lock) {
        try {
            lock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // work done under the lock, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What a resource protected by the lock sees: how many readers and writers are inside at once, and the fencing
     * token of the last write. A writer must be alone; a reader must see no writer, and a token above the last
     * write's (the write happened before the reader got in).
     */
    private static final class Checker {
        final AtomicInteger readers = new AtomicInteger();
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger maxReaders = new AtomicInteger();
        final AtomicInteger violations = new AtomicInteger();
        final StringBuffer firstViolation = new StringBuffer("no violation");
        volatile long lastWrite;

        void read(DistributedLock read) {
            read.lock();
            try {
                inRead(read.fencingToken(), () -> Thread.yield());
            } finally {
                read.unlock();
            }
        }

        void read(long token) {
            inRead(token, Thread::yield);
        }

        void write(DistributedLock write) {
            write.lock();
            try {
                inWrite(write.fencingToken(), Thread::yield);
            } finally {
                write.unlock();
            }
        }

        void inRead(long token, Runnable work) {
            maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
            try {
                check(writers.get() == 0, "a reader saw a writer inside");
                check(token > lastWrite, "a reader's token " + token + " is not above the last write " + lastWrite);
                work.run();
            } finally {
                readers.decrementAndGet();
            }
        }

        void inWrite(long token, Runnable work) {
            int w = writers.incrementAndGet();
            try {
                check(w == 1, "two writers inside");
                check(readers.get() == 0, "a writer saw readers inside");
                check(token > lastWrite, "a write token " + token + " is not above the last " + lastWrite);
                lastWrite = token;
                work.run();
                check(readers.get() == 0, "readers came in during a write");
            } finally {
                writers.decrementAndGet();
            }
        }

        private void check(boolean ok, String violation) {
            if (!ok && violations.getAndIncrement() == 0) {
                firstViolation.setLength(0);
                firstViolation.append(violation);
            }
        }
    }
}
