package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import dev.baton.test.RedisServer;
import dev.baton.test.TcpProxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An acquisition whose reply is lost (Redis frozen past the command timeout, a reply delayed past it, a connection
 * cut after the command was sent) may still run in Redis after its caller was told it failed. Such a grant must not
 * stay held by nobody: once Redis answers again, the lock is free within the command timeout plus a second, for
 * every kind of lock that writes on acquire; and the release of the orphan never touches a later, real acquisition
 * (docs/lock-protocol.md, "Acquisitions whose reply was lost").
 *
 * <p>The caller's Baton has a 500 ms command timeout and a 30 s watchdog lease, so that an orphan left to its lease
 * would keep the lock far longer than the bound checked here.
 */
class OrphanedAcquisitionIT {
    /** How soon after Redis answers again the lock must be free: the command timeout plus a second. */
    private static final Duration FREE_WITHIN = TestBatons.TIMEOUT.plusSeconds(1);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Baton caller;
    /** Another process's Baton, patient, on the server directly: it checks whether the lock is free. */
    private Baton other;

    @BeforeEach
    void connect() {
        caller = Baton.connect(callerConfig(redis.server().uri()));
        other = Baton.connect(TestBatons.patientConfig(redis.server().uri()));
    }

    @AfterEach
    void close() {
        if (redis.server().isPaused()) {
            redis.server().resume();
        }
        threads.shutdownNow();
        caller.close();
        other.close();
    }

    private static BatonConfig callerConfig(String uri) {
        return BatonConfig.builder().uri(uri).watchdogLease(Duration.ofSeconds(30)).commandTimeout(TestBatons.TIMEOUT)
                .recheckInterval(TestBatons.RECHECK).build();
    }

    /**
     * A call made while Redis is frozen fails, the frozen Redis then runs it, and the lock is free again soon. The
     * same call is made once beforehand, with Redis up, so that Redis has its script cached as in production (a test
     * starts with no script loaded, and a frozen Redis would then refuse the script by SHA rather than run it).
     */
    private void frozenDuring(Attempt attempt, FreeCheck free) throws Exception {
        threads.submit(() -> {
            attempt.run().close();
            return null;
        }).get(30, TimeUnit.SECONDS);
        RedisServer server = redis.server();
        server.pause();
        Future<?> call = threads.submit(() -> {
            attempt.run();
            return null;
        });
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(BatonUnavailableException.class);
        server.resume();
        long resumed = System.nanoTime();
        assertThat(free.acquireAndRelease(Duration.ofSeconds(30)))
                .as("the lock its caller was told it did not get is free again").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - resumed)).as("free within the command timeout plus 1 s")
                .isLessThan(FREE_WITHIN);
    }

    /** The attempt as a lock's tryLock: what it holds, to give back. */
    private static Release tried(DistributedLock lock, Duration wait) throws InterruptedException {
        if (!lock.tryLock(wait)) {
            throw new AssertionError("lock '" + lock.name() + "' was not free");
        }
        return lock::unlock;
    }

    @Test
    void aSingleTryOfThePlainLock() throws Exception {
        frozenDuring(() -> tried(caller.lock("plain"), Duration.ZERO), wait -> tryPlain("plain", wait));
    }

    @Test
    void aWaitingLockOfThePlainLock() throws Exception {
        frozenDuring(() -> {
            DistributedLock lock = caller.lock("waiting");
            lock.lock();
            return lock::unlock;
        }, wait -> tryPlain("waiting", wait));
    }

    @Test
    void aLease() throws Exception {
        frozenDuring(() -> caller.lock("lease").acquire(Duration.ofSeconds(5))::release,
                wait -> tryPlain("lease", wait));
    }

    @Test
    void aFairLock() throws Exception {
        frozenDuring(() -> tried(caller.fairLock("fair"), Duration.ofSeconds(5)), wait -> {
            DistributedLock fair = other.fairLock("fair");
            if (!fair.tryLock(wait)) {
                return false;
            }
            fair.unlock();
            return true;
        });
    }

    @Test
    void aReadLock() throws Exception {
        frozenDuring(() -> tried(caller.readWriteLock("rw-read").readLock(), Duration.ofSeconds(5)), wait -> {
            DistributedLock write = other.readWriteLock("rw-read").writeLock();
            if (!write.tryLock(wait)) {
                return false;
            }
            write.unlock();
            return true;
        });
    }

    @Test
    void aWriteLock() throws Exception {
        frozenDuring(() -> tried(caller.readWriteLock("rw-write").writeLock(), Duration.ofSeconds(5)), wait -> {
            DistributedLock read = other.readWriteLock("rw-write").readLock();
            if (!read.tryLock(wait)) {
                return false;
            }
            read.unlock();
            return true;
        });
    }

    @Test
    void permitsOfASemaphore() throws Exception {
        frozenDuring(() -> caller.semaphore("permits", 1).tryAcquire(1, Duration.ofSeconds(5), Duration.ofSeconds(30))
                        .orElseThrow()::release,
                wait -> other.semaphore("permits", 1).tryAcquire(1, wait, Duration.ofSeconds(30)).map(lease -> {
                    lease.release();
                    return true;
                }).orElse(false));
    }

    @Test
    void theMembersOfAMultiLockTakenInOneScript() throws Exception {
        // One hash tag: both members are taken by one multi-acquire script.
        frozenDuring(() -> tried(caller.multiLock("{acct}:1", "{acct}:2"), Duration.ofSeconds(5)),
                wait -> tryPlain("{acct}:1", wait) && tryPlain("{acct}:2", Duration.ZERO));
    }

    @Test
    void aReplyDelayedPastTheTimeoutByTheNetwork() throws Exception {
        try (TcpProxy link = TcpProxy.to(redis.server()); Baton behind = Baton.connect(callerConfig(link.uri()))) {
            tried(behind.lock("delayed"), Duration.ZERO).close(); // connected, and the script cached
            link.cut(); // the command waits in the network, and arrives once the link heals
            assertThatThrownBy(() -> behind.lock("delayed").tryLock(0, TimeUnit.SECONDS))
                    .isInstanceOf(BatonUnavailableException.class);
            link.heal();
            long healed = System.nanoTime();
            assertThat(tryPlain("delayed", Duration.ofSeconds(30))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - healed)).isLessThan(FREE_WITHIN);
        }
    }

    @Test
    void aConnectionCutAfterTheCommandWasSent() throws Exception {
        RedisServer server = redis.server();
        try (TcpProxy link = TcpProxy.to(server); Baton behind = Baton.connect(callerConfig(link.uri()))) {
            threads.submit(() -> {
            tried(behind.lock("cut"), Duration.ZERO).close();
            return null;
        }).get(30, TimeUnit.SECONDS);
            server.pause(); // the command reaches Redis, which runs it only when resumed
            Future<Boolean> call = threads.submit(() -> behind.lock("cut").tryLock(0, TimeUnit.SECONDS));
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(BatonUnavailableException.class);
            link.dropConnections(); // and the connection it came on is gone
            server.resume();
            long resumed = System.nanoTime();
            assertThat(tryPlain("cut", Duration.ofSeconds(30))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - resumed)).isLessThan(FREE_WITHIN);
        }
    }

    @Test
    void theOrphansReleaseNeverTouchesALaterAcquisitionOfTheSameThread() throws Exception {
        RedisServer server = redis.server();
        DistributedLock lock = caller.lock("later");
        threads.submit(() -> {
            tried(lock, Duration.ZERO).close();
            return null;
        }).get(30, TimeUnit.SECONDS);
        server.pause();
        CountDownLatch failed = new CountDownLatch(1);
        Future<Long> outcome = threads.submit(() -> {
            try {
                lock.tryLock(0, TimeUnit.SECONDS);
                return -1L;
            } catch (BatonUnavailableException expected) {
                failed.countDown();
                // The same thread at once, as soon as Redis answers again: a real acquisition after the orphan.
                await().pollInSameThread().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> lock.tryLock(0, TimeUnit.SECONDS));
                return lock.fencingToken();
            }
        });
        assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
        server.resume();
        long token = outcome.get(30, TimeUnit.SECONDS);
        assertThat(token).isPositive();
        // Every abandon sent for the orphan has come back by now; the later hold stays, with its token.
        await().during(FREE_WITHIN).atMost(FREE_WITHIN.multipliedBy(3)).until(() -> other.inspect("later")
                .holder().map(h -> h.fencingToken() == token).orElse(false));
        assertThat(other.lock("later").tryLock(Duration.ZERO)).isFalse();
    }

    @Test
    void aReentryWhoseReplyWasLostDoesNotOutliveTheOwnersLastUnlock() throws Exception {
        RedisServer server = redis.server();
        Future<Boolean> owner = threads.submit(() -> {
            DistributedLock lock = caller.lock("reentry");
            lock.lock();
            server.pause();
            try {
                lock.tryLock(0, TimeUnit.SECONDS); // a re-entry that Redis runs only after the caller gave up on it
                throw new AssertionError("Redis is frozen: the re-entry cannot be answered");
            } catch (BatonUnavailableException expected) {
                // the caller holds the lock once, as far as it knows
            }
            server.resume();
            assertThat(lock.holdCount()).isEqualTo(1);
            lock.unlock();
            return lock.isHeldByCurrentThread();
        });
        assertThat(owner.get(60, TimeUnit.SECONDS)).isFalse();
        assertThat(tryPlain("reentry", FREE_WITHIN)).as("one unlock for one successful lock() frees it").isTrue();
    }

    private boolean tryPlain(String name, Duration wait) throws InterruptedException {
        DistributedLock lock = other.lock(name);
        if (!lock.tryLock(wait)) {
            return false;
        }
        lock.unlock();
        return true;
    }

    @FunctionalInterface
    private interface Attempt {
        /** Acquires; returns how to give back what it got. */
        Release run() throws Exception;
    }

    @FunctionalInterface
    private interface Release extends AutoCloseable {
        @Override
        void close();
    }

    @FunctionalInterface
    private interface FreeCheck {
        /** Takes the lock within {@code wait} from another Baton and gives it back; false if it could not. */
        boolean acquireAndRelease(Duration wait) throws Exception;
    }
}
