package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The listener hears exactly what happened, after known traffic; it runs on Baton's event thread, never in the
 * caller's path; a listener that falls behind costs dropped events (counted and logged), never a slower Baton.
 */
class EventsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Records every event as one line, with the thread it was delivered on. */
    static class Recorder implements BatonListener {
        final List<Object> events = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        private void record(Object event) {
            events.add(event);
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void lockWaiting(LockWaiting e) {
            record(e);
        }

        @Override
        public void lockAcquired(LockAcquired e) {
            record(e);
        }

        @Override
        public void lockReleased(LockReleased e) {
            record(e);
        }

        @Override
        public void lockTimedOut(LockTimedOut e) {
            record(e);
        }

        @Override
        public void lockHandedOver(LockHandedOver e) {
            record(e);
        }

        @Override
        public void renewalFailed(RenewalFailed e) {
            record(e);
        }

        @Override
        public void leaseLost(LeaseLost e) {
            record(e);
        }

        @Override
        public void rateLimitDecided(RateLimitDecided e) {
            record(e);
        }

        <T> List<T> of(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private static BatonConfig.Builder config(BatonListener listener) {
        return BatonConfig.builder().uri(redis.server().uri()).watchdogLease(TestBatons.LEASE)
                .commandTimeout(Duration.ofSeconds(2)).recheckInterval(TestBatons.RECHECK).listener(listener);
    }

    @Test
    void knownTrafficGivesExactlyItsEvents() throws Exception {
        Recorder recorder = new Recorder();
        try (Baton baton = Baton.connect(config(recorder).build())) {
            DistributedLock lock = baton.lock("counted");
            for (int i = 0; i < 3; i++) {
                lock.lock();
                lock.unlock();
            }
            lock.lock();
            lock.lock(); // a re-entry
            long token = lock.fencingToken();
            lock.unlock();
            lock.unlock();

            lock.lock(Duration.ofMillis(200)); // a fixed lease nobody renews
            await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of(BatonListener.LeaseLost.class).isEmpty());

            RateLimiter limiter = baton.rateLimiter("counted", RateLimit.of(3, Duration.ofHours(1)));
            for (int i = 0; i < 5; i++) {
                limiter.tryAcquire();
            }

            await().atMost(Duration.ofSeconds(10)).until(() ->
                    recorder.of(BatonListener.RateLimitDecided.class).size() == 5);
            assertThat(recorder.of(BatonListener.LockAcquired.class)).hasSize(6)
                    .allSatisfy(e -> assertThat(e.lock()).isEqualTo("counted"))
                    .extracting(BatonListener.LockAcquired::holdCount).containsExactly(1, 1, 1, 1, 2, 1);
            assertThat(recorder.of(BatonListener.LockReleased.class)).as("re-entries that only count down are not "
                    + "releases").hasSize(4).anySatisfy(e -> assertThat(e.fencingToken()).isEqualTo(token));
            assertThat(recorder.of(BatonListener.LeaseLost.class)).singleElement()
                    .satisfies(e -> assertThat(e.reason()).contains("lease ran out"));
            assertThat(recorder.of(BatonListener.RateLimitDecided.class))
                    .extracting(e -> e.decision().allowed()).containsExactly(true, true, true, false, false);
            assertThat(recorder.of(BatonListener.LockWaiting.class)).isEmpty();
            assertThat(recorder.threads).as("delivered on Baton's event thread").allMatch(t -> t.endsWith("-events"));
        }
    }

    @Test
    void waitsHandoffsAndFailedRenewalsAreHeardToo() throws Exception {
        Recorder recorder = new Recorder();
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (Baton baton = Baton.connect(config(recorder).build())) {
            DistributedLock lock = baton.lock("contended");
            lock.lock();
            Future<Long> waiter = threads.submit(() -> {
                DistributedLock same = baton.lock("contended");
                same.lock();
                long token = same.fencingToken();
                same.unlock();
                return token;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of(BatonListener.LockWaiting.class).isEmpty());
            long first = lock.fencingToken();
            lock.unlock(); // a thread of this Baton waits: the lock goes straight to it
            long second = waiter.get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of(BatonListener.LockHandedOver.class)
                    .isEmpty());
            assertThat(recorder.of(BatonListener.LockHandedOver.class)).singleElement().satisfies(e -> {
                assertThat(e).isEqualTo(new BatonListener.LockHandedOver("contended", first, second, LockType.LOCK,
                        e.held()));
                assertThat(e.held()).as("the first hold lasted until the waiter was seen").isPositive();
            });
            assertThat(recorder.of(BatonListener.LockAcquired.class)).filteredOn(e -> e.fencingToken() == second)
                    .singleElement().satisfies(e -> assertThat(e.waited()).isPositive());

        }
        // A command timeout shorter than the lease, so that renewal rounds fail before the lease runs out.
        try (Baton baton = Baton.connect(config(recorder).commandTimeout(TestBatons.TIMEOUT).build())) {
            baton.lock("renewed").lock();
            redis.server().pause(); // renewals cannot reach Redis: the listener hears of each failed round
            try {
                await().atMost(Duration.ofSeconds(15)).until(() -> !recorder.of(BatonListener.LeaseLost.class)
                        .isEmpty() && !recorder.of(BatonListener.RenewalFailed.class).isEmpty());
            } finally {
                redis.server().resume();
            }
            assertThat(recorder.of(BatonListener.RenewalFailed.class)).isNotEmpty()
                    .allSatisfy(e -> assertThat(e.holds()).isEqualTo(1));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void eventsNameTheKindOfLockHowLongAHoldLastedWaitsThatTimedOutAndPeeks() throws Exception {
        Recorder recorder = new Recorder();
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (Baton baton = Baton.connect(config(recorder).build())) {
            DistributedReadWriteLock rw = baton.readWriteLock("typed");
            rw.writeLock().lock();
            long writeStart = System.nanoTime();
            Future<Boolean> tries = threads.submit(() -> {
                DistributedLock read = baton.readWriteLock("typed").readLock();
                boolean once = read.tryLock();                              // a single try: not acquired
                boolean waited = read.tryLock(Duration.ofMillis(300));      // a wait that runs out
                return once || waited;
            });
            assertThat(tries.get(20, TimeUnit.SECONDS)).isFalse();
            rw.writeLock().unlock();
            Duration writeHeldAtLeast = Duration.ofNanos(System.nanoTime() - writeStart);
            Lease fair = baton.fairLock("typed").acquire(Duration.ZERO);
            fair.release();
            RateLimiter limiter = baton.rateLimiter("typed", RateLimit.of(1, Duration.ofHours(1)));
            limiter.peek();
            limiter.tryAcquire();

            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.of(BatonListener.LockTimedOut.class).size() == 2
                    && recorder.of(BatonListener.LockReleased.class).size() == 2);
            assertThat(recorder.of(BatonListener.LockTimedOut.class)).allSatisfy(e -> {
                assertThat(e.lock()).isEqualTo("typed");
                assertThat(e.type()).isEqualTo(LockType.READ);
            }).extracting(e -> e.waited().compareTo(Duration.ofMillis(300)) >= 0).containsExactly(false, true);
            assertThat(recorder.of(BatonListener.LockWaiting.class)).singleElement()
                    .satisfies(e -> assertThat(e.type()).isEqualTo(LockType.READ));
            assertThat(recorder.of(BatonListener.LockAcquired.class)).extracting(BatonListener.LockAcquired::type)
                    .containsExactly(LockType.WRITE, LockType.FAIR);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    recorder.of(BatonListener.RateLimitDecided.class).size() == 2);
            assertThat(recorder.of(BatonListener.RateLimitDecided.class)).as("a peek charges nothing and says so")
                    .extracting(BatonListener.RateLimitDecided::peek).containsExactly(true, false);
            List<BatonListener.LockReleased> released = recorder.of(BatonListener.LockReleased.class);
            assertThat(released).extracting(BatonListener.LockReleased::type)
                    .containsExactly(LockType.WRITE, LockType.FAIR);
            assertThat(released.get(0).held()).as("the write lock was held through both tries")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThanOrEqualTo(writeHeldAtLeast.plusSeconds(1));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aSlowListenerNeverSlowsBatonAndWhatItCannotTakeIsDroppedAndCounted() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        Recorder recorder = new Recorder() {
            @Override
            public void rateLimitDecided(RateLimitDecided e) {
                try {
                    gate.await(); // a listener stuck on something of its own
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                super.rateLimitDecided(e);
            }
        };
        try (Baton baton = Baton.connect(config(recorder).build()); LogCapture log = LogCapture.start()) {
            RateLimiter limiter = baton.rateLimiter("flooded", RateLimit.of(1, Duration.ofHours(1)));
            int decisions = BatonListener.MAX_PENDING + 2_000; // refusals repeated locally: fast
            for (int i = 0; i < decisions; i++) {
                limiter.tryAcquire();
            }
            DistributedLock lock = baton.lock("unhindered");
            assertThat(lock.tryLock()).as("Baton goes on while its listener is stuck").isTrue();
            lock.unlock();
            gate.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> !log.lines(Level.WARN, "events were dropped").isEmpty());
            int delivered = recorder.of(BatonListener.RateLimitDecided.class).size();
            assertThat(delivered).isBetween(BatonListener.MAX_PENDING - 2, BatonListener.MAX_PENDING + 1);
            String warning = log.lines(Level.WARN, "events were dropped").get(0);
            long dropped = Long.parseLong(warning.replaceAll(".*: (\\d+) events were dropped.*", "$1"));
            assertThat(dropped + delivered).as(warning).isGreaterThanOrEqualTo(decisions);
        }
    }

    @Test
    void aThrowingListenerKeepsItsEventsAndWhatCloseCausesIsStillDelivered() throws Exception {
        Recorder recorder = new Recorder() {
            @Override
            public void lockAcquired(LockAcquired e) {
                super.lockAcquired(e);
                throw new IllegalStateException("a listener's own bug");
            }
        };
        try (LogCapture log = LogCapture.start()) {
            Baton baton = Baton.connect(config(recorder).build());
            DistributedLock lock = baton.lock("kept");
            lock.lock();
            lock.unlock();
            lock.lock();
            baton.close(); // the hold still held is reported lost, and that event arrives before close returns
            assertThat(recorder.of(BatonListener.LockAcquired.class)).hasSize(2);
            assertThat(recorder.of(BatonListener.LockReleased.class)).hasSize(1);
            assertThat(recorder.of(BatonListener.LeaseLost.class)).singleElement()
                    .satisfies(e -> assertThat(e.reason()).contains("closed"));
            assertThat(log.lines(Level.WARN, "threw; it keeps receiving events")).hasSize(2);
        }
    }

    @Test
    void theApplicationsClientResourcesAreUsedAndLeftRunning() throws Exception {
        ClientResources resources = ClientResources.create();
        try {
            try (Baton baton = Baton.connect(config(new Recorder()).clientResources(resources).build())) {
                assertThat(baton.lock("shared-resources").tryLock()).isTrue();
                baton.lock("shared-resources").unlock();
                assertThat(baton.config().toString()).contains("clientResources=the application's");
            }
            assertThat(resources.eventExecutorGroup().isShuttingDown()).as("Baton leaves them to the application")
                    .isFalse();
            try (Baton again = Baton.connect(config(new Recorder()).clientResources(resources).build())) {
                assertThat(again.rateLimiter("r", RateLimit.of(1, Duration.ofSeconds(1))).tryAcquire().allowed())
                        .isTrue();
            }
        } finally {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }
}
