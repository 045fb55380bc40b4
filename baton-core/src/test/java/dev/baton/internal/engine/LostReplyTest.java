package dev.baton.internal.engine;

import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.keys;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.engine.AcquireAttempt.State;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine does after a try whose reply never came (docs/lock-protocol.md, "Acquisitions whose reply was
 * lost"), stepped on a fake transport and a fake clock: the abandon goes out before the caller hears, an orphan it
 * reports is released by owner and token, an unconfirmed abandon is sent again until Redis answers, and a later try of
 * the same owner sends it once more ahead of itself and then drops it. The real-Redis side is OrphanedAcquisitionIT.
 */
class LostReplyTest {
    private static final String OWNER = "me:t1";

    private final SteppedEngine baton = new SteppedEngine();

    @AfterEach
    void close() {
        baton.close();
    }

    private AcquireAttempt singleTry() {
        return baton.engine.attempt(baton.mutex(), keys("orders"), OWNER, 1, 30_000, true, 0, false, null);
    }

    @Test
    void aTryWithoutReplyIsAbandonedBeforeTheCallerHears() {
        AcquireAttempt attempt = singleTry();
        AtomicInteger abandonsWhenTold = new AtomicInteger(-1);
        attempt.result.whenComplete((hold, e) ->
                abandonsWhenTold.set(baton.redis.calls(LockCalls.ABANDON).size()));

        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());

        assertThat(attempt.state()).isEqualTo(State.FAILED);
        assertThat(abandonsWhenTold.get()).as("the abandon was sent before the caller was told").isEqualTo(1);
        FakeTransport.Call abandon = baton.redis.next(LockCalls.ABANDON);
        assertThat(abandon.args).as("owner, channel, not sharded, no hold before the attempt")
                .containsExactly(OWNER, keys("orders").channel(), "0", "0");
    }

    @Test
    void anOrphanTheAbandonFindsIsReleasedByOwnerAndToken() {
        singleTry();
        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());

        baton.redis.next(LockCalls.ABANDON).reply(List.of(0L, 42L));

        FakeTransport.Call release = baton.redis.next(LockCalls.RELEASE);
        assertThat(release.args.subList(0, 2)).containsExactly(OWNER, "42");
    }

    @Test
    void aBusyReplyLeavesNothingToAbandon() {
        AcquireAttempt attempt = singleTry();

        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));

        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        assertThat(baton.redis.calls(LockCalls.ABANDON)).as("a single try that was answered costs nothing more")
                .isEmpty();
    }

    @Test
    void anUnconfirmedAbandonIsSentAgainUntilRedisAnswers() {
        singleTry();
        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());
        baton.redis.next(LockCalls.ABANDON).fail(unreachable());

        baton.advance(Duration.ofMillis(100));
        baton.redis.next(LockCalls.ABANDON).fail(unreachable());
        baton.advance(Duration.ofMillis(199));
        assertThat(baton.redis.unanswered()).as("the pause doubles").isEmpty();
        baton.advance(Duration.ofMillis(1));
        baton.redis.next(LockCalls.ABANDON).reply(List.of(0L, 0L));

        baton.advance(Duration.ofSeconds(10));
        assertThat(baton.redis.calls(LockCalls.ABANDON)).as("confirmed: no more").hasSize(3);
    }

    @Test
    void aLaterTryOfTheSameOwnerSendsTheAbandonAheadOfItselfAndThenDropsIt() {
        singleTry();
        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());
        baton.redis.next(LockCalls.ABANDON).fail(unreachable());

        singleTry(); // the same owner, on the same lock, before the retry is due

        List<FakeTransport.Call> calls = baton.redis.calls();
        assertThat(calls.subList(calls.size() - 2, calls.size())).extracting(c -> c.script)
                .as("the abandon goes out ahead of the try, on the same connection")
                .containsExactly(LockCalls.ABANDON, LockCalls.ACQUIRE);
        baton.redis.next(LockCalls.ABANDON).fail(unreachable());
        baton.redis.next(LockCalls.ACQUIRE).reply(SteppedEngine.granted(9));

        baton.advance(Duration.ofSeconds(10));
        assertThat(baton.redis.calls(LockCalls.ABANDON))
                .as("never sent again after the later try, which it could otherwise release").hasSize(2);
    }
}
