package dev.baton.internal.engine;

import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.keys;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.internal.engine.AcquireAttempt.State;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bounded waits of the plain lock, stepped on a fake transport and a fake clock: a waiter claims precedence with its
 * first try past the fairness threshold (and tries right then, not a re-check interval later), goes on claiming with
 * every try, is woken alone by a release that names it, withdraws its claim when it gives up, and a local handoff the
 * script refuses for a foreign claimant becomes a release.
 */
class BoundedWaitTest {
    private static final String CHANNEL = keys("orders").channel();
    private static final Duration THRESHOLD = Duration.ofMillis(500);

    private SteppedEngine baton = new SteppedEngine(b -> b.fairnessThreshold(THRESHOLD));

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void aWaiterClaimsPrecedenceWithItsFirstTryPastTheThresholdAndWithEveryTryAfter() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));
        FakeTransport.Call first = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(first.args).as("no claim before the threshold: the arguments of an unclaimed try").hasSize(6);
        first.reply(held(5_000));
        FakeTransport.Call recheck = baton.redis.next(LockCalls.ACQUIRE); // the re-check after subscribing
        assertThat(recheck.args).hasSize(6);
        recheck.reply(held(5_000));

        baton.advance(THRESHOLD.minusMillis(1));
        assertThat(baton.redis.unanswered()).isEmpty();
        baton.advance(Duration.ofMillis(2));
        FakeTransport.Call claim = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(claim.args.get(5)).isEqualTo("1");
        assertThat(claim.args.get(6)).as("waited so far, in ms: at the threshold, not a re-check interval later")
                .isEqualTo("501");
        assertThat(claim.args.get(7)).as("how long the claim lasts: 3 re-check intervals of at most 1 s")
                .isEqualTo("3000");
        assertThat(claim.args.subList(8, 10)).as("where the claimant's grant announces the free claim")
                .containsExactly(CHANNEL, "0");
        claim.reply(held(1_000)); // the script asks a claimant back within a third of the claim

        baton.advance(Duration.ofMillis(999));
        assertThat(baton.redis.unanswered()).isEmpty();
        baton.advance(Duration.ofMillis(1));
        FakeTransport.Call renewal = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(renewal.args.get(6)).as("the next try renews the claim").isEqualTo("1501");
        renewal.reply(granted(4));
        assertThat(attempt.result.join().token).isEqualTo(4);
    }

    @Test
    void aWaiterQueuedBehindALocalHolderTriesWhenItCrossesTheThreshold() {
        Lease holder = acquire();
        AcquireAttempt queued = baton.attempt("orders", Duration.ofSeconds(10));
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(baton.redis.unanswered()).as("no try behind a local holder").isEmpty();

        baton.advance(THRESHOLD);
        assertThat(baton.redis.unanswered()).isEmpty();
        baton.advance(Duration.ofMillis(1));
        FakeTransport.Call claim = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(claim.args.get(6)).as("a claim, even against its own Baton's holder").isEqualTo("501");
        claim.reply(held(1_000));
        assertThat(queued.state()).isEqualTo(State.SLEEPING);
        assertThat(holder.isValid()).isTrue();
    }

    @Test
    void aReleaseThatNamesAClaimantWakesItAloneEvenBehindAnotherLocalWaiter() {
        AcquireAttempt ahead = baton.attempt("orders", Duration.ofSeconds(10));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        AcquireAttempt claimant = baton.attempt("orders", Duration.ofSeconds(10));
        assertThat(claimant.state()).as("behind the sleeping local waiter").isEqualTo(State.QUEUED);

        baton.redis.publish(CHANNEL, "next " + claimant.request().owner() + "x");
        baton.redis.publish(CHANNEL, "next someone-else");
        assertThat(ahead.state()).as("messages for other owners wake nobody here").isEqualTo(State.SLEEPING);
        assertThat(claimant.state()).isEqualTo(State.QUEUED);
        assertThat(baton.redis.unanswered()).isEmpty();

        baton.redis.publish(CHANNEL, "next " + claimant.request().owner());
        assertThat(ahead.state()).isEqualTo(State.SLEEPING);
        assertThat(claimant.state()).isEqualTo(State.WOKEN);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(9));
        assertThat(claimant.result.join().token).isEqualTo(9);

        baton.redis.publish(CHANNEL, "released");
        assertThat(ahead.state()).as("a plain release still wakes the waiter").isEqualTo(State.WOKEN);
    }

    @Test
    void aWaiterThatGivesUpPastTheThresholdWithdrawsItsClaim() {
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(60_000));
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(2));

        baton.advance(Duration.ofSeconds(2));

        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        FakeTransport.Call abandon = baton.redis.next(LockCalls.ABANDON);
        assertThat(abandon.keys).containsExactly(keys("orders").lock());
        assertThat(abandon.args).as("owner, channel, not sharded, and no hold before the wait")
                .containsExactly(attempt.request().owner(), CHANNEL, "0", "0");
        abandon.reply(List.of(1L, 0L)); // the claim withdrawn; no orphaned grant of this owner
    }

    @Test
    void aWaiterThatGivesUpBeforeTheThresholdSendsNothingMore() {
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(60_000));
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofMillis(300));

        baton.advance(Duration.ofMillis(300));

        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        assertThat(baton.redis.calls(LockCalls.ABANDON)).isEmpty();
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).allSatisfy(call -> assertThat(call.args).hasSize(6));
    }

    @Test
    void aZeroThresholdNeverClaims() {
        baton.close();
        baton = new SteppedEngine(b -> b.fairnessThreshold(Duration.ZERO));
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(60_000));
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(5));

        baton.advance(Duration.ofMillis(4_999));
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).as("first try, re-check after subscribing, one a second")
                .hasSize(6).allSatisfy(call -> assertThat(call.args).hasSize(6));
        baton.advance(Duration.ofMillis(1));
        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        assertThat(baton.redis.calls(LockCalls.ABANDON)).isEmpty();
    }

    @Test
    void aLocalHandoffRefusedForAForeignClaimantIsAReleaseAndTheLocalWaiterTries() {
        Lease first = acquire();
        CompletableFuture<Lease> second = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        baton.redis.answer(LockCalls.HANDOFF, call -> 0L); // the script released the lock to a claimant

        first.release();

        FakeTransport.Call handoff = baton.redis.calls(LockCalls.HANDOFF).get(0);
        assertThat(handoff.args.subList(6, 8)).as("where the script announces the release").containsExactly(CHANNEL,
                "0");
        assertThat(first.isValid()).as("released, not lost").isFalse();
        assertThat(first.lost()).isNotDone();
        assertThat(baton.redis.calls(LockCalls.RELEASE)).as("the handoff script released it").isEmpty();
        assertThat(second).isNotDone();
        baton.redis.next(LockCalls.ACQUIRE).reply(held(3_000)); // the claimant has it now
        assertThat(second).isNotDone();
        assertThat(baton.engine.bookkeeping().localHolders()).isZero();
    }

    private Lease acquire() {
        CompletableFuture<Lease> lease = baton.primitives.lock("orders").acquireAsync(Duration.ZERO);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(1));
        return lease.join();
    }
}
