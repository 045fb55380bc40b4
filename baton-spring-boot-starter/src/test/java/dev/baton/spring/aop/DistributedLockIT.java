package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.spring.LockContext;
import dev.baton.spring.LockNotAcquiredException;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Every attribute of {@code @DistributedLock} on real Redis, in two application contexts on the same Redis (two
 * instances of one service): keys, kinds, waits, leases, the watchdog, the minimum hold time, THROW and SKIP, fencing
 * tokens and nesting.
 */
class DistributedLockIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ConfigurableApplicationContext first;
    private static ConfigurableApplicationContext second;
    private static LockedService one;
    private static LockedService two;

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<CountDownLatch> releases = new ArrayList<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(TestBatonConfiguration.class)
    static class LockApp {
        @Bean
        NestedService nestedService() {
            return new NestedService();
        }

        @Bean
        LockedService lockedService(NestedService nested) {
            return new LockedService(nested);
        }

        @Bean
        LockKeys lockKeys() {
            return new LockKeys();
        }
    }

    @BeforeAll
    static void start() {
        // A short watchdog lease, so that the watchdog test shows renewals past several leases.
        first = TestApps.start(LockApp.class, redis.server(), "test.watchdog-lease=1s");
        second = TestApps.start(LockApp.class, redis.server(), "test.watchdog-lease=1s");
        one = first.getBean(LockedService.class);
        two = second.getBean(LockedService.class);
    }

    @AfterAll
    static void stop() {
        second.close();
        first.close();
    }

    @AfterEach
    void releaseBlockedMethods() {
        releases.forEach(CountDownLatch::countDown);
        threads.shutdownNow();
    }

    /** Runs a blocking method on another thread and returns once it is inside (holding its lock). */
    private <T> Future<T> inside(Blocking<T> method) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        releases.add(release);
        Future<T> result = threads.submit(() -> method.run(entered, release));
        assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return result;
    }

    private void releaseAll() {
        releases.forEach(CountDownLatch::countDown);
    }

    @FunctionalInterface
    interface Blocking<T> {
        T run(CountDownLatch entered, CountDownLatch release) throws Exception;
    }

    private static Baton baton(ConfigurableApplicationContext context) {
        return context.getBean(Baton.class);
    }

    // ---- keys

    @Test
    void keysAreSpelOverArgumentNamesIndexesBeansAndTheTarget() {
        assertThat(one.byName("42")).isEqualTo("order:42");
        assertThat(one.byIndex("x", 7)).isEqualTo("p:x:7");
        assertThat(one.byA("x", "y")).isEqualTo("a:y");
        assertThat(one.byBean("9")).isEqualTo("bean:9");
        assertThat(one.byTarget("9")).isEqualTo("tagged:9");
        assertThat(LockContext.currentLease()).isEmpty();
    }

    @Test
    void aKeyThatIsNullOrBlankIsRefusedNamingTheMethod() {
        assertThatThrownBy(() -> one.raw(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LockedService.raw(String)").hasMessageContaining("null");
        assertThatThrownBy(() -> one.raw(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LockedService.raw(String)").hasMessageContaining("blank");
    }

    // ---- kinds

    @Test
    void aMutexExcludesAnotherThreadAndAnotherInstanceUntilReleased() throws Exception {
        Future<Long> holder = inside((e, r) -> one.holdMutex("m", e, r));

        assertThatThrownBy(() -> one.tryMutex("m")).isInstanceOf(LockNotAcquiredException.class);
        assertThatThrownBy(() -> two.tryMutex("m")).isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("'m'").hasMessageContaining("PT0S");
        Future<Long> waiter = threads.submit(() -> two.longWait("m"));
        releaseAll();

        long held = holder.get(30, TimeUnit.SECONDS);
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(held);
        assertThat(one.tryMutex("m")).isGreaterThan(held);
    }

    @Test
    void aFairLockExcludesAnotherInstance() throws Exception {
        Future<Long> holder = inside((e, r) -> one.holdFair("f", e, r));

        assertThatThrownBy(() -> two.tryFair("f")).isInstanceOf(LockNotAcquiredException.class);
        releaseAll();
        long held = holder.get(30, TimeUnit.SECONDS);

        assertThat(two.tryFair("f")).isGreaterThan(held);
    }

    @Test
    void readersShareAndAWriterExcludesEveryone() throws Exception {
        Future<Long> reader = inside((e, r) -> one.holdRead("rw", e, r));
        assertThat(two.tryRead("rw")).isPositive();
        assertThatThrownBy(() -> two.tryWrite("rw")).isInstanceOf(LockNotAcquiredException.class);
        releaseAll();
        reader.get(30, TimeUnit.SECONDS);

        Future<Long> writer = inside((e, r) -> one.holdWrite("rw", e, r));
        assertThatThrownBy(() -> two.tryRead("rw")).isInstanceOf(LockNotAcquiredException.class);
        assertThatThrownBy(() -> two.tryWrite("rw")).isInstanceOf(LockNotAcquiredException.class);
        assertThatThrownBy(() -> one.tryWrite("rw")).isInstanceOf(LockNotAcquiredException.class);
        releaseAll();
        writer.get(30, TimeUnit.SECONDS);
        assertThat(two.tryWrite("rw")).isPositive();
    }

    // ---- waits and leases

    @Test
    void aWaitRunsOutWithAnExceptionNamingTheLockAndTheWait() throws Exception {
        inside((e, r) -> one.holdMutex("w", e, r));

        long start = System.nanoTime();
        assertThatThrownBy(() -> two.shortWait("w")).isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("lock 'w'").hasMessageContaining("PT0.3S")
                .hasMessageContaining("LockedService.shortWait(String)")
                .satisfies(ex -> assertThat(((LockNotAcquiredException) ex).lockName()).isEqualTo("w"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void aFixedLeaseExpiresWhileTheMethodStillRuns() throws Exception {
        Future<Boolean> holder = inside((e, r) -> one.holdWithLease("lease", e, r));

        await().atMost(PATIENCE).until(() -> !baton(second).lock("lease").isLocked());
        Optional<Lease> taken = baton(second).lock("lease").tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
        assertThat(taken).isPresent();
        releaseAll();

        assertThat(holder.get(30, TimeUnit.SECONDS)).as("the method saw its lease lapse").isFalse();
        taken.get().release();
    }

    @Test
    void theWatchdogKeepsTheLockPastItsLeaseWhileTheMethodRuns() throws Exception {
        Future<Long> holder = inside((e, r) -> one.holdMutex("dog", e, r));

        // The watchdog lease is 1 s: held for 4 s means renewed several times.
        await().during(Duration.ofSeconds(4)).atMost(PATIENCE)
                .until(() -> baton(second).lock("dog").isLocked());
        assertThatThrownBy(() -> two.tryMutex("dog")).isInstanceOf(LockNotAcquiredException.class);
        releaseAll();
        holder.get(30, TimeUnit.SECONDS);
        assertThat(baton(second).lock("dog").isLocked()).isFalse();
    }

    @Test
    void aMinimumHoldTimeKeepsOtherInstancesOutUntilItPassed() {
        long start = System.nanoTime();
        long token = one.quick("job");
        long returned = System.nanoTime();

        assertThat(LockContext.currentLease()).isEmpty();
        assertThatThrownBy(() -> two.quick("job")).isInstanceOf(LockNotAcquiredException.class);
        AtomicReference<Long> next = new AtomicReference<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(20)).ignoreException(LockNotAcquiredException.class)
                .until(() -> {
                    next.set(two.quick("job"));
                    return true;
                });
        Duration held = Duration.ofNanos(System.nanoTime() - start);
        assertThat(held).isGreaterThanOrEqualTo(Duration.ofMillis(1995));
        assertThat(Duration.ofNanos(returned - start)).as("the method itself returned at once")
                .isLessThan(Duration.ofMillis(1900));
        assertThat(next.get()).isGreaterThan(token);
    }

    // ---- when not acquired

    @Test
    void throwOrSkipWhenTheLockIsBusy() throws Exception {
        Lease busy = baton(second).lock("busy").acquire(Duration.ZERO);
        try {
            assertThatThrownBy(one::throwing).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("lock 'busy' was not acquired within PT0S");
            assertThat(one.skipWithResult("7")).isEqualTo("skipped:7");
            List<String> ran = new ArrayList<>();
            one.skipVoid(ran);
            assertThat(ran).isEmpty();
            assertThat(one.skipInt()).isZero();
            assertThat(one.skipLong()).isZero();
            assertThat(one.skipDouble()).isZero();
            assertThat(one.skipBoolean()).isFalse();
            assertThat(one.skipString()).isNull();
            assertThat(one.skipOptional()).isEmpty();
            assertThat(one.skipList()).isEmpty();
            assertThat(one.skipSet()).isEmpty();
            assertThat(one.skipMap()).isEmpty();
            assertThat(one.skipCollection()).isEmpty();
            assertThat(one.skipStream()).isEmpty();
            assertThat(one.skipArray()).isEmpty();
        } finally {
            busy.release();
        }
        assertThat(one.skipWithResult("7")).isEqualTo("ran");
        assertThat(one.skipInt()).isEqualTo(7);
        assertThat(one.skipMap()).isEqualTo(Map.of("ran", "ran"));
    }

    @Test
    void anInterruptedWaitRestoresTheFlagAndThrows() throws Exception {
        Lease busy = baton(second).lock("int").acquire(Duration.ZERO);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flag = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try {
                one.longWait("int");
            } catch (Throwable t) {
                failure.set(t);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        await().atMost(PATIENCE).until(() -> waiter.getState() == Thread.State.WAITING
                || waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        waiter.join(PATIENCE.toMillis());

        assertThat(failure.get()).isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("interrupted");
        assertThat(flag).isTrue();
        busy.release();
    }

    // ---- tokens and nesting

    @Test
    void fencingTokensAreVisibleAndStrictlyIncreaseAcrossCallsAndInstances() {
        long a = one.token();
        long b = two.token();
        long c = one.token();
        assertThat(a).isPositive();
        assertThat(b).isGreaterThan(a);
        assertThat(c).isGreaterThan(b);
        assertThatThrownBy(LockContext::currentFencingToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nestedMethodsSeeTheInnermostLockAndTheSameLockIsReentered() {
        List<String> seen = one.outer();

        assertThat(seen.get(0)).isEqualTo("outer");
        assertThat(seen.get(1)).isEqualTo("inner");
        assertThat(seen.get(2)).isEqualTo("outer#true");
        assertThat(seen.get(3)).startsWith("outer#");
        assertThat(LockContext.currentLease()).isEmpty();
        assertThat(baton(first).lock("outer").isLocked()).isFalse();
        assertThat(baton(first).lock("inner").isLocked()).isFalse();
    }
}
