package dev.baton.internal.lock;

import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.failure;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonUnavailableException;
import dev.baton.LockType;
import dev.baton.ReplicaAcknowledgement;
import dev.baton.ReplicaAcknowledgementException;
import dev.baton.internal.engine.AcquireAttempt;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.DriverKit;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The plain lock with replica acknowledgement on a fake transport: the acquire script goes out with {@code WAIT}'s
 * replicas and timeout, a grant counts only once enough replicas acknowledged it, and one that was not acknowledged
 * (too few replicas, or {@code WAIT} failed) is released, owner and token named, before the try fails with the reason;
 * a busy reply passes through as it is, and everything but the acquisition is the plain lock's.
 *
 * <p>Its tries go over connections of their own, its abandons over the shared one, so Redis could run them in either
 * order: the tests through the engine show that a try of an owner is not even sent while an abandon of that owner on
 * that lock may still run, so no abandon can find, and release, what the try acquired (the CI failure of
 * ReplicaAcknowledgedIT.aPausedReplicaFailsTwoRequiredButNotOne).
 */
class AcknowledgedLockDriverTest {
    private static final LockKeys KEYS = LockKeys.of("baton", "orders");
    private static final ReplicaAcknowledgement TWO_REPLICAS = new ReplicaAcknowledgement(2, Duration.ofMillis(500));

    private final SteppedEngine baton = new SteppedEngine();
    private final FakeTransport redis = baton.redis;
    private final LockCalls plain = new LockCalls(redis, Duration.ofDays(1), new FakeTicker(), Duration.ZERO,
            Duration.ofSeconds(1));
    private final AcknowledgedLockDriver acknowledged = new AcknowledgedLockDriver(plain, TWO_REPLICAS, baton.engine);

    @AfterEach
    void close() {
        baton.close();
    }

    /** One try of {@code owner} through the engine, as {@code tryLock()} starts it. */
    private AcquireAttempt singleTry(LockDriver driver, String owner) {
        return baton.engine.attempt(driver, KEYS, owner, 1, 30_000, true, 0, false, null);
    }

    /** An acknowledged try of {@link DriverKit#OWNER} that too few replicas acknowledged: undone, then abandoned. */
    private FakeTransport.Call failedAttemptsAbandon() {
        AcquireAttempt first = singleTry(acknowledged, OWNER);
        redis.acknowledge(1);
        redis.next(LockCalls.ACQUIRE).reply(granted(7));
        redis.next(LockCalls.RELEASE).reply(0L);
        assertThat(failure(first.result)).isInstanceOf(ReplicaAcknowledgementException.class);
        FakeTransport.Call abandon = redis.next(LockCalls.ABANDON);
        assertThat(abandon.args.get(0)).isEqualTo(OWNER);
        return abandon;
    }

    private CompletableFuture<Acquired> tryWith(long replicas, Object reply) {
        redis.acknowledge(replicas);
        CompletableFuture<Acquired> acquired = acknowledged.acquire(request(acknowledged, KEYS), false);
        redis.next(LockCalls.ACQUIRE).reply(reply);
        return acquired;
    }

    @Test
    void theAcquireScriptGoesOutWithWaitsReplicasAndTimeoutAndAnAcknowledgedGrantCounts() {
        CompletableFuture<Acquired> acquired = acknowledged.acquire(request(acknowledged, KEYS), false);

        FakeTransport.Call call = redis.next(LockCalls.ACQUIRE);
        assertThat(call.acknowledgement).isEqualTo(new FakeTransport.Acknowledgement(2, Duration.ofMillis(500)));
        assertThat(call.keys).containsExactly(KEYS.lock(), KEYS.counter());
        assertThat(call.args.get(0)).isEqualTo(OWNER);
        redis.acknowledge(2);
        call.reply(granted(7));

        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0));
        assertThat(redis.calls(LockCalls.RELEASE)).as("nothing undone").isEmpty();
    }

    @Test
    void aGrantTooFewReplicasAcknowledgedIsReleasedBeforeTheTryFails() {
        CompletableFuture<Acquired> acquired = tryWith(1, granted(7));

        assertThat(acquired).as("not before the grant is undone").isNotDone();
        FakeTransport.Call undo = redis.next(LockCalls.RELEASE, List.of(KEYS.lock()),
                OWNER, "7", KEYS.channel(), "0", "0");
        undo.reply(0L);

        Throwable failure = failure(acquired);
        assertThat(failure).isInstanceOf(ReplicaAcknowledgementException.class);
        ReplicaAcknowledgementException refused = (ReplicaAcknowledgementException) failure;
        assertThat(refused.lockName()).isEqualTo("orders");
        assertThat(refused.acknowledged()).isEqualTo(1);
        assertThat(refused.required()).isEqualTo(2);
        assertThat(refused.timeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void aGrantWhoseWaitFailedIsReleasedAndTheTryFailsWithWaitsFailure() {
        IllegalStateException waitFailed = new IllegalStateException("WAIT timed out");
        redis.waitFails(waitFailed);
        CompletableFuture<Acquired> acquired = acknowledged.acquire(request(acknowledged, KEYS), false);
        redis.next(LockCalls.ACQUIRE).reply(granted(7));

        redis.next(LockCalls.RELEASE).reply(0L);

        assertThat(failure(acquired)).isSameAs(waitFailed);
    }

    @Test
    void anUndoThatFailsTooIsAddedToTheReasonAndTheGrantIsLeftToItsLease() {
        CompletableFuture<Acquired> acquired = tryWith(0, granted(7));

        redis.next(LockCalls.RELEASE).fail(unreachable());

        Throwable failure = failure(acquired);
        assertThat(failure).isInstanceOf(ReplicaAcknowledgementException.class);
        assertThat(failure.getSuppressed()).singleElement().satisfies(undo ->
                assertThat(undo).hasMessageContaining("could not be reached"));
    }

    @Test
    void aBusyLockPassesThroughWithoutAcknowledgementOrUndo() {
        CompletableFuture<Acquired> acquired = tryWith(0, held(4_000));

        assertThat(value(acquired)).isEqualTo(new Acquired(false, 0, 0, 4_000));
        assertThat(redis.calls(LockCalls.RELEASE)).isEmpty();
    }

    @Test
    void everythingButTheAcquisitionIsThePlainLocksWithoutLocalQueueing() {
        AcquireRequest r = request(acknowledged, KEYS);
        acknowledged.release(KEYS, OWNER, 7, true);
        acknowledged.renew(List.of(hold(acknowledged, KEYS, OWNER, 7)), 30_000);
        acknowledged.keep(hold(acknowledged, KEYS, OWNER, 7), 100);
        acknowledged.abandon(r, true);

        assertThat(redis.calls().stream().map(c -> c.script).toList()).containsExactly(LockCalls.RELEASE,
                LockCalls.RENEW, LockCalls.KEEP, LockCalls.ABANDON);
        assertThat(redis.calls()).allSatisfy(c -> assertThat(c.acknowledgement).isNull());
        assertThat(acknowledged.grantIn("next inst-b:L1", r)).isEqualTo(-1);
        assertThat(acknowledged.sleepLimitNanos(r)).isEqualTo(Long.MAX_VALUE);
        assertThat(acknowledged.type()).isEqualTo(LockType.LOCK);
        assertThat(acknowledged.localQueueing()).as("a local handoff is a write no WAIT covers").isFalse();
    }

    @Test
    void theOwnersNextTryWaitsUntilRedisHasRunTheAbandonSoItCannotReleaseTheNewGrant() {
        FakeTransport.Call abandon = failedAttemptsAbandon();

        AcquireAttempt next = singleTry(acknowledged, OWNER);
        // Were the try sent now, Redis could run it first, and the abandon would then report its grant as an orphan.
        assertThat(redis.calls(LockCalls.ACQUIRE)).as("not sent while the abandon may still run").hasSize(1);
        abandon.reply(List.of(0L, 0L));
        // The engine sent the unconfirmed abandon once more ahead of the try: the try waits for that one as well.
        FakeTransport.Call ahead = redis.next(LockCalls.ABANDON);
        assertThat(redis.calls(LockCalls.ACQUIRE)).hasSize(1);
        ahead.reply(List.of(0L, 0L));

        redis.acknowledge(2);
        redis.next(LockCalls.ACQUIRE).reply(granted(8));
        Hold hold = value(next.result);
        assertThat(hold.token).isEqualTo(8);
        assertThat(redis.calls(LockCalls.RELEASE)).as("only the first grant was undone").singleElement()
                .satisfies(undo -> assertThat(undo.args.get(1)).isEqualTo("7"));
    }

    @Test
    void anAbandonWithoutReplyIsSentAgainBehindItselfAndTheTryGoesOnceThatIsAnswered() {
        failedAttemptsAbandon().fail(unreachable());

        AcquireAttempt next = singleTry(acknowledged, OWNER);
        redis.next(LockCalls.ABANDON).fail(unreachable()); // the engine's own re-sending ahead of the try
        FakeTransport.Call again = redis.next(LockCalls.ABANDON);
        assertThat(redis.calls(LockCalls.ACQUIRE)).hasSize(1);
        again.reply(List.of(0L, 0L));

        redis.acknowledge(2);
        redis.next(LockCalls.ACQUIRE).reply(granted(8));
        assertThat(value(next.result).token).isEqualTo(8);
    }

    @Test
    void whileRedisAnswersNoAbandonTheTryFailsUnsent() {
        failedAttemptsAbandon().fail(unreachable());

        AcquireAttempt next = singleTry(acknowledged, OWNER);
        redis.next(LockCalls.ABANDON).fail(unreachable());
        redis.next(LockCalls.ABANDON).fail(unreachable());

        assertThat(failure(next.result)).isInstanceOf(BatonUnavailableException.class);
        assertThat(redis.calls(LockCalls.ACQUIRE)).as("the try was never sent").hasSize(1);
    }

    @Test
    void anAbandonOfThePlainLockOnTheSameOwnerAndLockHoldsBackTheAcknowledgedTryToo() {
        AcquireAttempt plainTry = singleTry(plain, OWNER);
        redis.next(LockCalls.ACQUIRE).fail(unreachable());
        assertThat(failure(plainTry.result)).isInstanceOf(BatonUnavailableException.class);
        FakeTransport.Call abandon = redis.next(LockCalls.ABANDON);

        AcquireAttempt next = singleTry(acknowledged, OWNER);
        assertThat(redis.calls(LockCalls.ACQUIRE)).hasSize(1);
        abandon.reply(List.of(0L, 0L));
        redis.next(LockCalls.ABANDON).reply(List.of(0L, 0L)); // sent once more ahead of the try
        redis.acknowledge(2);
        redis.next(LockCalls.ACQUIRE).reply(granted(8));
        assertThat(value(next.result).token).isEqualTo(8);
    }

    @Test
    void anotherOwnersTryDoesNotWaitForTheAbandon() {
        FakeTransport.Call abandon = failedAttemptsAbandon();

        AcquireAttempt other = singleTry(acknowledged, "inst-a:L2");
        redis.acknowledge(2);
        redis.next(LockCalls.ACQUIRE).reply(granted(8));
        assertThat(value(other.result).token).isEqualTo(8);
        assertThat(abandon.answered()).isFalse();
    }
}
