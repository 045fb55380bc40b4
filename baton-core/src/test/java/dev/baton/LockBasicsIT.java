package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.Measure;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TestBatons;
import dev.baton.support.TopologyExtension;
import dev.baton.test.RedisBinary;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock's everyday contract against a real Redis. The tests that exercise the protocol run on every topology
 * (one server, Sentinel, Cluster); those about local behaviour on one server. Runs twice in CI: on PATH's
 * redis-server and on the one shipped in the embedded-redis jar (BATON_REDIS_SERVER=embedded).
 */
class LockBasicsIT {
    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        baton = connectShortLeased();
        other = connectShortLeased();
    }

    /**
     * A Baton with the short test lease and re-check of {@link TestBatons}, which the expiry tests here count on, but
     * a patient command timeout: no test here is about commands timing out, and with 0.5 s a loaded machine once
     * failed the set-up ("did not complete the connection within PT0.5S").
     */
    private Baton connectShortLeased() {
        return Baton.connect(deployment.builder().commandTimeout(TestBatons.PATIENT_TIMEOUT).build());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void reentrantAcquisitionsCountHoldsAndKeepTheToken() {
        DistributedLock lock = baton.lock("orders:42");
        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(baton.lock("orders:42").tryLock()).as("another lock object, same thread").isTrue();
        assertThat(lock.holdCount()).isEqualTo(3);
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(baton.inspect("orders:42").holder().orElseThrow().holdCount()).isEqualTo(3);

        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.holdCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("orders:42").hasMessageContaining("not held by the current thread");
    }

    @OnEveryTopology
    void nonOwnerUnlockThrowsAndChangesNothing() throws Exception {
        DistributedLock lock = baton.lock("shared");
        lock.lock();
        Future<Throwable> otherThread = threads.submit(() -> Measure.thrownBy(lock::unlock));
        assertThat(otherThread.get()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(Measure.thrownBy(() -> other.lock("shared").unlock()))
                .as("another Baton on the same thread").isInstanceOf(IllegalMonitorStateException.class);
        LockInfo info = baton.inspect("shared");
        assertThat(info.holder().orElseThrow().batonInstance()).isEqualTo(baton.instanceId());
        assertThat(info.holder().orElseThrow().holdCount()).isEqualTo(1);
        assertThatThrownBy(() -> threads.submit(lock::fencingToken).get())
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
    }

    @OnEveryTopology
    void fencingTokensIncreaseAcrossAcquisitionsExpiryForceUnlockAndCounterLoss() throws Exception {
        DistributedLock lock = baton.lock("fenced");
        List<Long> tokens = new ArrayList<>();
        lock.lock();
        tokens.add(lock.fencingToken());
        lock.unlock();
        lock.lock(Duration.ofMillis(50));
        tokens.add(lock.fencingToken());
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
        try (Lease lease = other.lock("fenced").acquire(Duration.ofSeconds(1))) {
            tokens.add(lease.fencingToken());
            assertThat(lock.forceUnlock()).isTrue();
        }
        tokens.add(baton.lock("fenced").acquire(Duration.ZERO).fencingToken());
        baton.lock("fenced").forceUnlock();
        // The counter key is allowed to expire once unused; tokens must still go up without it.
        deployment.command("baton:lock:{fenced}", "DEL", "baton:lock:{fenced}:token");
        tokens.add(other.lock("fenced").acquire(Duration.ZERO).fencingToken());
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(baton.inspect("fenced").lastFencingToken()).isEqualTo(tokens.get(tokens.size() - 1));
        assertThat(Measure.thrownBy(lock::unlock)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lost");
    }

    @OnEveryTopology
    void unlockAfterTheLeaseRanOutSaysTheLockWasLost() {
        DistributedLock lock = baton.lock("short");
        lock.lock(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'short' was lost");
        assertThat(lock.holdCount()).isZero();
        lock.lock();
        lock.unlock();
    }

    @OnEveryTopology
    void watchdogKeepsTheLockWellPastItsLease() {
        DistributedLock lock = baton.lock("long-job");
        lock.lock();
        // The waiting is the scenario: three leases pass and the lock must be held throughout.
        await().pollInSameThread().during(TestBatons.LEASE.multipliedBy(3)).atMost(TestBatons.LEASE.multipliedBy(4))
                .until(() -> other.lock("long-job").isLocked() && lock.isHeldByCurrentThread());
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @OnEveryTopology
    void forceUnlockLetsOthersInAndTheOwnerIsTold() throws Exception {
        Lease lease = baton.lock("stuck").acquire(Duration.ZERO);
        assertThat(other.lock("stuck").forceUnlock()).isTrue();
        assertThat(other.lock("stuck").forceUnlock()).isFalse();
        Lease next = other.lock("stuck").acquire(Duration.ofSeconds(1));
        lease.lost().get(TestBatons.LEASE.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lost");
        assertThat(next.isValid()).isTrue();
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        next.release();
    }

    @OnEveryTopology
    void tryLockHonoursItsWaitBounds() throws Exception {
        Lease held = other.lock("busy").acquire(Duration.ZERO);
        DistributedLock lock = baton.lock("busy");
        // The first calls of a fresh JVM and Baton load classes and the script and open the pub/sub connection; done
        // here, untimed, so that the bounds below measure the waiting alone, also when this is the run's first test.
        assertThat(lock.tryLock(Duration.ofMillis(1))).isFalse();

        // Never early, every time; late by at most 100 ms at least once in three rounds. A loaded machine may now and
        // then hold any thread up for longer than that; a wait that overshoots its bound would do so every round.
        List<String> rounds = new ArrayList<>();
        while (rounds.size() < 3 && !waitBoundsHonoured(lock, rounds)) {
            assertThat(lock.holdCount()).isZero();
        }
        assertThat(rounds.get(rounds.size() - 1)).as("rounds %s", rounds).startsWith("in bounds");

        assertThat(lock.holdCount()).isZero();
        assertThat(held.isValid()).isTrue();
        held.release();
        assertThat(lock.tryLock(Duration.ofMillis(700))).isTrue();
        lock.unlock();
    }

    /** One round of {@link #tryLockHonoursItsWaitBounds}: asserts the results and lower bounds, reports the upper. */
    private static boolean waitBoundsHonoured(DistributedLock lock, List<String> rounds) throws InterruptedException {
        long start = System.nanoTime();
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(Duration.ZERO)).isFalse();
        long singleTries = Measure.millisSince(start);

        start = System.nanoTime();
        assertThat(lock.tryLock(Duration.ofMillis(700))).isFalse();
        long bounded = Measure.millisSince(start);
        assertThat(bounded).as("never returns before its wait is over").isGreaterThanOrEqualTo(700L);

        start = System.nanoTime();
        assertThat(lock.tryLock(-5, TimeUnit.SECONDS)).as("negative wait counts as zero").isFalse();
        long negative = Measure.millisSince(start);

        boolean honoured = singleTries < 300 && bounded <= 800 && negative < 300;
        rounds.add((honoured ? "in bounds" : "late") + ": two single tries " + singleTries + " ms, a 700 ms wait "
                + bounded + " ms, a negative wait " + negative + " ms");
        return honoured;
    }

    @OnEveryTopology
    void aWaiterIsWokenByTheReleaseNotByPolling() throws Exception {
        BatonConfig slowRecheck = deployment.builder().recheckInterval(Duration.ofSeconds(20))
                .watchdogLease(Duration.ofSeconds(30)).commandTimeout(TestBatons.PATIENT_TIMEOUT).build();
        try (Baton patient = Baton.connect(slowRecheck)) {
            Lease held = other.lock("notify").acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = patient.lock("notify").acquireAsync(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> deployment.subscribers("baton:lock:{notify}:released") == 1);
            long released = System.nanoTime();
            held.release();
            Lease got = waiting.get(5, TimeUnit.SECONDS);
            assertThat(Measure.millisSince(released)).as("woken by pub/sub, far below the 20 s re-check").isLessThan(2000);
            got.release();
            await().atMost(Duration.ofSeconds(5)).until(() -> deployment.subscribers("baton:lock:{notify}:released") == 0);
        }
    }

    @OnEveryTopology
    void acquireAsyncCompletesOnReleaseTimesOutAndParksNoThread() throws Exception {
        Lease held = other.lock("async").acquire(Duration.ZERO);
        int threadsBefore = Thread.activeCount();
        List<CompletableFuture<Lease>> waiting = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            waiting.add(baton.lock("async").acquireAsync(Duration.ofSeconds(30)));
        }
        CompletableFuture<Lease> impatient = baton.lock("async").acquireAsync(Duration.ofMillis(300));
        assertThat(Thread.activeCount()).as("no thread per waiter").isLessThan(threadsBefore + 10);

        long start = System.nanoTime();
        assertThatThrownBy(() -> impatient.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("'async' was not acquired within PT0.3S");
        assertThat(Measure.millisSince(start)).isLessThan(800);

        // Waiting is not fair: whichever waiter gets the lock releases it, and each must get it once.
        List<CompletableFuture<Long>> tokens = new ArrayList<>();
        for (CompletableFuture<Lease> w : waiting) {
            tokens.add(w.thenApply(lease -> {
                long token = lease.fencingToken();
                lease.release();
                return token;
            }));
        }
        held.release();
        CompletableFuture.allOf(tokens.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(tokens.stream().map(CompletableFuture::join).distinct()).hasSize(200);
        assertThat(baton.lock("async").isLocked()).isFalse();
    }

    @OnEveryTopology
    void cancellingAnAsyncAcquireLeavesNothingBehind() throws Exception {
        Lease held = other.lock("cancel").acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = baton.lock("cancel").acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> deployment.subscribers("baton:lock:{cancel}:released") == 1);
        waiting.cancel(false);
        await().atMost(Duration.ofSeconds(5)).until(() -> deployment.subscribers("baton:lock:{cancel}:released") == 0);
        held.release();
        assertThat(baton.lock("cancel").isLocked()).isFalse();
    }

    @OnEveryTopology
    void aLeaseCanBeReleasedByAnotherThread() throws Exception {
        Lease lease = threads.submit(() -> baton.lock("handoff").acquire(Duration.ofSeconds(1))).get();
        threads.submit(lease::release).get();
        assertThat(lease.isValid()).isFalse();
        assertThat(baton.lock("handoff").isLocked()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("already released");
        lease.close();
        assertThat(lease.lost()).isNotDone();
    }

    @OnEveryTopology
    void leasesAreNotReentrant() throws Exception {
        Lease first = baton.lock("once").acquire(Duration.ZERO);
        assertThat(baton.lock("once").tryAcquire(Duration.ofMillis(100), Duration.ofSeconds(5))).isEmpty();
        assertThatThrownBy(() -> baton.lock("once").acquire(Duration.ZERO)).isInstanceOf(LockTimeoutException.class);
        first.release();
    }

    @OnEveryTopology
    void aFixedLeaseExpiresAndItsHolderIsTold() throws Exception {
        Optional<Lease> lease = baton.lock("fixed").tryAcquire(Duration.ZERO, Duration.ofMillis(200));
        assertThat(lease).isPresent();
        lease.get().lost().get(5, TimeUnit.SECONDS);
        assertThat(lease.get().isValid()).isFalse();
        // The holder is told no later than Redis expires the key (the local estimate counts from the send).
        await().atMost(Duration.ofSeconds(5)).until(() -> !baton.lock("fixed").isLocked());
        lease.get().close(); // quiet
    }

    @OnEveryTopology
    void interruptingAWaiterLeavesNothingBehind() throws Exception {
        Lease held = other.lock("interrupt").acquire(Duration.ZERO);
        DistributedLock lock = baton.lock("interrupt");
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Throwable> outcome = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return Measure.thrownBy(() -> {
                try {
                    lock.lockInterruptibly();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> deployment.subscribers("baton:lock:{interrupt}:released") == 1);
        waiter.get().interrupt();
        assertThat(outcome.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> deployment.subscribers("baton:lock:{interrupt}:released") == 0);
        held.release();
        assertThat(lock.isLocked()).as("no orphaned acquisition").isFalse();

        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void lockIsNotInterruptibleButKeepsTheInterrupt() throws Exception {
        DistributedLock lock = baton.lock("stubborn");
        Thread.currentThread().interrupt();
        lock.lock();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void aThreadWhoseInterruptFlagIsSetCanStillUseAndReleaseItsLocks() throws Exception {
        DistributedLock lock = baton.lock("flagged");
        Lease lease = baton.lock("flagged-lease").acquire(Duration.ZERO);
        Thread.currentThread().interrupt();
        try {
            lock.lock();
            assertThat(lock.tryLock()).as("tryLock() is not affected by the flag").isTrue();
            assertThat(baton.lock("flagged-free").tryLock()).isTrue();
            assertThat(lock.isLocked()).isTrue();
            assertThat(baton.inspect("flagged").isLocked()).isTrue();
            lock.unlock();
            lock.unlock();
            baton.lock("flagged-free").unlock();
            lease.release();
            assertThat(Thread.currentThread().isInterrupted()).as("the flag is kept for the caller").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(baton.lock("flagged-free").isLocked()).isFalse();
        assertThat(baton.lock("flagged-lease").isLocked()).isFalse();
    }

    @Test
    void aWatchdogReentryKeepsAFixedLeaseHoldOnlyWhileItLasts() {
        DistributedLock lock = baton.lock("mixed");
        lock.lock(TestBatons.LEASE); // fixed lease
        lock.lock();                 // watchdog re-entry: renewed while it lasts
        await().during(TestBatons.LEASE.multipliedBy(2)).atMost(TestBatons.LEASE.multipliedBy(3))
                .until(() -> baton.inspect("mixed").isLocked());
        lock.unlock();               // back to the fixed lease: it runs out from the last renewal
        await().atMost(TestBatons.LEASE.multipliedBy(3)).until(() -> !baton.lock("mixed").isLocked());
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("lost");
    }

    /** CI runs this class twice, once on PATH's redis-server and once on the embedded one: prove which ran. */
    @Test
    void runsOnTheRedisServerTheEnvironmentNames() {
        RedisBinary.Source expected = RedisBinary.EMBEDDED_WORD.equalsIgnoreCase(System.getenv(RedisBinary.ENV_VAR))
                ? RedisBinary.Source.EMBEDDED
                : RedisBinary.locate().source();
        assertThat(deployment.master("any").binary().source()).isEqualTo(expected);
    }

    @OnEveryTopology
    void scriptsAreReloadedAfterScriptFlush() {
        DistributedLock lock = baton.lock("flush");
        lock.lock();
        deployment.command("baton:lock:{flush}", "SCRIPT", "FLUSH");
        lock.unlock();
        deployment.command("baton:lock:{flush}", "SCRIPT", "FLUSH");
        assertThat(lock.tryLock()).isTrue();
        deployment.command("baton:lock:{flush}", "SCRIPT", "FLUSH");
        assertThat(baton.inspect("flush").isLocked()).isTrue();
        lock.unlock();
    }

    @OnEveryTopology
    void inspectTellsOperatorsWhoHoldsTheLock() {
        assertThat(baton.inspect("job").holder()).isEmpty();
        assertThat(baton.inspect("job").lastFencingToken()).isZero();
        DistributedLock lock = baton.lock("job");
        lock.lock();
        lock.lock();
        LockInfo.Holder holder = other.inspect("job").holder().orElseThrow();
        assertThat(holder.batonInstance()).isEqualTo(baton.instanceId());
        assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(holder.thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(holder.host()).isNotBlank();
        assertThat(holder.leaseOwned()).isFalse();
        assertThat(holder.holdCount()).isEqualTo(2);
        assertThat(holder.fencingToken()).isEqualTo(lock.fencingToken());
        assertThat(holder.remainingLease()).isPositive().isLessThanOrEqualTo(TestBatons.LEASE);
        lock.unlock();
        lock.unlock();
        LockInfo after = other.inspect("job");
        assertThat(after.isLocked()).isFalse();
        assertThat(after.lastFencingToken()).isEqualTo(holder.fencingToken());
    }

    @OnEveryTopology
    void inspectNamesTheThreadThatWaitedNotTheOneThatWokeIt() throws Exception {
        Lease held = other.lock("woken").acquire(Duration.ZERO);
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            DistributedLock lock = baton.lock("woken");
            try {
                if (lock.tryLock(Duration.ofSeconds(10))) {
                    done.await(10, TimeUnit.SECONDS);
                    lock.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "patient-worker");
        waiter.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> deployment.subscribers("baton:lock:{woken}:released") == 1);
        held.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> baton.inspect("woken").isLocked());
        assertThat(baton.inspect("woken").holder().orElseThrow().thread()).isEqualTo("patient-worker");
        done.countDown();
        waiter.join(5000);
        assertThat(baton.lock("woken").isLocked()).isFalse();
    }

    @OnEveryTopology
    void allKeysOfALockShareOneClusterSlotWhateverTheName() {
        for (String name : List.of("plain", "with}brace", "}", "{x}", "a{b}c", "100%", "ünïcødé")) {
            DistributedLock lock = baton.lock(name);
            lock.lock();
            String[] keys = deployment.keys("baton:*").toArray(String[]::new);
            assertThat(keys).as("keys of %s", name).hasSize(2);
            assertThat(SlotHash.getSlot(keys[0])).as("slots of %s", Arrays.toString(keys))
                    .isEqualTo(SlotHash.getSlot(keys[1]));
            assertThat(baton.inspect(name).holder()).isPresent();
            lock.unlock();
            deployment.flush();
        }
    }

    @OnEveryTopology
    void namespacesKeepApplicationsApart() throws Exception {
        BatonConfig config = deployment.builder().namespace("app2").commandTimeout(TestBatons.PATIENT_TIMEOUT).build();
        try (Baton app2 = Baton.connect(config)) {
            baton.lock("same").lock();
            assertThat(app2.lock("same").tryLock()).isTrue();
            app2.lock("same").unlock();
            baton.lock("same").unlock();
        }
    }

    @Test
    void closingStopsRenewalsSoHeldLocksExpireWithTheirLease() {
        Baton closing = connectShortLeased();
        closing.lock("abandoned").lock();
        long closed = System.nanoTime();
        closing.close();
        assertThat(other.lock("abandoned").isLocked()).as("close() does not release").isTrue();
        await().atMost(TestBatons.LEASE.plusSeconds(2)).until(() -> !other.lock("abandoned").isLocked());
        assertThat(Measure.millisSince(closed)).isLessThanOrEqualTo(TestBatons.LEASE.toMillis() + 500);
    }

    @Test
    void aClosedBatonRefusesWork() {
        Baton closing = connectShortLeased();
        DistributedLock lock = closing.lock("closed");
        closing.close();
        closing.close(); // idempotent
        assertThatThrownBy(() -> closing.lock("x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(lock::tryLock).isInstanceOf(IllegalStateException.class);
    }
}
