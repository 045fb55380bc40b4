package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.Deployment;
import dev.baton.support.FairLockWorker;
import dev.baton.support.Measure;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.Topology;
import dev.baton.support.TopologyExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fair lock's rules, on real Redis and across processes: waiters get the lock in exactly the order their first
 * try reached Redis, each release hands it to the next with one message, a waiter that dies or gives up holds up the
 * queue only within the stated bound (docs/fair-lock.md), and nothing is left in Redis once everyone is done.
 *
 * <p>Arrival order is made deterministic by starting each waiter only once the one before it is visibly queued in
 * Redis. Timings are patient (long leases, long command timeouts) except where a test is about expiry.
 */
class FairLockIT {
    private static final Logger log = LoggerFactory.getLogger(FairLockIT.class);
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private final List<Baton> batons = new ArrayList<>();
    private final List<ChildJvm> children = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        deployment = redis.deployment();
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        children.forEach(ChildJvm::close);
        batons.forEach(Baton::close);
    }

    /**
     * A Baton whose timings no slow moment of a loaded machine reaches (its waiters keep their place in the queue for
     * 21.5 s without a try), so that only ordering can fail the test.
     */
    private Baton patient() {
        return track(Baton.connect(deployment.builder().watchdogLease(Duration.ofSeconds(30))
                .commandTimeout(Duration.ofSeconds(10)).recheckInterval(Duration.ofMillis(500)).build()));
    }

    private Baton track(Baton baton) {
        batons.add(baton);
        return baton;
    }

    @OnEveryTopology
    void waitersOfSeveralBatonsGetTheLockInArrivalOrderOneHandoffMessageEach() throws Exception {
        String name = "orders";
        Baton first = patient();
        Baton second = patient();
        DistributedLock holder = first.fairLock(name);
        holder.lock();
        long holderToken = holder.fencingToken();

        List<String> acquired = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> waiters = new ArrayList<>();
        int count = 6;
        for (int i = 0; i < count; i++) {
            DistributedLock lock = (i % 2 == 0 ? first : second).fairLock(name);
            String label = "w" + i;
            waiters.add(threads.submit(() -> {
                lock.lock();
                try {
                    acquired.add(label);
                    tokens.add(lock.fencingToken());
                    assertThat(lock.holdCount()).isEqualTo(1);
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            int queued = i + 1;
            await().atMost(PATIENCE).until(() -> queueLength(name) == queued);
        }
        assertThat(holder.isLocked()).isTrue();
        assertThat(holder.tryLock()).as("a re-entry is not held up by the queue").isTrue();
        holder.unlock();

        long publishesBefore = publishes();
        holder.unlock();
        for (Future<?> waiter : waiters) {
            waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }

        assertThat(acquired).containsExactly("w0", "w1", "w2", "w3", "w4", "w5");
        assertThat(tokens.get(0)).isGreaterThan(holderToken);
        assertStrictlyIncreasing(tokens);
        if (deployment.topology() != Topology.SENTINEL) { // sentinels PUBLISH their hellos to the master
            assertThat(publishes() - publishesBefore).as("one message per handoff, none for the last release")
                    .isEqualTo(count);
        }
        assertOnlyTheCounterIsLeft(name);
    }

    @Test
    void eightThreadsInFourProcessesGetTheLockInExactlyArrivalOrder() throws Exception {
        String name = "processes";
        String uri = deployment.masters().get(0).uri();
        for (int i = 0; i < 4; i++) {
            ChildJvm child = ChildJvm.start(FairLockWorker.class, uri, name, "30000", "500", "10000");
            children.add(child);
        }
        for (ChildJvm child : children) {
            child.awaitLine("READY", 60);
        }
        DistributedLock holder = patient().fairLock(name);
        holder.lock();
        long holderToken = holder.fencingToken();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String label = "p" + (i % 4) + "-w" + i;
            expected.add(label);
            children.get(i % 4).send("WAIT " + label);
            int queued = i + 1;
            await().atMost(PATIENCE).until(() -> queueLength(name) == queued);
        }

        holder.unlock();
        await().atMost(PATIENCE).until(() -> order().size() == 8);

        List<String> order = order();
        assertThat(order.stream().map(e -> e.split(" ")[0]).toList()).isEqualTo(expected);
        List<Long> tokens = order.stream().map(e -> Long.parseLong(e.split(" ")[1])).toList();
        assertThat(tokens.get(0)).isGreaterThan(holderToken);
        assertStrictlyIncreasing(tokens);
        assertOnlyTheCounterIsLeft(name);
    }

    @Test
    void fiveHundredWaitingThreadsAllGetTheLockInQueueOrder() throws Exception {
        String name = "crowd";
        int perBaton = 250;
        DistributedLock holder = patient().fairLock(name);
        holder.lock();
        List<String> acquired = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2 * perBaton);
        try {
            List<Future<?>> waiters = new ArrayList<>();
            for (Baton baton : List.of(patient(), patient())) {
                DistributedLock lock = baton.fairLock(name);
                for (int i = 0; i < perBaton; i++) {
                    waiters.add(pool.submit(() -> {
                        lock.lock();
                        try {
                            acquired.add(baton.instanceId() + ":t" + Thread.currentThread().getId());
                            tokens.add(lock.fencingToken());
                        } finally {
                            lock.unlock();
                        }
                        return null;
                    }));
                }
            }
            await().atMost(Duration.ofMinutes(2)).until(() -> queueLength(name) == 2 * perBaton);
            List<String> queue = deployment.command(queueKey(name), "ZRANGE", queueKey(name), "0", "-1").lines()
                    .toList();

            long start = System.nanoTime();
            holder.unlock();
            for (Future<?> waiter : waiters) {
                waiter.get(3, TimeUnit.MINUTES);
            }
            log.info("{} queued waiters got the fair lock one after another in {} ms", 2 * perBaton,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            assertThat(acquired).hasSize(2 * perBaton).isEqualTo(queue);
            assertStrictlyIncreasing(tokens);
            assertOnlyTheCounterIsLeft(name);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void waitsThatTimeOutAreInterruptedOrCancelledLeaveTheQueue() throws Exception {
        String name = "impatient";
        Baton baton = patient();
        Baton other = patient();
        DistributedLock holder = baton.fairLock(name);
        holder.lock();
        DistributedLock lock = other.fairLock(name);

        Future<Boolean> timedOut = threads.submit(() -> lock.tryLock(Duration.ofSeconds(2)));
        await().atMost(PATIENCE).until(() -> queueLength(name) == 1);
        assertThat(timedOut.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isFalse();
        await().atMost(PATIENCE).until(() -> queueLength(name) == 0);

        AtomicReference<Throwable> interruptedWith = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                lock.lockInterruptibly();
            } catch (Throwable e) {
                interruptedWith.set(e);
            }
        });
        interrupted.start();
        await().atMost(PATIENCE).until(() -> queueLength(name) == 1);
        interrupted.interrupt();
        interrupted.join(PATIENCE.toMillis());
        assertThat(interruptedWith.get()).isInstanceOf(InterruptedException.class);
        await().atMost(PATIENCE).until(() -> queueLength(name) == 0);

        CompletableFuture<Lease> cancelled = lock.acquireAsync(Duration.ofMinutes(1));
        await().atMost(PATIENCE).until(() -> queueLength(name) == 1);
        cancelled.cancel(true);
        await().atMost(PATIENCE).until(() -> queueLength(name) == 0);
        assertThat(cancelled).isCancelled();

        // A wait still queued behind the ones that left gets the lock at the release.
        CompletableFuture<Lease> patientOne = lock.acquireAsync(Duration.ofMinutes(1));
        await().atMost(PATIENCE).until(() -> queueLength(name) == 1);
        holder.unlock();
        Lease lease = patientOne.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(lease.isValid()).isTrue();
        lease.release();
        assertOnlyTheCounterIsLeft(name);
        assertThat(cancelled.isCancelled()).isTrue();
        assertThat(catching(cancelled)).isInstanceOf(CancellationException.class);
    }

    @Test
    void killedWaitersAndAKilledHolderHoldUpTheQueueOnlyWithinTheBound() throws Exception {
        String name = "crashes";
        String uri = deployment.masters().get(0).uri();
        // The doomed processes' settings: a lease, and an entry lifetime of 3 * 300 + 2 * 5000 = 10900 ms (long
        // enough that a loaded machine does not cost them their place before they are killed).
        long leaseMillis = 3000;
        long recheckMillis = 300;
        long timeoutMillis = 5000;
        for (int i = 0; i < 3; i++) {
            children.add(ChildJvm.start(FairLockWorker.class, uri, name, Long.toString(leaseMillis),
                    Long.toString(recheckMillis), Long.toString(timeoutMillis)));
        }
        for (ChildJvm child : children) {
            child.awaitLine("READY", 60);
        }
        ChildJvm holderProcess = children.get(0);
        holderProcess.send("HOLD holder");
        long holderToken = Long.parseLong(holderProcess.awaitLine("ACQUIRED holder", 60).split(" ")[2]);

        // The queue: a doomed child's waiter, ours, another doomed child's, ours. Ours are patient, so that only the
        // dead can hold them up. The holder and the first doomed waiter die first: the lock runs out with the
        // holder's lease, and the dead head is skipped once its entry dies. The second doomed waiter dies while our
        // first one holds the lock, so that the lock is handed to it, dead, at the release.
        Baton baton = patient();
        List<String> acquired = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<Long> acquiredAtNanos = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> ours = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            if (i % 2 == 1) {
                DistributedLock lock = baton.fairLock(name);
                String label = "ours-" + i;
                ours.add(threads.submit(() -> {
                    lock.lock();
                    try {
                        acquired.add(label);
                        tokens.add(lock.fencingToken());
                        acquiredAtNanos.add(System.nanoTime());
                        if (label.equals("ours-1")) {
                            children.get(2).signal("KILL");
                        }
                    } finally {
                        lock.unlock();
                    }
                    return null;
                }));
            } else {
                children.get(i == 0 ? 1 : 2).send("WAIT doomed-" + i);
            }
            int queued = i + 1;
            await().atMost(PATIENCE).until(() -> queueLength(name) == queued);
        }

        children.get(1).signal("KILL");
        holderProcess.signal("KILL");
        long killedAt = System.nanoTime();
        List<Boolean> oursInQueue = deployment.command(queueKey(name), "ZRANGE", queueKey(name), "0", "-1").lines()
                .map(owner -> owner.startsWith(baton.instanceId() + ":")).toList();
        assertThat(oursInQueue).as("the dead are queued ahead of ours (precondition)")
                .containsExactly(false, true, false, true);

        // The stated bound (docs/fair-lock.md): a crashed holder holds the queue up for its lease; a dead waiter for
        // at most its entry's lifetime plus, if the lock was handed to it before its entry died, its lease; each
        // plus a re-check. Waited for at a generous multiple.
        long lifetime = 3 * recheckMillis + 2 * timeoutMillis;
        long boundMillis = leaseMillis + recheckMillis + 2 * (lifetime + leaseMillis + recheckMillis);
        await().atMost(Duration.ofMillis(4 * boundMillis)).until(() -> ours.stream().allMatch(Future::isDone));
        for (Future<?> f : ours) {
            f.get();
        }
        log.info("after killing the holder and the waiter at the head, ours got the lock after {} ms (bound {} ms)",
                acquiredAtNanos.stream().map(t -> TimeUnit.NANOSECONDS.toMillis(t - killedAt)).toList(),
                boundMillis);
        assertThat(acquired).containsExactly("ours-1", "ours-3");
        assertThat(tokens.get(0)).isGreaterThan(holderToken);
        assertStrictlyIncreasing(tokens);
        await().atMost(PATIENCE).untilAsserted(() -> assertOnlyTheCounterIsLeft(name));
    }

    @Test
    void aCrashedHolderBlocksTheQueueForOneLease() throws Exception {
        String name = "crashed-holder";
        ChildJvm child = ChildJvm.start(FairLockWorker.class, deployment.masters().get(0).uri(), name, "1500",
                "300", "1000");
        children.add(child);
        child.awaitLine("READY", 60);
        child.send("HOLD holder");
        long holderToken = Long.parseLong(child.awaitLine("ACQUIRED holder", 60).split(" ")[2]);

        Baton baton = track(deployment.connect());
        CompletableFuture<Lease> waiter = baton.fairLock(name).acquireAsync(Duration.ofMinutes(1));
        await().atMost(PATIENCE).until(() -> queueLength(name) == 1);
        child.signal("KILL");
        Lease lease = waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(lease.fencingToken()).isGreaterThan(holderToken);
        lease.release();
        assertOnlyTheCounterIsLeft(name);
    }

    @Test
    void reentrantInspectableFencedLeasedAndToldWhenLostLikeThePlainLockButALockOfItsOwn() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Baton baton = track(Baton.connect(deployment.builder().listener(new BatonListener() {
            @Override
            public void lockAcquired(LockAcquired e) {
                events.add("acquired " + e.lock() + " " + e.holdCount());
            }

            @Override
            public void lockReleased(LockReleased e) {
                events.add("released " + e.lock());
            }

            @Override
            public void leaseLost(LeaseLost e) {
                events.add("lost " + e.lock());
            }
        }).build()));
        long scripts = Measure.scriptsRun(deployment.masters().get(0));
        assertThatThrownBy(() -> baton.fairLock(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> baton.fairLock(null)).isInstanceOf(NullPointerException.class);
        DistributedLock lock = baton.fairLock("ledger");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThat(Measure.scriptsRun(deployment.masters().get(0))).as("no Redis call on bad input")
                .isEqualTo(scripts);

        lock.lock();
        long token = lock.fencingToken();
        assertThat(lock.tryLock(Duration.ofSeconds(1))).isTrue();
        assertThat(lock.holdCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).isEqualTo(token);
        LockInfo info = lock.inspect();
        assertThat(info.lastFencingToken()).isEqualTo(token);
        LockInfo.Holder holder = info.holder().orElseThrow();
        assertThat(holder.batonInstance()).isEqualTo(baton.instanceId());
        assertThat(holder.holdCount()).isEqualTo(2);
        assertThat(holder.fencingToken()).isEqualTo(token);
        assertThat(holder.remainingLease()).isPositive();
        assertThat(holder.leaseOwned()).isFalse();
        assertThat(baton.lock("ledger").tryLock()).as("the plain lock of the same name is another lock").isTrue();
        baton.lock("ledger").unlock();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        Lease fixed = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        assertThat(fixed.fencingToken()).isGreaterThan(token);
        fixed.lost().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(fixed.isValid()).isFalse();
        assertThatThrownBy(fixed::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lost");

        // An administrator takes the lock away: it goes to the next in line, and its holder is told.
        Lease taken = lock.acquire(Duration.ofSeconds(10));
        CompletableFuture<Lease> next = lock.acquireAsync(Duration.ofMinutes(1));
        await().atMost(PATIENCE).until(() -> queueLength("ledger") == 1);
        assertThat(lock.forceUnlock()).isTrue();
        Lease nextLease = next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(nextLease.fencingToken()).isGreaterThan(taken.fencingToken());
        taken.lost().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        nextLease.release();
        assertThat(lock.forceUnlock()).as("nobody holds it").isFalse();
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(events).contains("acquired ledger 1",
                "acquired ledger 2", "released ledger", "lost ledger"));
        assertOnlyTheCounterIsLeft("ledger");
    }

    // ---- helpers ----

    private static String queueKey(String name) {
        return "baton:fair:{" + name + "}:queue";
    }

    private long queueLength(String name) {
        return Long.parseLong(deployment.command(queueKey(name), "ZCARD", queueKey(name)));
    }

    private List<String> order() {
        String list = deployment.masters().get(0).command("LRANGE", FairLockWorker.ORDER, "0", "-1");
        return list.lines().filter(l -> !l.isBlank()).toList();
    }

    /** Every key of the fair lock is gone but its fencing counter, which outlives it on purpose. */
    private void assertOnlyTheCounterIsLeft(String name) {
        assertThat(deployment.keys("baton:fair:*")).containsExactly("baton:fair:{" + name + "}:token");
    }

    /** PUBLISH and SPUBLISH commands run by the masters so far (from scripts too). */
    private long publishes() {
        long sum = 0;
        for (var master : deployment.masters()) {
            for (String line : master.command("INFO", "commandstats").lines().toList()) {
                if (line.startsWith("cmdstat_publish:") || line.startsWith("cmdstat_spublish:")) {
                    sum += Long.parseLong(line.replaceAll("^.*[:,]calls=(\\d+).*$", "$1"));
                }
            }
        }
        return sum;
    }

    private static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token #%d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    private static Throwable catching(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }
}
