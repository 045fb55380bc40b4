package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.redlock.RedlockStatistics;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Redlock's everyday contract over five independent masters, and what it refuses. */
class RedlockIT {
    static final Duration LEASE = Duration.ofMillis(2000);
    static final Duration MAX_LEASE = Duration.ofSeconds(3);
    /**
     * Bound on the rounds per acquisition under contention (see the test): about 13 before handovers (issue 22's
     * benchmark); 5.1-7.2 measured with handovers at load averages of 28-50 on 2 cores; 1.6 with contended tries
     * taking the first master alone first (two runs at load 9-12): issue 22's goal, with room for a loaded machine.
     */
    static final double ROUNDS_PER_HOLD_BOUND = 3;
    /**
     * Bound on the split votes per 1,000 acquisitions under contention: 2,800-4,800 before contended tries took the
     * first master alone first, 186-223 after (two runs at load 9-12); what is left are first tries colliding.
     */
    static final double SPLIT_VOTES_PER_THOUSAND_BOUND = 1_000;

    private RedisServers masters;

    @BeforeEach
    void start() {
        masters = RedisServers.start(5);
    }

    @AfterEach
    void stop() {
        masters.close();
    }

    static BatonConfig config(List<String> uris) {
        return config(uris, MAX_LEASE);
    }

    static BatonConfig config(List<String> uris, Duration maxLease) {
        return BatonConfig.builder().redlock(uris.toArray(String[]::new)).watchdogLease(LEASE)
                // Long enough that five connects at once get through on a loaded machine, short against the lease.
                .commandTimeout(Duration.ofMillis(1000)).recheckInterval(Duration.ofMillis(300))
                .redlockMaxLease(maxLease).build();
    }

    @Test
    void aRedlockIsHeldOnEveryMasterAndReleasedFromAll() throws Exception {
        try (Baton a = Baton.connect(config(masters.uris())); Baton b = Baton.connect(config(masters.uris()))) {
            DistributedLock lock = a.lock("order:1");
            lock.lock();
            long first = lock.fencingToken();
            // Granted once a majority granted; the others' grants carry the same token and join the hold.
            for (RedisServer m : masters.servers()) {
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                        assertThat(m.command("HGET", "baton:lock:{order:1}", "token")).isEqualTo(Long.toString(first)));
            }
            assertThat(b.lock("order:1").tryLock()).isFalse();
            assertThat(b.lock("order:1").isLocked()).isTrue();
            lock.lock(); // re-entry keeps the token
            assertThat(lock.holdCount()).isEqualTo(2);
            assertThat(lock.fencingToken()).isEqualTo(first);
            LockInfo info = b.inspect("order:1");
            assertThat(info.holder()).hasValueSatisfying(h -> {
                assertThat(h.fencingToken()).isEqualTo(first);
                assertThat(h.holdCount()).isEqualTo(2);
                assertThat(h.batonInstance()).isEqualTo(a.instanceId());
            });
            lock.unlock();
            lock.unlock();
            // Released once a majority released; the others' releases are on their way.
            for (RedisServer m : masters.servers()) {
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                        assertThat(m.command("EXISTS", "baton:lock:{order:1}")).isEqualTo("0"));
            }
            try (Lease lease = b.lock("order:1").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isGreaterThan(first);
                assertThat(b.inspect("order:1").lastFencingToken()).isEqualTo(lease.fencingToken());
            }
            assertThat(a.health().topology()).isEqualTo("redlock");
            assertThat(a.health().isUp()).isTrue();
        }
    }

    @Test
    void aWaiterIsWokenByTheRelease() throws Exception {
        try (Baton a = Baton.connect(config(masters.uris())); Baton b = Baton.connect(config(masters.uris()))) {
            Lease held = a.lock("wake").acquire(Duration.ofSeconds(5));
            var waiting = b.lock("wake").acquireAsync(Duration.ofSeconds(10));
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !waiting.isDone());
            long released = System.nanoTime();
            held.release();
            Lease next = waiting.get(10, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            next.release();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(10_000);
        }
    }

    /** Threads of two Batons on one Redlock: threads of one Baton queue locally; nobody ever overlaps. */
    @Test
    void threadsOfSeveralBatonsNeverOverlapAndTokensFollowTheAcquisitions() throws Exception {
        // Patient: exclusion and token order are what this test is about, not timeouts or expiry. With the 1 s
        // command timeout of config() a loaded machine once left a lock() with "only 2 of 5 masters answered".
        BatonConfig patient = BatonConfig.builder().redlock(masters.uris().toArray(String[]::new))
                .watchdogLease(TestBatons.PATIENT_LEASE).commandTimeout(TestBatons.PATIENT_TIMEOUT)
                .recheckInterval(Duration.ofMillis(300)).build();
        try (Baton a = Baton.connect(patient); Baton b = Baton.connect(patient)) {
            List<Long> tokens = holdInTurns(List.of(a, b), "shared-counter", 3, 60, Duration.ofMinutes(2));
            assertThat(tokens).hasSize(6 * 60);
            assertIncreasing(tokens);
        }
    }

    @Test
    void withTwoOfFiveMastersDownLocksStillWorkAndWithThreeTheWaitFailsNamingHowManyAnswered() throws Exception {
        try (Baton a = Baton.connect(config(masters.uris())); Baton b = Baton.connect(config(masters.uris()))) {
            long before;
            try (Lease first = a.lock("survivor").acquire(Duration.ofSeconds(5))) {
                before = first.fencingToken();
            }
            masters.get(0).kill();
            masters.get(3).kill();
            Lease lease = a.lock("survivor").acquire(Duration.ofSeconds(5));
            assertThat(lease.fencingToken()).isGreaterThan(before);
            assertThat(b.lock("survivor").tryLock()).isFalse();
            lease.release();
            assertThat(b.lock("survivor").tryLock(Duration.ofSeconds(5))).isTrue();
            b.lock("survivor").unlock();

            masters.get(4).kill();
            long started = System.nanoTime();
            assertThatThrownBy(() -> a.lock("survivor").acquire(Duration.ofSeconds(2)))
                    .isInstanceOf(BatonUnavailableException.class)
                    .hasMessageContaining("only 2 of 5 masters answered (3 needed)");
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
            assertThat(a.health().isUp()).isFalse();
        }
    }

    @Test
    void aBatonStartsWithAMajorityAndConnectsTheOtherMastersWhenTheyComeBack() throws Exception {
        masters.get(3).stop();
        masters.get(4).stop();
        try (Baton baton = Baton.connect(config(masters.uris()))) {
            DistributedLock lock = baton.lock("early");
            lock.lock();
            lock.unlock();
            masters.get(3).restart();
            masters.get(4).restart();
            // Once connected in the background, the two take part in the tries: each is found without its marker
            // and set to sit out (the other three have theirs).
            await().atMost(Duration.ofSeconds(20)).pollInSameThread().untilAsserted(() -> {
                lock.lock();
                lock.unlock();
                assertThat(masters.get(3).command("GET", "baton:redlock:admitted")).isNotNull();
                assertThat(masters.get(4).command("GET", "baton:redlock:admitted")).isNotNull();
            });
        }
        masters.get(0).stop();
        masters.get(1).stop();
        masters.get(2).stop();
        assertThatThrownBy(() -> Baton.connect(config(masters.uris())))
                .isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("only 2 of 5 Redlock masters could be reached (3 needed)");
    }

    @Test
    void primitivesThatCannotRunOnAQuorumAreRefusedByNameBeforeAnyCall() {
        try (Baton baton = Baton.connect(config(masters.uris()))) {
            assertThatThrownBy(() -> baton.fairLock("f")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("fair lock 'f' cannot run on Redlock masters");
            assertThatThrownBy(() -> baton.readWriteLock("rw")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("read-write lock 'rw'");
            assertThatThrownBy(() -> baton.semaphore("s", 2)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("semaphore 's'");
            assertThatThrownBy(() -> baton.multiLock("x", "y")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("multi-lock");
            assertThatThrownBy(() -> baton.countDownLatch("go")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("latch 'go' cannot run on Redlock masters");
            assertThatThrownBy(() -> baton.rateLimiter("api", RateLimit.of(10, Duration.ofSeconds(1))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("rate limiter 'api' cannot run on Redlock masters");
            assertThatThrownBy(() -> baton.lock("long").lock(Duration.ofSeconds(4)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must not be longer than redlockMaxLease");
            assertThatThrownBy(() -> baton.lock("x", LockOptions.replicaAcknowledged(1, Duration.ofMillis(100)))).isInstanceOf(UnsupportedOperationException.class);
        }
        for (RedisServer m : masters.servers()) {
            assertThat(m.command("DBSIZE")).as("nothing was written").isEqualTo("0");
        }
    }

    /**
     * Contention as in the benchmark: four Batons of two threads each on one lock over three masters. A release with a
     * local waiter hands the lock over on every master in one round, so the other Batons' waiters are not woken into
     * split votes, and the retries of waiters take the first master alone before the others, so they queue there
     * instead of splitting the masters: the acquisitions take a bounded number of rounds to every master on average
     * ({@link #ROUNDS_PER_HOLD_BOUND}) and few split votes ({@link #SPLIT_VOTES_PER_THOUSAND_BOUND}), and handovers keep exclusion and strictly increasing tokens across holders.
     */
    @Test
    void underContentionAcquisitionsTakeFewRoundsAndHandoversKeepExclusionAndTokenOrder() throws Exception {
        List<String> three = masters.uris().subList(0, 3);
        List<Baton> batons = new ArrayList<>();
        try {
            // Patient timeouts: the test counts rounds, and a loaded machine must not turn slow replies into failures.
            BatonConfig patient = BatonConfig.builder().redlock(three.toArray(String[]::new))
                    .watchdogLease(Duration.ofSeconds(10)).commandTimeout(Duration.ofSeconds(10))
                    .recheckInterval(Duration.ofMillis(300)).redlockMaxLease(Duration.ofSeconds(20)).build();
            for (int i = 0; i < 4; i++) {
                batons.add(Baton.connect(patient));
            }
            for (Baton baton : batons) {
                baton.lock("contended").tryLock(Duration.ofSeconds(10)); // calibrates this Baton's proposals
                baton.lock("contended").unlock();
            }
            RedlockStatistics.Counts before = RedlockStatistics.snapshot();
            List<Long> tokens = holdInTurns(batons, "contended", 2, 100, Duration.ofMinutes(3));
            RedlockStatistics.Counts counted = RedlockStatistics.snapshot().minus(before);
            System.out.println("Redlock under contention, 3 masters: " + counted); // for the benchmarks reference
            assertThat(tokens).hasSize(8 * 100);
            assertIncreasing(tokens);
            assertThat(counted.holds()).isEqualTo(8 * 100);
            assertThat(counted.handovers()).as("holds passed to a local waiter in one round").isPositive();
            assertThat(counted.roundsPerHold()).as("rounds to every master per acquisition, on average (%s)", counted)
                    .isLessThanOrEqualTo(ROUNDS_PER_HOLD_BOUND);
            assertThat(counted.splitVotesPerThousand()).as("split votes per 1,000 acquisitions (%s)", counted)
                    .isLessThanOrEqualTo(SPLIT_VOTES_PER_THOUSAND_BOUND);
        } finally {
            batons.forEach(Baton::close);
        }
    }

    /**
     * {@code threadsPerBaton} threads on each Baton take the lock {@code name} {@code holds} times each, one after
     * another; returns the fencing tokens in the order the holds happened, after checking that no two threads ever
     * held it at once and that none failed.
     */
    private static List<Long> holdInTurns(List<Baton> batons, String name, int threadsPerBaton, int holds,
                                          Duration join) throws InterruptedException {
        AtomicInteger inside = new AtomicInteger();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (Baton baton : batons) {
            for (int t = 0; t < threadsPerBaton; t++) {
                threads.add(new Thread(() -> {
                    try {
                        DistributedLock lock = baton.lock(name);
                        for (int i = 0; i < holds; i++) {
                            lock.lock();
                            try {
                                assertThat(inside.incrementAndGet()).as("holders at once").isEqualTo(1);
                                tokens.add(lock.fencingToken());
                                inside.decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(join.toMillis());
        }
        assertThat(failures).isEmpty();
        return tokens;
    }

    private static void assertIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token #%d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void aLeaseLeftToExpireHoldsTheLockUntilThenOnEveryMaster() throws Exception {
        try (Baton a = Baton.connect(config(masters.uris())); Baton b = Baton.connect(config(masters.uris()))) {
            Lease lease = a.lock("kept").acquire(Duration.ofSeconds(5));
            assertThatThrownBy(() -> lease.releaseAfter(MAX_LEASE.plusSeconds(1)))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("redlockMaxLease");
            assertThat(lease.isValid()).as("nothing changed").isTrue();
            lease.releaseAfter(Duration.ofMillis(1500));
            assertThat(lease.isValid()).isFalse();
            assertThat(b.lock("kept").tryLock()).as("still held in Redis").isFalse();
            assertThat(b.lock("kept").tryLock(Duration.ofSeconds(10))).isTrue();
            b.lock("kept").unlock();
        }
    }

    @Test
    void aFixedLeaseCountsOnlyItsValidityAndExpiresEverywhere() throws Exception {
        try (Baton a = Baton.connect(config(masters.uris())); Baton b = Baton.connect(config(masters.uris()))) {
            long sent = System.nanoTime();
            Lease lease = a.lock("fixed").tryAcquire(Duration.ZERO, Duration.ofMillis(1000)).orElseThrow();
            lease.lost().get(5, TimeUnit.SECONDS);
            // lease 1000 ms - drift (1% + 2 ms) = 988 ms of validity
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).isLessThan(1000 + 3000);
            assertThat(lease.isValid()).isFalse();
            assertThat(b.lock("fixed").tryLock(Duration.ofSeconds(5))).isTrue();
            b.lock("fixed").unlock();
        }
    }
}
