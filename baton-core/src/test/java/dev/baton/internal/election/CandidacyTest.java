package dev.baton.internal.election;

import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Candidacy;
import dev.baton.RevocationReason;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.lock.LockCalls;
import dev.baton.support.LeadershipRecorder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A candidacy's state machine on a fake transport and a fake clock: when it campaigns again after each way a
 * leadership ends, and what it tells its listener. The candidacy runs on its own thread, so the test waits (bounded)
 * for each call it expects to reach the fake Redis; time moves only when the test moves it.
 */
class CandidacyTest {
    private static final Duration CALL_BOUND = Duration.ofSeconds(10);

    private final SteppedEngine baton = new SteppedEngine();
    private final LeadershipRecorder recorder = new LeadershipRecorder();

    @AfterEach
    void close() {
        baton.close();
    }

    private Candidacy electedWithEpoch(long epoch) {
        Candidacy candidacy = baton.primitives.election("scheduler").join(recorder);
        answerNextCampaign(granted(epoch));
        await().atMost(CALL_BOUND).until(candidacy::isLeader);
        return candidacy;
    }

    private void answerNextCampaign(Object reply) {
        await().atMost(CALL_BOUND).until(() -> baton.redis.unanswered().stream()
                .anyMatch(c -> c.script == LockCalls.ACQUIRE));
        baton.redis.next(LockCalls.ACQUIRE).reply(reply);
    }

    private int campaigns() {
        return baton.redis.calls(LockCalls.ACQUIRE).size();
    }

    @Test
    void aResignerCampaignsAgainOnlyOneRecheckIntervalLaterSoTheWokenCandidatesGoFirst() {
        Candidacy candidacy = electedWithEpoch(7);
        baton.redis.answer(LockCalls.RELEASE, call -> 0L);

        candidacy.leadership().orElseThrow().resign();

        await().atMost(CALL_BOUND).until(() -> recorder.revocations().equals(List.of(RevocationReason.RESIGNED)));
        baton.advance(SteppedEngine.RECHECK.minusMillis(1));
        assertThat(campaigns()).isEqualTo(1);
        baton.advance(Duration.ofMillis(1));
        await().atMost(CALL_BOUND).until(() -> campaigns() == 2);
        answerNextCampaign(granted(9));
        await().atMost(CALL_BOUND).until(candidacy::isLeader);
        assertThat(recorder.epochs()).containsExactly(7L, 9L);
        assertThat(recorder.violations()).isEmpty();
    }

    @Test
    void aLeadershipRedisNoLongerHasIsLostAndTheCandidacyCampaignsAgainAtOnce() {
        Candidacy candidacy = electedWithEpoch(7);
        baton.redis.answer(LockCalls.RENEW, call -> List.of(0L)); // gone: expired, deleted or lost in a failover

        baton.advance(SteppedEngine.WATCHDOG_LEASE.dividedBy(3));

        await().atMost(CALL_BOUND).until(() -> recorder.revocations().equals(List.of(RevocationReason.LOST)));
        assertThat(candidacy.isLeader()).isFalse();
        // Redis said it is gone: nothing of it is left to release (only a paused leader gives its old hold up).
        assertThat(baton.redis.calls(LockCalls.RELEASE)).isEmpty();
        await().atMost(CALL_BOUND).until(() -> campaigns() == 2); // no re-check interval passed
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(1000)); // someone else leads now: later tries too
        baton.redis.next(LockCalls.ACQUIRE).reply(held(1000));
        assertThat(recorder.violations()).isEmpty();

        baton.redis.answer(LockCalls.ABANDON, call -> List.of(0L, 0L));
        candidacy.close(); // withdraws the campaign in progress
        assertThat(recorder.revocations()).containsExactly(RevocationReason.LOST);
    }

    @Test
    void renewalsRedisDoesNotAnswerRevokeAsUnavailableWhenTheLeaseEstimateRunsOut() {
        Candidacy candidacy = electedWithEpoch(7);
        baton.redis.outage(unreachable());

        baton.advance(SteppedEngine.WATCHDOG_LEASE.minusMillis(1));
        assertThat(candidacy.isLeader()).isTrue();
        baton.advance(Duration.ofMillis(1));

        assertThat(candidacy.isLeader()).isFalse();
        await().atMost(CALL_BOUND).until(() -> recorder.revocations().equals(List.of(RevocationReason.UNAVAILABLE)));
        assertThat(recorder.violations()).isEmpty();
    }

    @Test
    void closingALeaderResignsAndTellsItClosedBeforeReturning() {
        Candidacy candidacy = electedWithEpoch(7);
        baton.redis.answer(LockCalls.RELEASE, call -> 0L);

        candidacy.close();

        assertThat(recorder.revocations()).containsExactly(RevocationReason.CLOSED);
        assertThat(baton.redis.calls(LockCalls.RELEASE)).hasSize(1);
        baton.advance(SteppedEngine.RECHECK.multipliedBy(5));
        assertThat(campaigns()).isEqualTo(1);
    }
}
