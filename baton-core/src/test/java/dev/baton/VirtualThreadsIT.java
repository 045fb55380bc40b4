package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases and thread-owned locks from virtual threads. Baton is compiled for Java 17, so virtual threads are reached
 * by reflection and this class runs on JDK 21 and later (CI's second run, on JDK 25).
 *
 * <p>Pinning: a virtual thread that blocks while it cannot leave its carrier (inside {@code synchronized} before
 * JDK 24, in native code or a class initializer on every JDK) holds that carrier, and with a few such waiters every
 * virtual thread of the application stops. {@link #blockingCallsDoNotPinCarriers()} watches the JDK's own report of
 * that, the {@code jdk.VirtualThreadPinned} JFR event with no duration threshold, while many virtual threads block
 * in Baton.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private int unguarded; // incremented only under the distributed lock

    @Test
    void leasesAcquiredOnVirtualThreadsAndReleasedOnOthers() throws Exception {
        ExecutorService virtual = virtualThreadPerTask();
        try (Baton baton = patient()) {
            List<CompletableFuture<Long>> tasks = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                tasks.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        Lease lease = baton.lock("vt").acquire(Duration.ofSeconds(60));
                        int seen = unguarded;
                        Thread.yield();
                        unguarded = seen + 1;
                        // hand the lease to another virtual thread to release
                        CompletableFuture.runAsync(lease::release, virtual).join();
                        return lease.fencingToken();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, virtual));
            }
            CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(unguarded).isEqualTo(100);
            assertThat(tasks.stream().map(CompletableFuture::join).distinct()).hasSize(100);
            assertThat(baton.lock("vt").isLocked()).isFalse();
        } finally {
            virtual.shutdownNow();
        }
    }

    @Test
    void threadOwnedLocksTellVirtualThreadsApart() throws Exception {
        ExecutorService virtual = virtualThreadPerTask();
        try (Baton baton = patient()) {
            DistributedLock lock = baton.lock("vt-owned");
            assertThat(virtual.submit(() -> lock.tryLock()).get()).isTrue();
            assertThat(virtual.submit(() -> lock.tryLock()).get()).as("another virtual thread").isFalse();
            assertThat(lock.isLocked()).isTrue();
            lock.forceUnlock();
        } finally {
            virtual.shutdownNow();
        }
    }

    /** Virtual threads that block in Baton at once: far more than the carriers (one per core). */
    private static final int BLOCKED = 64;
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** The prefix of the virtual threads that pin on purpose, to show the recording sees pins. */
    private static final String CONTROL = "pin-control-";

    /**
     * Blocking calls on virtual threads ({@code lock()} waiting for a held lock, {@code tryLock} with a timeout that
     * runs out and one that succeeds, a semaphore's {@code acquire} waiting for a permit, {@code unlock} and
     * {@code release}) leave their carriers: the JDK reports no pinned virtual thread in Baton's calls, and an
     * unrelated virtual thread keeps running while all of them wait. A virtual thread that pins on purpose (it blocks
     * in a class initializer, which pins on every JDK), before and after the calls, shows that the recording does see
     * pins, and that it has delivered every event of the calls (the stream is ordered) when the second one arrives.
     */
    @Test
    void blockingCallsDoNotPinCarriers() throws Exception {
        List<RecordedEvent> pins = new CopyOnWriteArrayList<>();
        ExecutorService virtual = virtualThreadPerTask();
        try (RecordingStream recording = new RecordingStream();
                Baton baton = patient();
                Baton other = patient()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.onEvent("jdk.VirtualThreadPinned", pins::add);
            recording.startAsync();
            pinOnPurpose(CONTROL + "before", PinsOnce::touch);
            await().atMost(BOUND).until(() -> controlPins(pins).contains(CONTROL + "before"));

            // Held elsewhere: every virtual thread below has to wait.
            Lease held = other.lock("vt-pin").acquire(BOUND);
            Lease permits = other.semaphore("vt-pin-sem", 2).acquire(2, BOUND);
            Lease timeoutHolder = other.lock("vt-pin-timeout").acquire(BOUND);
            AtomicInteger lockedInTurn = new AtomicInteger();
            AtomicInteger timedOut = new AtomicInteger();
            AtomicInteger acquiredPermits = new AtomicInteger();
            CountDownLatch calling = new CountDownLatch(BLOCKED);
            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (int i = 0; i < BLOCKED / 4; i++) {
                calls.add(CompletableFuture.runAsync(() -> {
                    DistributedLock lock = baton.lock("vt-pin");
                    calling.countDown();
                    lock.lock(); // waits until the holder lets go
                    lockedInTurn.incrementAndGet();
                    lock.unlock();
                }, virtual));
                calls.add(CompletableFuture.runAsync(() -> {
                    DistributedLock lock = baton.lock("vt-pin");
                    calling.countDown();
                    try {
                        if (lock.tryLock(Duration.ofSeconds(30))) { // waits, then succeeds
                            lockedInTurn.incrementAndGet();
                            lock.unlock();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, virtual));
                calls.add(CompletableFuture.runAsync(() -> {
                    try {
                        calling.countDown();
                        // The holder keeps the lock until every one of these has given up.
                        if (!baton.lock("vt-pin-timeout").tryLock(Duration.ofMillis(300))) {
                            timedOut.incrementAndGet();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, virtual));
                calls.add(CompletableFuture.runAsync(() -> {
                    calling.countDown();
                    try {
                        Lease permit = baton.semaphore("vt-pin-sem", 2).acquire(1, BOUND); // waits for a permit
                        acquiredPermits.incrementAndGet();
                        permit.release();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, virtual));
            }
            assertThat(calling.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // While they all wait, an unrelated virtual thread still gets a carrier, again and again.
            for (int round = 0; round < 20; round++) {
                assertThat(CompletableFuture.supplyAsync(() -> 1, virtual).get(BOUND.toSeconds(), TimeUnit.SECONDS))
                        .isEqualTo(1);
            }
            await().atMost(BOUND).until(() -> timedOut.get() == BLOCKED / 4);
            timeoutHolder.release();
            held.release();
            permits.release();
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(lockedInTurn).hasValue(BLOCKED / 2);
            assertThat(acquiredPermits).hasValue(BLOCKED / 4);

            pinOnPurpose(CONTROL + "after", PinsAgain::touch);
            await().atMost(BOUND).until(() -> controlPins(pins).contains(CONTROL + "after"));
            assertThat(pins.stream().filter(e -> !threadName(e).startsWith(CONTROL)).map(VirtualThreadsIT::describe))
                    .as("virtual threads pinned while blocking in Baton").isEmpty();
        } finally {
            virtual.shutdownNow();
        }
    }

    /**
     * A Baton whose command timeout a loaded machine's slow moments cannot reach: these tests are about which
     * thread runs what, not about timeouts, and dozens of virtual threads start at once.
     */
    private static Baton patient() {
        return Baton.connect(TestBatons.patientConfig(redis.server().uri()));
    }

    /** Runs {@code pin} on a new virtual thread of the given name and waits for it to end. */
    private static void pinOnPurpose(String name, Runnable pin) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object named = builder.getMethod("name", String.class).invoke(Thread.class.getMethod("ofVirtual").invoke(null),
                name);
        Thread thread = (Thread) builder.getMethod("start", Runnable.class).invoke(named, pin);
        thread.join(BOUND.toMillis());
        assertThat(thread.isAlive()).as(name + " ended").isFalse();
    }

    private static List<String> controlPins(List<RecordedEvent> pins) {
        return pins.stream().map(VirtualThreadsIT::threadName).filter(n -> n.startsWith(CONTROL))
                .collect(Collectors.toList());
    }

    private static String threadName(RecordedEvent pin) {
        return pin.getThread("eventThread") == null ? "" : String.valueOf(pin.getThread("eventThread").getJavaName());
    }

    private static String describe(RecordedEvent pin) {
        StringBuilder out = new StringBuilder(threadName(pin)).append(" pinned for ").append(pin.getDuration());
        if (pin.getStackTrace() != null) {
            for (RecordedFrame frame : pin.getStackTrace().getFrames()) {
                out.append("\n  at ").append(frame.getMethod().getType().getName()).append('.')
                        .append(frame.getMethod().getName()).append(':').append(frame.getLineNumber());
            }
        }
        return out.toString();
    }

    /** Parks in its class initializer, where a virtual thread is pinned on every JDK: a pin the recording must see. */
    private static final class PinsOnce {
        static {
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }

        static void touch() {
            // initializing the class is the point
        }
    }

    /** A second class for the second control pin (a class is initialized once). */
    private static final class PinsAgain {
        static {
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }

        static void touch() {
            // initializing the class is the point
        }
    }

    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
