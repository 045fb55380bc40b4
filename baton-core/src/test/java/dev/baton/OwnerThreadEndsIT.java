package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A thread that ends while it holds a thread-owned lock can never unlock it: the watchdog must not renew such a lock
 * for as long as the process lives. Baton releases it at its next renewal round (a third of the watchdog lease), says
 * so in a warning naming the lock and the thread, and sends a {@code LeaseLost} event. A {@link Lease} belongs to no
 * thread and is renewed whoever asked for it.
 */
class OwnerThreadEndsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final List<BatonListener.LeaseLost> lost = new CopyOnWriteArrayList<>();
    private Baton baton;
    private Baton other;

    @BeforeEach
    void connect() {
        // A watchdog lease of 1.5 s, renewed every 500 ms; a patient command timeout, so a slow moment fails nothing.
        baton = Baton.connect(BatonConfig.builder().uri(redis.server().uri()).watchdogLease(TestBatons.LEASE)
                .commandTimeout(Duration.ofSeconds(5)).recheckInterval(TestBatons.RECHECK)
                .listener(new BatonListener() {
                    @Override
                    public void leaseLost(LeaseLost event) {
                        lost.add(event);
                    }
                }).build());
        other = Baton.connect(TestBatons.patientConfig(redis.server().uri()));
    }

    @AfterEach
    void close() {
        baton.close();
        other.close();
    }

    private static void runToTheEnd(String threadName, Runnable body) throws InterruptedException {
        Thread t = new Thread(body, threadName);
        t.start();
        t.join(30_000);
        assertThat(t.isAlive()).isFalse();
    }

    @Test
    void aLockWhoseThreadEndedIsReleasedAndItsHolderTold() throws Exception {
        try (LogCapture log = LogCapture.start()) {
            AtomicReference<Long> token = new AtomicReference<>();
            runToTheEnd("forgetful-worker", () -> {
                DistributedLock lock = baton.lock("report");
                lock.lock();
                lock.lock(); // held twice: the release must end the whole hold
                token.set(lock.fencingToken());
            });

            DistributedLock theirs = other.lock("report");
            assertThat(theirs.tryLock(Duration.ofSeconds(20))).as("another process gets the lock").isTrue();
            theirs.unlock();

            await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
            assertThat(lost.get(0).lock()).isEqualTo("report");
            assertThat(lost.get(0).fencingToken()).isEqualTo(token.get());
            assertThat(lost.get(0).reason()).contains("forgetful-worker").contains("ended without unlocking");
            assertThat(log.lines(Level.WARN, "'report'")).anySatisfy(line -> assertThat(line)
                    .contains("forgetful-worker"));
            assertThat(baton.heldLocks()).isEmpty();
        }
    }

    @Test
    void aLeaseOutlivesTheThreadThatAskedForIt() throws Exception {
        AtomicReference<Lease> lease = new AtomicReference<>();
        runToTheEnd("lease-requester", () -> {
            try {
                lease.set(baton.lock("handed-on").acquire(Duration.ofSeconds(5)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // Three leases later it is still held and valid: the watchdog renews it whoever asked.
        await().during(TestBatons.LEASE.multipliedBy(3)).atMost(TestBatons.LEASE.multipliedBy(6))
                .until(() -> lease.get().isValid() && other.lock("handed-on").isLocked());
        assertThat(lost).isEmpty();
        lease.get().release();
        assertThat(other.lock("handed-on").isLocked()).isFalse();
    }
}
