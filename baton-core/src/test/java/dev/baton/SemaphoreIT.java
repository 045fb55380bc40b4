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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semaphore's contract against a real Redis: the permit bound, the deliberate total, expiring and stale leases,
 * fair waiting, waits that end without permits, keys left behind. The main tests run on every topology; the others
 * on one server. Cross-process behaviour (crashed holders and waiters) is in {@link SemaphoreProcessesIT}.
 */
class SemaphoreIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    /**
     * Leases and timeouts that a loaded machine's slow moments cannot reach (several JVMs share two cores in CI),
     * yet short enough that a test can watch the watchdog renew a lease a few times.
     */
    private static final Duration WATCHDOG = Duration.ofSeconds(4);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        baton = connect(deployment.builder());
        other = connect(deployment.builder());
    }

    private static Baton connect(BatonConfig.Builder builder) {
        return Baton.connect(builder.watchdogLease(WATCHDOG).commandTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void neverMoreThanThePermitsAreHeldAndEveryLeaseHasAFreshToken() throws Exception {
        int total = 4;
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Future<List<Long>>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            DistributedSemaphore semaphore = (t % 2 == 0 ? baton : other).semaphore("pool", total);
            workers.add(threads.submit(() -> {
                List<Long> tokens = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    int n = 1 + ThreadLocalRandom.current().nextInt(2);
                    try (Lease lease = semaphore.acquire(n, LONG)) {
                        most.accumulateAndGet(held.addAndGet(n), Math::max);
                        tokens.add(lease.fencingToken());
                        Thread.yield();
                        held.addAndGet(-n);
                    }
                }
                return tokens;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> w : workers) {
            List<Long> tokens = w.get(3, TimeUnit.MINUTES);
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("one thread's tokens, in order").isGreaterThan(tokens.get(i - 1));
            }
            all.addAll(tokens);
        }
        assertThat(most.get()).as("permits held at once").isBetween(1, total);
        assertThat(new HashSet<>(all)).as("a token per lease").hasSize(8 * 25);
        DistributedSemaphore pool = baton.semaphore("pool", total);
        assertThat(pool.availablePermits()).isEqualTo(total);
        assertThat(pool.inspect().lastFencingToken()).isEqualTo(Collections.max(all));
        assertThat(deployment.keys("baton:semaphore:*")).as("the total and the fencing counter, nothing else")
                .containsExactlyInAnyOrder("baton:semaphore:{pool}", "baton:semaphore:{pool}:token");
    }

    @OnEveryTopology
    void aBigRequestIsNotOvertakenBySmallOnesAndIsServedWhileTheyChurn() throws Exception {
        int total = 4;
        DistributedSemaphore semaphore = baton.semaphore("churn", total);
        List<Lease> blockers = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            blockers.add(semaphore.acquire(1, Duration.ZERO));
        }
        CompletableFuture<Lease> big = semaphore.acquireAsync(3, LONG);
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger smallGrants = new AtomicInteger();
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Future<?>> churn = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            DistributedSemaphore small = (t % 2 == 0 ? baton : other).semaphore("churn", total);
            churn.add(threads.submit(() -> {
                while (!stop.get()) {
                    try (Lease lease = small.acquire(1, LONG)) {
                        most.accumulateAndGet(held.incrementAndGet(), Math::max);
                        smallGrants.incrementAndGet();
                        Thread.sleep(1); // the work done with the permit (the churn is the scenario), not a wait
                        held.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 7);

        // Permits come back one by one. A small request could take each at once, but the big one is ahead of them
        // all: the permits stay free until three are, and then they are the big one's.
        blockers.get(0).release();
        blockers.get(1).release();
        await().failFast("a small request overtook the big one", () -> smallGrants.get() > 0)
                .during(Duration.ofSeconds(1)).atMost(LONG).until(() -> smallGrants.get() == 0);
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        blockers.get(2).release();
        Lease first = big.get(1, TimeUnit.MINUTES);
        assertThat(smallGrants.get()).as("small grants before the big one").isZero();
        most.accumulateAndGet(held.addAndGet(3), Math::max);
        blockers.get(3).release();
        await().atMost(LONG).until(() -> smallGrants.get() > 20); // sharing the one permit left
        held.addAndGet(-3);
        first.release();

        // And while they churn at full speed: the big request takes its place in the line and is served.
        int before = smallGrants.get();
        await().atMost(LONG).until(() -> smallGrants.get() > before + 20);
        try (Lease again = other.semaphore("churn", total).acquire(3, LONG)) {
            most.accumulateAndGet(held.addAndGet(3), Math::max);
            held.addAndGet(-3);
        }
        int after = smallGrants.get();
        await().atMost(LONG).until(() -> smallGrants.get() > after + 20);
        stop.set(true);
        for (Future<?> f : churn) {
            f.get(1, TimeUnit.MINUTES);
        }
        assertThat(most.get()).as("permits held at once").isLessThanOrEqualTo(total);
        assertThat(semaphore.availablePermits()).isEqualTo(total);
    }

    @OnEveryTopology
    void waitersAreServedInTheOrderTheyCameAcrossBatons() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("line", 2);
        Lease blocker = semaphore.acquire(2, Duration.ZERO);
        List<CompletableFuture<Long>> done = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int id = i;
            int permits = i % 3 == 0 ? 2 : 1;
            done.add((i % 2 == 0 ? baton : other).semaphore("line", 2).acquireAsync(permits, LONG)
                    .thenApply(lease -> {
                        lease.release();
                        return lease.fencingToken();
                    }));
            // The next one comes only once this one has its place in the queue.
            await().atMost(LONG).until(() -> semaphore.inspect().waiting() == id + 1);
        }
        blocker.release();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
        // Tokens follow the order of the grants in Redis (two waiters for one permit each may hold at once).
        List<Long> tokens = done.stream().map(CompletableFuture::join).toList();
        assertThat(tokens).as("waiter i's token, by arrival").isSorted().doesNotHaveDuplicates();
    }

    /**
     * Permits that are free are used: a release hands what it frees to as many waiters, in queue order, as it
     * satisfies, each told in its message, so they hold at the same time without another try of their own (before,
     * a release woke only the first waiter, whose grant woke the next, one round trip after another).
     */
    @OnEveryTopology
    void aReleaseHandsItsPermitsToEveryWaiterTheySatisfyAndTheyHoldAtOnce() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("wide", 4);
        Lease blocker = semaphore.acquire(4, Duration.ZERO);
        int[] wants = {1, 2, 1, 2};
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < wants.length; i++) {
            waiters.add((i % 2 == 0 ? baton : other).semaphore("wide", 4).acquireAsync(wants[i], LONG));
            int queued = i + 1;
            await().atMost(LONG).until(() -> semaphore.inspect().waiting() == queued);
        }

        blocker.release();
        // 4 permits free: the first three waiters (1 + 2 + 1) hold together; the fourth (2) must wait.
        await().atMost(LONG).until(() -> waiters.get(0).isDone() && waiters.get(1).isDone()
                && waiters.get(2).isDone());
        SemaphoreInfo info = semaphore.inspect();
        assertThat(info.holders()).as("three waiters hold at once").hasSize(3);
        assertThat(info.availablePermits()).isZero();
        assertThat(info.waiting()).isEqualTo(1);
        assertThat(waiters.get(3)).isNotDone();
        List<Long> tokens = waiters.subList(0, 3).stream().map(f -> f.join().fencingToken()).toList();
        assertThat(tokens).as("granted in queue order").isSorted().doesNotHaveDuplicates();

        // The 2-permit lease returns: the last waiter holds beside the two 1-permit leases.
        waiters.get(1).join().release();
        Lease last = waiters.get(3).get(1, TimeUnit.MINUTES);
        assertThat(semaphore.inspect().holders()).hasSize(3);
        assertThat(semaphore.availablePermits()).isZero();
        last.release();
        waiters.get(0).join().release();
        waiters.get(2).join().release();
        assertThat(semaphore.availablePermits()).isEqualTo(4);
    }

    @OnEveryTopology
    void theTotalIsSetDeliberatelyAndNeverByARelease() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("cap", 2);
        assertThat(semaphore.permits()).as("new: the total it was made with").isEqualTo(2);
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        Lease two = semaphore.acquire(2, Duration.ZERO);
        assertThat(other.semaphore("cap", 10).permits()).as("the first acquisition wrote the total").isEqualTo(2);
        assertThat(semaphore.tryAcquire(1, Duration.ZERO, Duration.ofSeconds(10))).isEmpty();

        semaphore.setPermits(3);
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        Lease one = other.semaphore("cap", 10).acquire(1, Duration.ZERO);
        semaphore.setPermits(1);
        assertThat(semaphore.availablePermits()).as("cut below what is held").isZero();
        assertThat(semaphore.inspect().holders()).hasSize(2);
        two.release();
        assertThat(semaphore.availablePermits()).as("still one held, of one").isZero();
        one.release();
        assertThat(semaphore.permits()).as("releases never change the total").isEqualTo(1);
        assertThat(semaphore.availablePermits()).isEqualTo(1);

        // A raise wakes a waiter that can now have its permits.
        Lease single = semaphore.acquire(1, Duration.ZERO);
        semaphore.setPermits(2);
        CompletableFuture<Lease> waiting = other.semaphore("cap", 10).acquireAsync(2, LONG);
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);
        semaphore.setPermits(3);
        Lease woken = waiting.get(1, TimeUnit.MINUTES);
        assertThat(semaphore.availablePermits()).isZero();
        woken.release();
        single.release();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
    }

    @OnEveryTopology
    void askingForMoreThanTheTotalFailsInsteadOfWaitingForever() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("small", 3);
        assertThatThrownBy(() -> semaphore.acquire(4, LONG)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'small' has 3 permits in total, fewer than the 4 asked for");

        Lease one = semaphore.acquire(1, Duration.ZERO);
        CompletableFuture<Lease> waiting = other.semaphore("small", 3).acquireAsync(3, LONG);
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);
        semaphore.setPermits(2); // the waiter can never have 3 now: it is told at once
        assertThatThrownBy(() -> waiting.get(1, TimeUnit.MINUTES)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("fewer than the 3");
        assertThat(semaphore.inspect().waiting()).isZero();
        one.release();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }

    @OnEveryTopology
    void aStaleLeaseChangesNothingWhenReleased() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("stale", 2);
        Lease stale = semaphore.tryAcquire(2, Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
        stale.lost().get(1, TimeUnit.MINUTES);
        assertThat(stale.isValid()).isFalse();
        Lease fresh = other.semaphore("stale", 2).acquire(2, LONG);
        assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());

        assertThatThrownBy(stale::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'stale' was lost");
        stale.close(); // quiet
        assertThat(semaphore.availablePermits()).as("the new lease still has its permits").isZero();
        assertThat(fresh.isValid()).isTrue();
        fresh.release();
        assertThatThrownBy(fresh::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("already released");
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(fresh.lost()).isNotDone();
    }

    @OnEveryTopology
    void theWatchdogKeepsPermitsWellPastTheLease() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("long-job", 3);
        Lease lease = semaphore.acquire(2, Duration.ZERO);
        // The waiting is the scenario: two leases pass and the permits must stay held throughout.
        await().pollInSameThread().during(WATCHDOG.multipliedBy(2)).atMost(WATCHDOG.multipliedBy(6))
                .until(() -> other.semaphore("long-job", 3).availablePermits() == 1 && lease.isValid());
        lease.release();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
    }

    @OnEveryTopology
    void aFixedLeaseRunsOutItsHolderIsToldAndAWaiterGetsThePermits() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("fixed", 3);
        Lease lease = semaphore.tryAcquire(3, Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        Lease next = other.semaphore("fixed", 3).acquire(2, LONG);
        lease.lost().get(1, TimeUnit.MINUTES);
        assertThat(lease.isValid()).isFalse();
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        next.release();
    }

    @OnEveryTopology
    void timedOutCancelledAndInterruptedWaitersLeaveNoTrace() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("busy", 2);
        Lease held = other.semaphore("busy", 2).acquire(2, Duration.ZERO);

        assertThatThrownBy(() -> semaphore.acquire(1, Duration.ofMillis(300)))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("semaphore 'busy'");
        assertThat(semaphore.tryAcquire(1, Duration.ofMillis(300), Duration.ofSeconds(5))).isEmpty();

        CompletableFuture<Lease> cancelled = semaphore.acquireAsync(1, LONG);
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);
        cancelled.cancel(false);

        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Throwable> interrupted = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return Measure.thrownBy(() -> {
                try {
                    semaphore.acquire(1, LONG);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        });
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);
        waiter.get().interrupt();
        assertThat(interrupted.get(1, TimeUnit.MINUTES)).hasCauseInstanceOf(InterruptedException.class);

        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 0
                && deployment.subscribers("baton:semaphore:{busy}:released") == 0);
        assertThat(deployment.keys("baton:semaphore:{busy}:*")).as("no queue left")
                .containsExactlyInAnyOrder("baton:semaphore:{busy}:holders", "baton:semaphore:{busy}:expiry",
                        "baton:semaphore:{busy}:token");
        held.release();
        assertThat(semaphore.availablePermits()).as("nothing acquired by the waits that gave up").isEqualTo(2);
    }

    @OnEveryTopology
    void inspectTellsOperatorsWhoHoldsAndWhoWaits() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("seen", 5);
        SemaphoreInfo fresh = semaphore.inspect();
        assertThat(fresh).isEqualTo(new SemaphoreInfo("seen", 5, 5, List.of(), 0, 0));

        Lease three = semaphore.acquire(3, Duration.ZERO);
        Lease one = other.semaphore("seen", 5).tryAcquire(1, Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        CompletableFuture<Lease> waiting = other.semaphore("seen", 5).acquireAsync(2, LONG);
        await().atMost(LONG).until(() -> semaphore.inspect().waiting() == 1);

        SemaphoreInfo info = semaphore.inspect();
        assertThat(info.permits()).isEqualTo(5);
        assertThat(info.availablePermits()).isEqualTo(1);
        assertThat(info.lastFencingToken()).isEqualTo(one.fencingToken());
        assertThat(info.holders()).hasSize(2);
        SemaphoreInfo.Holder mine = info.holders().stream().filter(h -> h.permits() == 3).findFirst().orElseThrow();
        assertThat(mine.batonInstance()).isEqualTo(baton.instanceId());
        assertThat(mine.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(mine.thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(mine.fencingToken()).isEqualTo(three.fencingToken());
        assertThat(mine.remainingLease()).isPositive().isLessThanOrEqualTo(WATCHDOG);
        SemaphoreInfo.Holder theirs = info.holders().stream().filter(h -> h.permits() == 1).findFirst()
                .orElseThrow();
        assertThat(theirs.batonInstance()).isEqualTo(other.instanceId());
        assertThat(theirs.remainingLease()).isGreaterThan(WATCHDOG);

        three.release();
        waiting.get(1, TimeUnit.MINUTES).release();
        one.release();
        assertThat(semaphore.inspect().holders()).isEmpty();
    }

    @Test
    void badInputIsRejectedBeforeAnyRedisCall() throws Exception {
        long scripts = deployment.scriptsRun();
        assertThatThrownBy(() -> baton.semaphore("x", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be at least 1");
        assertThatThrownBy(() -> baton.semaphore(" ", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        DistributedSemaphore semaphore = baton.semaphore("x", 1);
        assertThatThrownBy(() -> semaphore.acquire(0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> semaphore.acquire(1, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> semaphore.acquireAsync(-3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits");
        assertThatThrownBy(() -> semaphore.setPermits(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be at least 1");
        assertThatThrownBy(() -> semaphore.acquire(1, null)).isInstanceOf(NullPointerException.class);
        assertThat(deployment.scriptsRun()).isEqualTo(scripts);
    }

    @Test
    void theTotalOutlivesTheLastLeaseByTheRetentionOnly() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("kept", 2);
        semaphore.acquire(1, Duration.ZERO).release();
        long retention = baton.config().fencingTokenRetention().toMillis();
        long ttl = Long.parseLong(deployment.command("baton:semaphore:{kept}", "PTTL", "baton:semaphore:{kept}"));
        assertThat(ttl).isBetween(retention - 60_000, retention + WATCHDOG.toMillis());
        assertThat(deployment.keys("baton:semaphore:*")).containsExactlyInAnyOrder("baton:semaphore:{kept}",
                "baton:semaphore:{kept}:token");

        // Once the total is gone, the semaphore is new again: the next acquisition writes its own total.
        deployment.command("baton:semaphore:{kept}", "DEL", "baton:semaphore:{kept}");
        assertThat(other.semaphore("kept", 7).permits()).isEqualTo(7);
        other.semaphore("kept", 7).acquire(1, Duration.ZERO).release();
        assertThat(semaphore.permits()).isEqualTo(7);
    }

    @Test
    void listenersHearOfSemaphoreLeases() throws Exception {
        List<Object> events = new CopyOnWriteArrayList<>();
        BatonListener listener = new BatonListener() {
            @Override
            public void lockAcquired(LockAcquired e) {
                events.add(e);
            }

            @Override
            public void lockReleased(LockReleased e) {
                events.add(e);
            }

            @Override
            public void leaseLost(LeaseLost e) {
                events.add(e);
            }
        };
        try (Baton heard = connect(deployment.builder().listener(listener))) {
            DistributedSemaphore semaphore = heard.semaphore("heard", 2);
            Lease released = semaphore.acquire(2, Duration.ZERO);
            released.release();
            Lease expired = semaphore.tryAcquire(1, Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
            expired.lost().get(1, TimeUnit.MINUTES);
            await().atMost(LONG).until(() -> events.size() == 4);
            assertThat(events).containsExactly(
                    new BatonListener.LockAcquired("heard", released.fencingToken(), 1,
                            ((BatonListener.LockAcquired) events.get(0)).waited(), LockType.SEMAPHORE),
                    new BatonListener.LockReleased("heard", released.fencingToken(), LockType.SEMAPHORE,
                            ((BatonListener.LockReleased) events.get(1)).held()),
                    new BatonListener.LockAcquired("heard", expired.fencingToken(), 1,
                            ((BatonListener.LockAcquired) events.get(2)).waited(), LockType.SEMAPHORE),
                    new BatonListener.LeaseLost("heard", expired.fencingToken(), "its lease ran out",
                            LockType.SEMAPHORE));
        }
    }

    @Test
    void theLeasesOfManySemaphoresAreAllRenewed() throws Exception {
        Set<Lease> leases = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            leases.add(baton.semaphore("many-" + i, 1 + i % 3).acquire(1, Duration.ZERO));
        }
        await().pollInSameThread().during(WATCHDOG.multipliedBy(2)).atMost(WATCHDOG.multipliedBy(6))
                .until(() -> leases.stream().allMatch(Lease::isValid));
        leases.forEach(Lease::release);
        assertThat(deployment.keys("baton:semaphore:*:holders")).isEmpty();
    }
}
