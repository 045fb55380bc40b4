package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.TopologyExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Lease#releaseAfter(Duration)} on real Redis: the lock stays held, for every other owner, until the delay has
 * passed, even when its lease was longer (the watchdog's) or shorter, and is free right after; the lease itself ends
 * at once and quietly. The other owner is a second {@link Baton}, which is another process as far as Redis can tell
 * (another instance id).
 */
class LeaseReleaseAfterIT {
    /** Far beyond the delays used, so that a test that waits for expiry proves the lease was cut short. */
    private static final Duration WATCHDOG = Duration.ofSeconds(60);
    private static final Duration DELAY = Duration.ofSeconds(2);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private final List<Baton> batons = new ArrayList<>();

    /** The kinds of lock whose leases support a delayed release, each as a function from Baton to lock. */
    enum Kind {
        PLAIN(b -> b.lock("job")),
        FAIR(b -> b.fairLock("job")),
        READ(b -> b.readWriteLock("job").readLock()),
        WRITE(b -> b.readWriteLock("job").writeLock());

        final Function<Baton, DistributedLock> lock;

        Kind(Function<Baton, DistributedLock> lock) {
            this.lock = lock;
        }

        /** The lock that excludes a holder of this kind: a writer excludes a reader and the other way round. */
        DistributedLock rival(Baton baton) {
            return this == READ ? WRITE.lock.apply(baton) : lock.apply(baton);
        }
    }

    @BeforeEach
    void setUp() {
        deployment = redis.deployment();
    }

    @AfterEach
    void tearDown() {
        batons.forEach(Baton::close);
    }

    private Baton baton() {
        Baton baton = Baton.connect(deployment.builder().watchdogLease(WATCHDOG)
                .recheckInterval(Duration.ofMillis(200)).commandTimeout(Duration.ofSeconds(10)).build());
        batons.add(baton);
        return baton;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anotherOwnerCannotTakeTheLockBeforeTheDelayAndCanRightAfter(Kind kind) throws Exception {
        Baton holder = baton();
        Baton other = baton();
        Lease lease = kind.lock.apply(holder).acquire(Duration.ZERO);

        long before = System.nanoTime();
        lease.releaseAfter(DELAY);

        assertThat(lease.isValid()).isFalse();
        DistributedLock rival = kind.rival(other);
        assertThat(rival.tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        AtomicReference<Lease> taken = new AtomicReference<>();
        // Well under the 60 s watchdog lease: only the delay set by releaseAfter can have freed the lock.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Optional<Lease> l = rival.tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
            l.ifPresent(taken::set);
            return l.isPresent();
        });
        Duration held = Duration.ofNanos(System.nanoTime() - before);
        assertThat(held).isGreaterThanOrEqualTo(DELAY.minusMillis(5)); // Redis' expiry is to the millisecond
        assertThat(taken.get().fencingToken()).isGreaterThan(lease.fencingToken());
        taken.get().release();
    }

    @Test
    void aShortFixedLeaseIsLengthenedToTheDelay() throws Exception {
        Baton holder = baton();
        Lease lease = holder.lock("job").tryAcquire(Duration.ZERO, Duration.ofMillis(500)).orElseThrow();

        lease.releaseAfter(Duration.ofSeconds(30));

        LockInfo info = holder.inspect("job");
        assertThat(info.holder()).isPresent();
        assertThat(info.holder().get().remainingLease()).isGreaterThan(Duration.ofSeconds(20));
        assertThat(info.holder().get().fencingToken()).isEqualTo(lease.fencingToken());
    }

    @Test
    void theLeaseEndsQuietlyAndCannotBeReleasedAgain() throws Exception {
        Baton holder = baton();
        Lease lease = holder.lock("job").acquire(Duration.ZERO);

        lease.releaseAfter(Duration.ofMillis(300));

        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("already released");
        assertThatThrownBy(() -> lease.releaseAfter(DELAY)).isInstanceOf(IllegalMonitorStateException.class);
        lease.close(); // quiet
        await().atMost(Duration.ofSeconds(30)).until(() -> !holder.lock("job").isLocked());
        assertThat(lease.lost()).isNotDone();
    }

    @Test
    void zeroReleasesNowAndANegativeDelayIsRefused() throws Exception {
        Baton holder = baton();
        Lease lease = holder.lock("job").acquire(Duration.ZERO);

        assertThatThrownBy(() -> lease.releaseAfter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay");
        assertThat(lease.isValid()).isTrue();
        lease.releaseAfter(Duration.ZERO);

        assertThat(holder.lock("job").isLocked()).isFalse();
    }

    @Test
    void aLeaseLostBeforeIsReportedAsLost() throws Exception {
        Baton holder = baton();
        Lease lease = holder.lock("job").acquire(Duration.ZERO);
        holder.lock("job").forceUnlock();

        assertThatThrownBy(() -> lease.releaseAfter(DELAY)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lost");
        assertThat(holder.lock("job").isLocked()).isFalse();
    }

    @Test
    void aMultiLockLeavesEveryLockToExpire() throws Exception {
        Baton holder = baton();
        Baton other = baton();
        Lease lease = holder.multiLock("a", "b").acquire(Duration.ZERO);

        lease.releaseAfter(DELAY);

        assertThat(other.lock("a").tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        assertThat(other.lock("b").tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> !other.lock("a").isLocked() && !other.lock("b").isLocked());
    }

    @Test
    void aSemaphorePermitRefusesAndStaysHeld() throws Exception {
        Baton holder = baton();
        Lease lease = holder.semaphore("pool", 1).acquire(1, Duration.ZERO);

        assertThatThrownBy(() -> lease.releaseAfter(DELAY)).isInstanceOf(UnsupportedOperationException.class);

        assertThat(lease.isValid()).isTrue();
        lease.release();
    }
}
