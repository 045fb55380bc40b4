package dev.baton.internal.engine;

import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.keys;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.BatonListener;
import dev.baton.Lease;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import dev.baton.support.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Renewal on a fake clock: rounds every third of the 30 s watchdog lease, batches, a lease counted from when its
 * renewal was sent, and a hold marked lost the moment its local estimate runs out or Redis says it is not ours.
 */
class WatchdogTest {
    private final List<BatonListener.RenewalFailed> renewalsFailed = new CopyOnWriteArrayList<>();
    private final List<BatonListener.LeaseLost> leasesLost = new CopyOnWriteArrayList<>();
    private final SteppedEngine baton = SteppedEngine.withListener(new BatonListener() {
        @Override
        public void renewalFailed(RenewalFailed event) {
            renewalsFailed.add(event);
        }

        @Override
        public void leaseLost(LeaseLost event) {
            leasesLost.add(event);
        }
    });

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void aHoldIsRenewedEveryThirdOfTheLeaseForAsLongAsItIsHeld() {
        Lease lease = acquire("orders", 1);
        baton.redis.answer(LockCalls.RENEW, WatchdogTest::allRenewed);

        baton.advance(Duration.ofMillis(9_999));
        assertThat(baton.redis.calls(LockCalls.RENEW)).isEmpty();
        baton.advance(Duration.ofMillis(1));
        FakeTransport.Call renew = baton.redis.calls(LockCalls.RENEW).get(0);
        assertThat(renew.keys).containsExactly(keys("orders").lock());
        assertThat(renew.args).containsExactly("30000", baton.redis.calls(LockCalls.ACQUIRE).get(0).args.get(0), "1");

        baton.advance(Duration.ofSeconds(90)); // three leases long
        assertThat(baton.redis.calls(LockCalls.RENEW)).hasSize(10);
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.lost()).isNotDone();
    }

    @Test
    void holdsAreRenewedInBatchesOfAtMost256() {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            leases.add(acquire("lock-" + i, i + 1));
        }
        baton.redis.answer(LockCalls.RENEW, WatchdogTest::allRenewed);

        baton.advance(Duration.ofSeconds(10));

        List<FakeTransport.Call> renewals = baton.redis.calls(LockCalls.RENEW);
        assertThat(renewals).extracting(c -> c.keys.size()).containsExactlyInAnyOrder(256, 44);
        Set<String> renewed = new HashSet<>();
        renewals.forEach(c -> renewed.addAll(c.keys));
        assertThat(renewed).hasSize(300);
        assertThat(leases).allMatch(Lease::isValid);
    }

    @Test
    void failedRenewalsAreReportedAndTheHoldIsLostTheMomentItsLeaseRunsOutLocally() {
        baton.advance(Duration.ofSeconds(5)); // between two rounds: the loss is not on a round
        Lease lease = acquire("orders", 1);
        CompletableFuture<Void> lost = lease.lost();
        baton.redis.outage(unreachable());

        try (LogCapture log = LogCapture.start()) {
            baton.advance(Duration.ofMillis(29_999)); // rounds at 10, 20 and 30 s fail
            assertThat(log.lines(Level.WARN, "could not renew 1 lock")).hasSize(3);
            assertThat(lease.isValid()).isTrue();

            baton.advance(Duration.ofMillis(1)); // 35 s: 30 s after the acquisition was sent
            assertThat(lease.isValid()).isFalse();
            assertThat(lost).isDone();
            assertThat(log.lines(Level.WARN, "lost lock 'orders'")).singleElement().asString()
                    .contains("could not be renewed before it ran out");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> renewalsFailed.size() == 3 && leasesLost.size() == 1);
        assertThat(renewalsFailed).allMatch(e -> e.holds() == 1 && e.reason().contains("could not be reached"));
        assertThat(leasesLost.get(0).fencingToken()).isEqualTo(1);
        assertThat(baton.engine.bookkeeping().renewedHolds()).isZero();
    }

    @Test
    void aRenewalCountsTheLeaseFromWhenItWasSentNotWhenItWasAnswered() {
        Lease lease = acquire("orders", 1);
        baton.advance(Duration.ofSeconds(10));
        FakeTransport.Call renew = baton.redis.next(LockCalls.RENEW);
        baton.advance(Duration.ofSeconds(2));
        renew.reply(List.of(1L)); // sent at 10 s: the lease now runs to 40 s
        baton.redis.outage(unreachable());

        baton.advance(Duration.ofMillis(27_999));
        assertThat(lease.isValid()).isTrue();
        baton.advance(Duration.ofMillis(1));
        assertThat(lease.isValid()).isFalse();
        assertThat(baton.ticker.elapsed()).isEqualTo(Duration.ofSeconds(40));
    }

    @Test
    void aRenewalThatFindsTheLockNoLongerOursMarksTheHoldLostAtOnce() {
        Lease lease = acquire("orders", 1);
        CompletableFuture<Void> lost = lease.lost();
        baton.advance(Duration.ofSeconds(10));

        baton.redis.next(LockCalls.RENEW).reply(List.of(0L));

        assertThat(lease.isValid()).isFalse();
        assertThat(lost).isDone();
        await().atMost(Duration.ofSeconds(10)).until(() -> leasesLost.size() == 1);
        assertThat(leasesLost.get(0).reason()).contains("owned by someone else at renewal");
        baton.advance(Duration.ofSeconds(30));
        assertThat(baton.redis.calls(LockCalls.RENEW)).as("a lost hold is not renewed again").hasSize(1);
    }

    @Test
    void aReleasedHoldIsNeverRenewedAgain() {
        Lease lease = acquire("orders", 1);
        baton.redis.answer(LockCalls.RELEASE, call -> 0L);

        lease.release();
        baton.advance(Duration.ofSeconds(60));

        assertThat(baton.redis.calls(LockCalls.RENEW)).isEmpty();
        assertThat(baton.engine.bookkeeping().renewedHolds()).isZero();
    }

    @Test
    void aLeaseThatRunsOutWhileThisProcessIsPausedIsLostAsAPauseNotAsRedisSilence() {
        Lease lease = acquire("orders", 1);
        baton.redis.answer(LockCalls.RENEW, WatchdogTest::allRenewed);
        baton.advance(Duration.ofSeconds(10)); // one renewal, answered
        assertThat(baton.redis.calls(LockCalls.RENEW)).hasSize(1);

        try (LogCapture log = LogCapture.start()) {
            baton.scheduler.pause(Duration.ofSeconds(40)); // past the 30 s lease, with no round run meanwhile
            assertThat(lease.isValid()).isFalse();
            assertThat(log.lines(Level.WARN, "lost lock 'orders'")).singleElement().asString()
                    .contains("was paused").doesNotContain("did not answer");
        }
        // The late round found the hold lost before it sent anything: no renewal of a lease that ran out.
        assertThat(baton.redis.calls(LockCalls.RENEW)).hasSize(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> leasesLost.size() == 1);
        assertThat(renewalsFailed).isEmpty();
    }

    /** A watchdog lease, granted at once with {@code token}. */
    private Lease acquire(String name, long token) {
        CompletableFuture<Lease> lease = baton.primitives.lock(name).acquireAsync(Duration.ZERO);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(token));
        return lease.join();
    }

    private static Object allRenewed(FakeTransport.Call renew) {
        return Collections.nCopies(renew.keys.size(), 1L);
    }
}
