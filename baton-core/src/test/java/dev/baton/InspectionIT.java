package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TopologyExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What operators are told about a name by {@link Baton#inspect(String)}, and about one lock by
 * {@link DistributedLock#inspect()}: every kind (plain, fair, read-write, semaphore, the plain locks of a multi-lock)
 * is seen when held, with its kind, its holders, its queue and its permits; nothing held is ever reported free, two
 * kinds held under one name are both reported, and everything is free again after the release. The read of every kind
 * at once runs on every topology (one server, Sentinel, Cluster), where all of a name's keys share one hash slot.
 */
class InspectionIT {
    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    /** Nothing here is about expiry: leases and timeouts that a loaded machine's slow moments cannot reach. */
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private Baton baton;
    private Baton other;

    @BeforeEach
    void connect() {
        Deployment deployment = redis.deployment();
        baton = Baton.connect(deployment.builder().watchdogLease(LEASE).commandTimeout(Duration.ofSeconds(5)).build());
        other = Baton.connect(deployment.builder().watchdogLease(LEASE).commandTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void close() {
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void everyKindHeldUnderOneNameIsReportedAndNoneHidden() throws Exception {
        String name = "shared";
        Lease plain = baton.lock(name).acquire(Duration.ZERO);
        Lease fair = other.fairLock(name).acquire(Duration.ZERO);
        DistributedReadWriteLock rw = baton.readWriteLock(name);
        Lease reader1 = rw.readLock().acquire(Duration.ZERO);
        Lease reader2 = other.readWriteLock(name).readLock().acquire(Duration.ZERO);
        Lease permits = baton.semaphore(name, 4).acquire(2, Duration.ZERO);

        LockInfo info = baton.inspect(name);
        assertThat(info.isLocked()).isTrue();
        assertThat(info.kinds()).containsExactly(LockType.LOCK, LockType.FAIR, LockType.READ, LockType.SEMAPHORE);
        assertThat(info.kind()).isEqualTo(LockType.LOCK);
        assertThat(info.holders()).isEqualTo(1);
        assertThat(info.holder().orElseThrow().fencingToken()).isEqualTo(plain.fencingToken());
        assertThat(info.lastFencingToken()).isEqualTo(plain.fencingToken());

        List<LockInfo> others = info.otherKinds();
        assertThat(others.get(0)).satisfies(f -> {
            assertThat(f.holders()).isEqualTo(1);
            assertThat(f.holder().orElseThrow().batonInstance()).isEqualTo(other.instanceId());
            assertThat(f.holder().orElseThrow().kind()).isEqualTo(LockType.FAIR);
            assertThat(f.lastFencingToken()).isEqualTo(fair.fencingToken());
            assertThat(f.otherKinds()).isEmpty();
        });
        assertThat(others.get(1)).satisfies(r -> {
            assertThat(r.holders()).isEqualTo(2);
            assertThat(r.allHolders()).extracting(LockInfo.Holder::fencingToken)
                    .containsExactlyInAnyOrder(reader1.fencingToken(), reader2.fencingToken());
            assertThat(r.allHolders()).extracting(LockInfo.Holder::kind).containsOnly(LockType.READ);
        });
        assertThat(others.get(2)).satisfies(s -> {
            assertThat(s.holders()).isEqualTo(1);
            assertThat(s.permits()).isEqualTo(4);
            assertThat(s.availablePermits()).isEqualTo(2);
            assertThat(s.holder().orElseThrow().permits()).isEqualTo(2);
            assertThat(s.holder().orElseThrow().leaseOwned()).isTrue();
            assertThat(s.lastFencingToken()).isEqualTo(permits.fencingToken());
        });

        plain.release();
        LockInfo withoutPlain = baton.inspect(name);
        assertThat(withoutPlain.isLocked()).as("the plain lock is free, the others are not").isTrue();
        assertThat(withoutPlain.kinds()).containsExactly(LockType.FAIR, LockType.READ, LockType.SEMAPHORE);

        fair.release();
        reader1.release();
        reader2.release();
        assertThat(baton.inspect(name).kinds()).containsExactly(LockType.SEMAPHORE);
        assertThat(baton.inspect(name).isLocked()).isTrue();
        permits.release();

        assertFree(baton.inspect(name), plain.fencingToken());
    }

    @Test
    void aPlainLockIsReportedWithItsKindAndHolderAndFreeAfterItsRelease() {
        DistributedLock lock = baton.lock("plain");
        lock.lock();
        LockInfo info = other.inspect("plain");
        assertThat(info.isLocked()).isTrue();
        assertThat(info.kind()).isEqualTo(LockType.LOCK);
        assertThat(info.holders()).isEqualTo(1);
        assertThat(info.allHolders()).singleElement().satisfies(h -> {
            assertThat(h.batonInstance()).isEqualTo(baton.instanceId());
            assertThat(h.kind()).isEqualTo(LockType.LOCK);
            assertThat(h.permits()).isEqualTo(1);
            assertThat(h.leaseOwned()).isFalse();
        });
        assertThat(info.otherKinds()).isEmpty();
        assertThat(lock.inspect()).satisfies(own -> {
            assertThat(own.kind()).isEqualTo(LockType.LOCK);
            assertThat(own.holders()).isEqualTo(1);
            assertThat(own.holder().orElseThrow().fencingToken()).isEqualTo(lock.fencingToken());
        });
        long token = lock.fencingToken();
        lock.unlock();
        assertFree(other.inspect("plain"), token);
    }

    @Test
    void aFairLockIsReportedWithItsQueuedWaiter() throws Exception {
        Lease held = baton.fairLock("fair").acquire(Duration.ZERO);
        CompletableFuture<Lease> waiter = other.fairLock("fair").acquireAsync(PATIENCE);
        await().atMost(PATIENCE).until(() -> baton.inspect("fair").waiting() == 1);

        LockInfo info = other.inspect("fair");
        assertThat(info.isLocked()).isTrue();
        assertThat(info.kind()).isEqualTo(LockType.FAIR);
        assertThat(info.holders()).isEqualTo(1);
        assertThat(info.holder().orElseThrow().batonInstance()).isEqualTo(baton.instanceId());
        assertThat(info.holder().orElseThrow().fencingToken()).isEqualTo(held.fencingToken());
        LockInfo own = other.fairLock("fair").inspect();
        assertThat(own.kind()).isEqualTo(LockType.FAIR);
        assertThat(own.waiting()).isEqualTo(1);
        assertThat(own.holders()).isEqualTo(1);

        held.release();
        Lease next = waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        LockInfo handedOn = baton.inspect("fair");
        assertThat(handedOn.waiting()).isZero();
        assertThat(handedOn.holder().orElseThrow().batonInstance()).isEqualTo(other.instanceId());
        next.release();
        assertFree(baton.inspect("fair"), 0); // nothing held: the plain lock of the name, which never had a token
        assertThat(baton.fairLock("fair").inspect()).satisfies(free -> {
            assertThat(free.isLocked()).isFalse();
            assertThat(free.kind()).isEqualTo(LockType.FAIR);
        });
    }

    @Test
    void twoReadersAreReportedFromTheNameAndFromTheWriteSideWhichIsNotFree() throws Exception {
        DistributedReadWriteLock rw = baton.readWriteLock("catalog");
        Lease reader1 = rw.readLock().acquire(Duration.ZERO);
        Lease reader2 = other.readWriteLock("catalog").readLock().acquire(Duration.ZERO);
        CompletableFuture<Lease> writer = other.readWriteLock("catalog").writeLock().acquireAsync(PATIENCE);
        await().atMost(PATIENCE).until(() -> baton.inspect("catalog").waiting() == 1);

        LockInfo byName = baton.inspect("catalog");
        assertThat(byName.isLocked()).isTrue();
        assertThat(byName.kind()).isEqualTo(LockType.READ);
        assertThat(byName.holders()).isEqualTo(2);
        assertThat(byName.allHolders()).extracting(LockInfo.Holder::batonInstance)
                .containsExactlyInAnyOrder(baton.instanceId(), other.instanceId());

        LockInfo writeSide = rw.writeLock().inspect();
        assertThat(writeSide.isLocked()).as("the write side while readers hold the lock").isTrue();
        assertThat(writeSide.kind()).isEqualTo(LockType.READ);
        assertThat(writeSide.holders()).isEqualTo(2);
        assertThat(writeSide.waiting()).as("the waiting writer").isEqualTo(1);
        assertThat(writeSide.allHolders()).extracting(LockInfo.Holder::fencingToken)
                .containsExactlyInAnyOrder(reader1.fencingToken(), reader2.fencingToken());
        assertThat(rw.writeLock().isLocked()).as("the side's own question: does a writer hold it").isFalse();
        assertThat(rw.readLock().inspect()).satisfies(readSide -> {
            assertThat(readSide.kind()).isEqualTo(LockType.READ);
            assertThat(readSide.holders()).isEqualTo(2);
        });

        reader1.release();
        reader2.release();
        Lease w = writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(rw.readLock().inspect()).satisfies(held -> {
            assertThat(held.kind()).isEqualTo(LockType.WRITE);
            assertThat(held.holders()).isEqualTo(1);
            assertThat(held.waiting()).isZero();
            assertThat(held.holder().orElseThrow().fencingToken()).isEqualTo(w.fencingToken());
        });
        w.release();
        assertFree(baton.inspect("catalog"), 0);
        assertThat(rw.writeLock().inspect()).satisfies(free -> {
            assertThat(free.isLocked()).isFalse();
            assertThat(free.kind()).isEqualTo(LockType.WRITE);
        });
        assertThat(rw.readLock().inspect().kind()).isEqualTo(LockType.READ);
    }

    @Test
    void aWriterIsReportedFromTheNameAndFromTheReadSideAndADowngradeShowsBothSides() throws Exception {
        DistributedReadWriteLock rw = baton.readWriteLock("ledger");
        rw.writeLock().lock();
        LockInfo readSide = other.readWriteLock("ledger").readLock().inspect();
        assertThat(readSide.isLocked()).as("the read side while a writer holds the lock").isTrue();
        assertThat(readSide.kind()).isEqualTo(LockType.WRITE);
        assertThat(readSide.holders()).isEqualTo(1);
        assertThat(readSide.holder().orElseThrow().kind()).isEqualTo(LockType.WRITE);
        assertThat(readSide.holder().orElseThrow().thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(other.inspect("ledger").kind()).as("by name").isEqualTo(LockType.WRITE);

        rw.readLock().lock(); // downgrade: the writer takes the read lock too
        LockInfo both = other.inspect("ledger");
        assertThat(both.kind()).isEqualTo(LockType.WRITE);
        assertThat(both.holders()).isEqualTo(2);
        assertThat(both.allHolders()).extracting(LockInfo.Holder::kind).containsExactly(LockType.WRITE, LockType.READ);
        rw.writeLock().unlock();
        assertThat(other.inspect("ledger")).satisfies(r -> {
            assertThat(r.kind()).isEqualTo(LockType.READ);
            assertThat(r.holders()).isEqualTo(1);
        });
        rw.readLock().unlock();
        assertThat(other.inspect("ledger").isLocked()).isFalse();
    }

    @Test
    void aSemaphoreIsReportedWithThePermitsHeldOfItsTotal() throws Exception {
        DistributedSemaphore semaphore = baton.semaphore("pool", 4);
        Lease two = semaphore.acquire(2, Duration.ZERO);

        LockInfo info = other.inspect("pool");
        assertThat(info.isLocked()).isTrue();
        assertThat(info.kind()).isEqualTo(LockType.SEMAPHORE);
        assertThat(info.holders()).isEqualTo(1);
        assertThat(info.permits()).isEqualTo(4);
        assertThat(info.availablePermits()).isEqualTo(2);
        assertThat(info.holder().orElseThrow()).satisfies(h -> {
            assertThat(h.kind()).isEqualTo(LockType.SEMAPHORE);
            assertThat(h.permits()).isEqualTo(2);
            assertThat(h.fencingToken()).isEqualTo(two.fencingToken());
            assertThat(h.batonInstance()).isEqualTo(baton.instanceId());
            assertThat(h.remainingLease()).isPositive().isLessThanOrEqualTo(LEASE);
        });
        Lease one = other.semaphore("pool", 4).acquire(1, Duration.ZERO);
        assertThat(baton.inspect("pool")).satisfies(i -> {
            assertThat(i.holders()).isEqualTo(2);
            assertThat(i.availablePermits()).isEqualTo(1);
        });

        two.release();
        one.release();
        assertFree(other.inspect("pool"), 0);
    }

    @Test
    void theMembersOfAMultiLockArePlainLocksReportedByName() {
        DistributedLock multi = baton.multiLock("m:a", "m:b");
        multi.lock();
        for (String name : List.of("m:a", "m:b")) {
            LockInfo info = other.inspect(name);
            assertThat(info.isLocked()).as(name).isTrue();
            assertThat(info.kind()).isEqualTo(LockType.LOCK);
            assertThat(info.holders()).isEqualTo(1);
            assertThat(info.holder().orElseThrow().batonInstance()).isEqualTo(baton.instanceId());
        }
        assertThat(multi.inspect().kind()).isEqualTo(LockType.LOCK);
        multi.unlock();
        assertThat(other.inspect("m:a").isLocked()).isFalse();
        assertThat(other.inspect("m:b").isLocked()).isFalse();
    }

    /** Nothing of any kind held or waited for: the free plain lock, with its own last token. */
    private static void assertFree(LockInfo info, long plainLockToken) {
        assertThat(info.isLocked()).as("%s", info).isFalse();
        assertThat(info.kind()).isEqualTo(LockType.LOCK);
        assertThat(info.holders()).isZero();
        assertThat(info.holder()).isEmpty();
        assertThat(info.allHolders()).isEmpty();
        assertThat(info.waiting()).isZero();
        assertThat(info.otherKinds()).isEmpty();
        assertThat(info.lastFencingToken()).isEqualTo(plainLockToken);
    }
}
