package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Redlock's everyday contract over five independent masters, and what it refuses. */
class RedlockIT {
    static final Duration LEASE = Duration.ofMillis(2000);
    static final Duration MAX_LEASE = Duration.ofSeconds(3);

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
