package dev.baton.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.engine.AcquireAttempt.State;
import dev.baton.internal.engine.AcquireAttempt;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fair lock's waits on the engine, stepped reply by reply on a fake transport: a handoff named in the release
 * message completes the wait without asking Redis, a message naming someone else moves nobody, a handoff that crosses
 * a try in flight is claimed by the next try, a stale one is ignored, and a wait that gives up leaves the queue.
 */
class FairLockAttemptTest {
    private static final LockKeys KEYS = FairLockDriver.keys("baton", "orders");

    private final SteppedEngine baton = new SteppedEngine();
    private final FairLockDriver fair = new FairLockDriver(baton.redis, baton.runtime.config(), baton.mutex());

    @AfterEach
    void close() {
        baton.close();
    }

    private AcquireAttempt attempt(Duration wait) {
        return baton.engine.attempt(fair, KEYS, baton.engine.identity().newLeaseOwner(), 1, 30_000, true,
                wait.toNanos(), false, null);
    }

    /** {@code fair-acquire.lua}'s reply when the caller must wait; {@code lastToken} is the last token issued. */
    private static List<Long> queued(long pttl, long lastToken) {
        return List.of(0L, pttl, lastToken);
    }

    /**
     * Starts a wait and lets it reach SLEEPING: its first try, and the re-check after subscribing unless the channel
     * was subscribed already, both queued.
     */
    private AcquireAttempt sleeping(long lastToken) {
        AcquireAttempt attempt = attempt(Duration.ofSeconds(30));
        while (attempt.state() != State.SLEEPING) {
            baton.redis.next(FairLockDriver.ACQUIRE).reply(queued(1_000, lastToken));
        }
        return attempt;
    }

    @Test
    void aHandoffNamedInTheMessageCompletesTheWaitWithoutAskingRedis() {
        AcquireAttempt attempt = sleeping(5);
        int callsBefore = baton.redis.calls().size();

        baton.redis.publish(KEYS.channel(), attempt.request().owner() + " 9");

        assertThat(attempt.state()).isEqualTo(State.ACQUIRED);
        Hold hold = attempt.result.join();
        assertThat(hold.token).isEqualTo(9);
        assertThat(hold.count()).isEqualTo(1);
        assertThat(baton.redis.calls()).as("no round trip").hasSize(callsBefore);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
    }

    @Test
    void aHandoffToAnotherOwnerWakesNobodyHereNorSendsATryInFlightBack() {
        AcquireAttempt sleeper = sleeping(5);
        AcquireAttempt trier = sleeping(5);
        baton.advance(SteppedEngine.RECHECK); // both re-check: two tries in flight
        List<FakeTransport.Call> open = baton.redis.unanswered();
        assertThat(open).hasSize(2);

        baton.redis.publish(KEYS.channel(), "someone-else:t1 9");
        open.get(0).reply(queued(1_000, 9));
        open.get(1).reply(queued(1_000, 9));

        assertThat(sleeper.state()).isEqualTo(State.SLEEPING);
        assertThat(trier.state()).isEqualTo(State.SLEEPING);
        assertThat(baton.redis.unanswered()).as("nobody goes back to Redis before its re-check").isEmpty();
    }

    @Test
    void aHandoffThatCrossesATryInFlightIsClaimedByTheNextTry() {
        AcquireAttempt attempt = sleeping(5);
        baton.advance(SteppedEngine.RECHECK);
        FakeTransport.Call inFlight = baton.redis.next(FairLockDriver.ACQUIRE);

        baton.redis.publish(KEYS.channel(), attempt.request().owner() + " 9"); // ran after the try in Redis
        inFlight.reply(queued(1_000, 5));

        assertThat(attempt.state()).as("tries again at once").isEqualTo(State.TRYING);
        FakeTransport.Call claim = baton.redis.next(FairLockDriver.ACQUIRE);
        assertThat(claim.args.get(4)).as("no token known: the script recognises the handed lock").isEqualTo("0");
        claim.reply(List.of(1L, 9L, 1L));
        assertThat(attempt.result.join().token).isEqualTo(9);
    }

    @Test
    void aHandoffOlderThanTheLatestTryIsStaleAndIgnored() {
        AcquireAttempt attempt = sleeping(12); // the last token issued when the try ran

        baton.redis.publish(KEYS.channel(), attempt.request().owner() + " 9");

        assertThat(attempt.state()).isEqualTo(State.SLEEPING);
        assertThat(baton.redis.unanswered()).isEmpty();
    }

    @Test
    void aWaitThatRunsOutLeavesTheQueueWithItsHeldToken() {
        AcquireAttempt attempt = attempt(Duration.ofMillis(1_500));
        baton.redis.next(FairLockDriver.ACQUIRE).reply(queued(1_000, 5));
        baton.redis.next(FairLockDriver.ACQUIRE).reply(queued(1_000, 5));
        baton.advance(SteppedEngine.RECHECK);
        baton.redis.next(FairLockDriver.ACQUIRE).reply(queued(1_000, 5));

        baton.advance(Duration.ofMillis(500));

        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        FakeTransport.Call abandon = baton.redis.next(FairLockDriver.ABANDON);
        assertThat(abandon.keys).containsExactly(KEYS.lock(), KEYS.counter(), FairLockDriver.queue(KEYS),
                FairLockDriver.waiters(KEYS));
        assertThat(abandon.args.subList(0, 3)).containsExactly(attempt.request().owner(), "0", KEYS.channel());
        abandon.reply(0L);
    }
}
