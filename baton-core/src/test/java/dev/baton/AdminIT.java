package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonAdmin.Entry;
import dev.baton.BatonAdmin.Kind;
import dev.baton.BatonAdmin.LimitState;
import dev.baton.support.Deployment;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TopologyExtension;
import dev.baton.test.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BatonAdmin} against real Redis: listing by SCAN (names with the characters keys escape, kinds, globs, the
 * limit), a rate limiter read and reset without its configuration, and forced releases of every kind, whose holders
 * are told and whose waiters get what was freed. The command line's own tests (baton-cli) run the same through the
 * jar.
 */
class AdminIT {
    private static final Duration LONG = Duration.ofSeconds(60);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        deployment.flush();
        baton = Baton.connect(deployment.patientBuilder().watchdogLease(Duration.ofSeconds(3)).build());
        other = Baton.connect(deployment.patientBuilder().build());
    }

    @AfterEach
    void close() {
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void aListingFindsEveryKindByScanWithTheNamesAsGivenAndTellsActiveFromIdle() throws Exception {
        String odd = "a{b}%7Bc"; // braces and a percent sign: escaped in keys, given back as written
        try (Lease plain = baton.lock(odd).acquire(LONG);
             Lease fair = baton.fairLock("f1").acquire(LONG);
             Lease sem = baton.semaphore("s1", 2).acquire(1, LONG)) {
            baton.readWriteLock("rw1").readLock().lock();
            try {
                baton.countDownLatch("l1").trySetCount(2);
                baton.rateLimiter("r1", RateLimit.of(10, Duration.ofMinutes(1))).tryAcquire();
                try (Lease idle = baton.lock("idle").acquire(LONG)) {
                    assertThat(idle.isValid()).isTrue();
                }
                Candidacy candidacy = baton.election("e1").join(new LeadershipListener() {
                    @Override
                    public void elected(Leadership leadership) {
                    }

                    @Override
                    public void revoked(Leadership leadership, RevocationReason reason) {
                    }
                });
                await().atMost(LONG).until(candidacy::isLeader);
                // Keys of another namespace and of nobody are not objects.
                deployment.command("other:lock:{x}", "SET", "other:lock:{x}", "1");
                deployment.command("plain", "SET", "plain", "1");

                BatonAdmin.Listing all = other.admin().list(Optional.empty(), "*", 100);
                assertThat(all.complete()).isTrue();
                assertThat(all.scanCalls()).isPositive();
                assertThat(all.entries()).containsExactly(
                        new Entry(Kind.LOCK, odd, true),
                        new Entry(Kind.ELECTION, "e1", true),
                        new Entry(Kind.FAIR, "f1", true),
                        new Entry(Kind.LOCK, "idle", false),
                        new Entry(Kind.LATCH, "l1", true),
                        new Entry(Kind.RATE_LIMITER, "r1", true),
                        new Entry(Kind.READ_WRITE, "rw1", true),
                        new Entry(Kind.SEMAPHORE, "s1", true));

                assertThat(other.admin().list(Optional.of(Kind.LOCK), "*", 100).entries())
                        .extracting(Entry::name).containsExactly(odd, "idle");
                assertThat(other.admin().list(Optional.empty(), "a{b}*", 100).entries())
                        .extracting(Entry::name).containsExactly(odd);
                assertThat(other.admin().list(Optional.empty(), "[ef]?", 100).entries())
                        .extracting(Entry::name).containsExactly("e1", "f1");
                BatonAdmin.Listing cut = other.admin().list(Optional.empty(), "*", 3);
                assertThat(cut.complete()).isFalse();
                assertThat(cut.entries()).hasSize(3);
                candidacy.close();
            } finally {
                baton.readWriteLock("rw1").readLock().unlock();
            }
        }
    }

    @OnEveryTopology
    void aRateLimiterIsReadAndResetWithoutItsConfiguration() {
        RateLimiter limiter = baton.rateLimiter("api",
                RateLimit.of(10, Duration.ofMinutes(10)),
                RateLimit.builder(100, Duration.ofHours(1)).algorithm(RateLimit.Algorithm.SLIDING_WINDOW_LOG).build(),
                RateLimit.builder(50, Duration.ofHours(1)).algorithm(RateLimit.Algorithm.FIXED_WINDOW).build());
        assertThat(other.admin().rateLimiter("api")).as("never used: every limit full, no state").isEmpty();
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire().allowed()).isTrue();
        }

        List<LimitState> limits = other.admin().rateLimiter("api");
        assertThat(limits).extracting(LimitState::index).containsExactly(0, 1, 2);
        LimitState gcra = limits.get(0);
        assertThat(gcra.algorithm()).isEqualTo(RateLimit.Algorithm.GCRA);
        assertThat(gcra.permits()).isEqualTo(10);
        assertThat(gcra.period()).isEqualTo(Duration.ofMinutes(10));
        assertThat(gcra.used()).isEqualTo(3);
        assertThat(gcra.remaining()).isEqualTo(7);
        assertThat(gcra.resetAfter()).isBetween(Duration.ofMinutes(2), Duration.ofMinutes(3));
        LimitState sliding = limits.get(1);
        assertThat(sliding.algorithm()).isEqualTo(RateLimit.Algorithm.SLIDING_WINDOW_LOG);
        assertThat(sliding.permits()).isEqualTo(100);
        assertThat(sliding.used()).isEqualTo(3);
        assertThat(sliding.remaining()).isEqualTo(97);
        assertThat(sliding.resetAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
        LimitState fixed = limits.get(2);
        assertThat(fixed.algorithm()).isEqualTo(RateLimit.Algorithm.FIXED_WINDOW);
        assertThat(fixed.permits()).isEqualTo(50);
        assertThat(fixed.used()).isEqualTo(3);
        assertThat(fixed.remaining()).isEqualTo(47);
        assertThat(fixed.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
        assertThat(limiter.peek().remaining()).as("what one more take would leave").isEqualTo(gcra.remaining() - 1);

        assertThat(other.admin().resetRateLimiter("api")).isEqualTo(3);
        assertThat(other.admin().rateLimiter("api")).isEmpty();
        assertThat(limiter.peek().remaining()).as("full again for every process").isEqualTo(9);
        assertThat(other.admin().resetRateLimiter("api")).as("idle").isZero();
    }

    @OnEveryTopology
    void aForcedUnlockTakesEachKindFromItsHolderWhoIsToldAndTokensKeepIncreasing() throws Exception {
        Lease plain = baton.lock("job").acquire(LONG);
        Lease fair = baton.fairLock("job").acquire(LONG);
        Lease write = baton.readWriteLock("job").writeLock().acquire(LONG);
        Lease sem = baton.semaphore("job", 1).acquire(1, LONG);
        CompletableFuture<Lease> semWaiter = other.semaphore("job", 1).acquireAsync(1, LONG);
        await().atMost(LONG).until(() -> other.inspect("job").otherKinds().stream()
                .anyMatch(i -> i.kind() == LockType.SEMAPHORE && i.waiting() == 1)
                || other.inspect("job").kind() == LockType.SEMAPHORE && other.inspect("job").waiting() == 1);

        for (Kind kind : List.of(Kind.LOCK, Kind.FAIR, Kind.READ_WRITE)) {
            assertThat(other.admin().forceUnlock("job", kind)).as(kind.toString()).isTrue();
            assertThat(other.admin().forceUnlock("job", kind)).as(kind + " again").isFalse();
        }
        // The semaphore's freed permit goes straight to its waiter, so a second forced release would take that.
        assertThat(other.admin().forceUnlock("job", Kind.SEMAPHORE)).isTrue();
        for (Lease lease : List.of(plain, fair, write, sem)) {
            lease.lost().get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThat(lease.isValid()).isFalse();
        }
        Lease handed = semWaiter.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).as("the waiter got the freed permit, with a higher token")
                .isGreaterThan(sem.fencingToken());
        handed.release();
        try (Lease next = other.lock("job").acquire(LONG)) {
            assertThat(next.fencingToken()).isGreaterThan(plain.fencingToken());
        }
        assertThat(other.inspect("job").isLocked()).isFalse();
    }

    @OnEveryTopology
    void aForcedUnlockOfAnElectionUnseatsTheLeaderAndTheCandidatesCampaignAgain() throws Exception {
        java.util.concurrent.BlockingQueue<RevocationReason> revoked = new java.util.concurrent.LinkedBlockingQueue<>();
        Candidacy candidacy = baton.election("lead").join(new LeadershipListener() {
            @Override
            public void elected(Leadership leadership) {
            }

            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                revoked.add(reason);
            }
        });
        await().atMost(LONG).until(candidacy::isLeader);
        long epoch = baton.election("lead").leader().orElseThrow().epoch();
        assertThat(other.admin().forceUnlock("lead", Kind.ELECTION)).isTrue();
        assertThat(revoked.poll(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .isEqualTo(RevocationReason.LOST);
        await().atMost(LONG).until(() -> other.election("lead").leader().map(l -> l.epoch() > epoch).orElse(false));
        candidacy.close();
    }

    @OnEveryTopology
    void theQueueOfAFairLockAndOfASemaphoreIsReadInOrder() throws Exception {
        try (Lease fair = baton.fairLock("line").acquire(LONG);
             Lease permits = baton.semaphore("line", 2).acquire(2, LONG)) {
            CompletableFuture<Lease> first = other.fairLock("line").acquireAsync(LONG);
            await().atMost(LONG).until(() -> other.admin().queue("line", Kind.FAIR, 10).size() == 1);
            CompletableFuture<Lease> second = baton.fairLock("line").acquireAsync(LONG);
            CompletableFuture<Lease> sem = other.semaphore("line", 2).acquireAsync(2, LONG);
            await().atMost(LONG).until(() -> other.admin().queue("line", Kind.FAIR, 10).size() == 2
                    && other.admin().queue("line", Kind.SEMAPHORE, 10).size() == 1);

            List<BatonAdmin.Waiter> line = other.admin().queue("line", Kind.FAIR, 10);
            assertThat(line).extracting(BatonAdmin.Waiter::batonInstance)
                    .containsExactly(other.instanceId(), baton.instanceId());
            assertThat(line.get(0).pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(line.get(0).placeKept()).isPositive();
            assertThat(other.admin().queue("line", Kind.FAIR, 1)).hasSize(1);
            assertThat(other.admin().queue("line", Kind.SEMAPHORE, 10)).singleElement()
                    .satisfies(w -> assertThat(w.permits()).isEqualTo(2));
            assertThat(other.admin().queue("nobody", Kind.FAIR, 10)).isEmpty();

            fair.release();
            first.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).release();
            second.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).release();
            permits.release();
            sem.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).release();
        }
    }

    @Test
    void argumentsAreCheckedBeforeAnyRedisCall() {
        BatonAdmin admin = baton.admin();
        assertThatThrownBy(() -> admin.list(Optional.empty(), " ", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("glob");
        assertThatThrownBy(() -> admin.list(Optional.empty(), "*", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> admin.rateLimiter(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> admin.forceUnlock("x", Kind.LATCH)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no holders");
        assertThatThrownBy(() -> admin.queue("x", Kind.LOCK, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no queue");
        assertThatThrownBy(() -> admin.queue("x", Kind.FAIR, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> admin.forceUnlock("x", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("kind");
        assertThat(Kind.ofKeyword("RW")).contains(Kind.READ_WRITE);
        assertThat(Kind.ofKeyword("nope")).isEmpty();
    }

    @Test
    void onRedlockMastersOnlyPlainLocksAndElectionsAreTakenAndEveryMasterIsListed() throws Exception {
        try (RedisServers masters = RedisServers.start(3);
             Baton redlock = Baton.connect(BatonConfig.builder().redlock(masters.uris().toArray(String[]::new))
                     .commandTimeout(Duration.ofSeconds(2)).build())) {
            Lease lease = redlock.lock("quorum").acquire(LONG);
            assertThat(redlock.admin().list(Optional.empty(), "*", 10).entries())
                    .containsExactly(new Entry(Kind.LOCK, "quorum", true));
            assertThat(redlock.admin().forceUnlock("quorum", Kind.LOCK)).isTrue();
            lease.lost().get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThatThrownBy(() -> redlock.admin().forceUnlock("quorum", Kind.FAIR))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> redlock.admin().rateLimiter("quorum"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }
}
