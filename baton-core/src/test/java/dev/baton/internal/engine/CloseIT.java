package dev.baton.internal.engine;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Closing a Baton leaves nobody hanging and nobody uninformed: waits in progress end with IllegalStateException,
 * holds still held are marked lost (nothing renews them), and the locks expire in Redis with their lease.
 */
class CloseIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void closeEndsEveryWaitAndTellsEveryHolder() throws Exception {
        // The other process only holds and looks: patient. The closing Baton keeps the short test lease, with which
        // its locks come free after close.
        try (Baton other = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            TestEngine closing = TestEngine.start(TestBatons.config(redis.server().uri()));
            Lease busy = other.lock("busy").acquire(Duration.ZERO);

            Lease lease = closing.lock("leased").acquire(Duration.ZERO);
            CountDownLatch threadHolds = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            Future<Throwable> threadHolder = threads.submit(() -> {
                DistributedLock lock = closing.lock("thread-held");
                lock.lock();
                threadHolds.countDown();
                closed.await();
                try {
                    lock.unlock();
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertThat(threadHolds.await(10, TimeUnit.SECONDS)).isTrue();

            Future<Boolean> timedWaiter = threads.submit(() -> closing.lock("busy").tryLock(Duration.ofMinutes(5)));
            Future<?> endlessWaiter = threads.submit(() -> closing.lock("busy").lock());
            CompletableFuture<Lease> asyncWaiter = closing.lock("busy").acquireAsync(Duration.ofMinutes(5));
            await().atMost(Duration.ofSeconds(10)).until(() -> closing.bookkeeping().waiters() == 3);

            closing.close();
            closed.countDown();

            assertThatThrownBy(() -> timedWaiter.get(5,
                    TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed while waiting");
            assertThatThrownBy(() -> endlessWaiter.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> asyncWaiter.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class);

            lease.lost().get(5, TimeUnit.SECONDS);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(lease::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            lease.close(); // quiet, as the contract says
            assertThat(threadHolder.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");

            // Not released, only no longer renewed: the locks come free with their lease.
            assertThat(other.lock("leased").isLocked()).isTrue();
            assertThat(other.lock("leased").tryLock(Duration.ofSeconds(10))).isTrue();
            assertThat(other.lock("thread-held").tryLock(Duration.ofSeconds(10))).isTrue();
            other.lock("leased").unlock();
            other.lock("thread-held").unlock();
            busy.release();
            assertThat(closing.bookkeeping().waiters()).isZero();
        }
    }

    @Test
    void closeWithThousandsOfWaitersOnOneLockFailsThemAll() throws Exception {
        try (Baton other = Baton.connect(TestBatons.patientConfig(redis.server().uri()))) {
            Lease busy = other.lock("crowded").acquire(Duration.ZERO);
            // A generous command timeout: thousands of first tries sent at once queue on one connection.
            TestEngine closing = TestEngine.start(BatonConfig.builder().uri(redis.server().uri())
                    .commandTimeout(Duration.ofSeconds(20)).build());
            List<CompletableFuture<Lease>> waiters = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                waiters.add(closing.lock("crowded").acquireAsync(Duration.ofMinutes(5)));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> closing.bookkeeping().waiters() == waiters.size());

            closing.close();

            for (CompletableFuture<Lease> w : waiters) {
                assertThatThrownBy(() -> w.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
            }
            assertThat(closing.bookkeeping().waiters()).isZero();
            busy.release();
        }
    }
}
