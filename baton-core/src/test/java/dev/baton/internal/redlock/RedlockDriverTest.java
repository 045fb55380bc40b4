package dev.baton.internal.redlock;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.failure;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.runtime.ManualScheduler;
import dev.baton.internal.transport.FakeQuorum;
import dev.baton.internal.transport.FakeTransport.Call;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redlock's driver on three fake masters behind a real {@link dev.baton.internal.transport.QuorumTransport}, each
 * master answered by hand: the {@code redlock-acquire.lua} call (lock, counter and admission marker; the proposal
 * last), the quorum math (a majority of grants wins while its validity lasts, a majority of replies decides a refusal,
 * fewer replies than a majority is {@link BatonUnavailableException} "only k of n masters answered"), which grants are
 * undone and where (minority grants, grants heard too late, late grants of another token, tries that may still run),
 * how long a refused waiter sleeps, the calibration of proposals and the admission of masters without a marker; and
 * the quorum forms of release, renewal, keep, forced unlock and the views. {@link RedlockDriver#validityMillis} refuses
 * leases the masters' sit-out or the drift allowance do not leave room for.
 */
class RedlockDriverTest {
    private static final LockKeys KEYS = LockKeys.of("baton", "orders");
    /** The masters' clock (TIME) in microseconds, about 2023. */
    private static final long TIME = 1_700_000_000_000_000L;
    /** The first proposal of a try once the driver heard the masters' clock ({@link #calibrated}). */
    private static final long P = TIME + 1;
    private static final String MARKER = "baton:redlock:admitted";
    /** 30 s less 1 % drift and 2 ms. */
    private static final long VALIDITY_MILLIS = 29_698;

    private final FakeQuorum quorum = FakeQuorum.of(3);
    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler clock = new ManualScheduler(ticker);
    private final BatonConfig config = BatonConfig.builder().redlock("redis://a:6379", "redis://b:6379",
            "redis://c:6379").redlockMaxLease(Duration.ofMinutes(1)).build();
    private final RedlockDriver redlock = new RedlockDriver(quorum.transport, config, ticker);

    @AfterEach
    void close() {
        quorum.transport.close();
    }

    // ---- raw replies of redlock-acquire.lua ----

    private static List<Long> granted(long token, long count) {
        return List.of(1L, token, count, TIME);
    }

    private static List<Long> busy(long pttl, long holderToken) {
        return List.of(0L, pttl, holderToken, TIME, holderToken);
    }

    private static List<Long> stale(long counter) {
        return List.of(-1L, counter, 0L, TIME);
    }

    private static List<Long> unmarked() {
        return List.of(-2L, 0L, 0L, TIME);
    }

    /** Answers the calls in order, each with its reply (null: left unanswered). */
    private static void answer(List<Call> calls, Object... replies) {
        for (int i = 0; i < replies.length; i++) {
            if (replies[i] instanceof RuntimeException failure) {
                calls.get(i).fail(failure);
            } else if (replies[i] != null) {
                calls.get(i).reply(replies[i]);
            }
        }
    }

    /**
     * Lets the driver hear the masters' clock: a first try of another owner, whose first round proposes nothing and
     * whose second round finds the lock busy. The next proposal is then {@link #P}.
     */
    private void calibrated() {
        AcquireRequest other = request(redlock, KEYS, "inst-b:L1", 1, 30_000, 0, ticker.nanos());
        CompletableFuture<Acquired> first = redlock.acquire(other, false);
        List<Call> round = quorum.next(RedlockDriver.ACQUIRE);
        answer(round, stale(0), stale(0), stale(0));
        answer(quorum.next(RedlockDriver.ACQUIRE), busy(100, 5), busy(100, 5), busy(100, 5));
        assertThat(value(first).granted()).isFalse();
    }

    /** A fresh try of {@code OWNER}, started now; its round's calls are {@link #round()}. */
    private CompletableFuture<Acquired> attempt(boolean willWait) {
        return redlock.acquire(request(redlock, KEYS, OWNER, 1, 30_000, 0, ticker.nanos()), willWait);
    }

    private List<Call> round() {
        return quorum.next(RedlockDriver.ACQUIRE);
    }

    /** The undo calls each master got, as "master:token". */
    private List<String> undone() {
        return quorum.masters.stream().flatMap(m -> m.calls(RedlockDriver.UNDO).stream()
                .map(c -> quorum.masters.indexOf(m) + ":" + c.args.get(1))).toList();
    }

    // ---- acquiring ----

    @Test
    void aFirstTryAsksWithoutAProposalLearnsTheMastersClockAndProposesItInTheSameCall() {
        CompletableFuture<Acquired> acquired = attempt(true);

        List<Call> first = round();
        assertThat(first).allSatisfy(c -> {
            assertThat(c.keys).containsExactly(KEYS.lock(), KEYS.counter(), MARKER);
            assertThat(c.args).containsExactly(OWNER, "30000", HOLDER, "86400000", "0", "1", "0");
        });
        answer(first, stale(0), stale(0), stale(0));

        List<Call> second = round();
        assertThat(second).allSatisfy(c -> assertThat(c.args.get(6)).isEqualTo(Long.toString(TIME)));
        answer(second, granted(TIME, 1), granted(TIME, 1));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, TIME, 1, 0));
    }

    @Test
    void aProposalNotAboveAMastersCounterIsRaisedAboveIt() {
        CompletableFuture<Acquired> acquired = attempt(false);
        answer(round(), stale(0), stale(TIME + 500), stale(0));

        List<Call> second = round();
        assertThat(second.get(0).args.get(6)).isEqualTo(Long.toString(TIME + 501));
        answer(second, granted(TIME + 501, 1), granted(TIME + 501, 1), granted(TIME + 501, 1));
        assertThat(value(acquired).token()).isEqualTo(TIME + 501);
    }

    @Test
    void aMajorityOfGrantsWinsWithoutWaitingForTheLastMasterWhoseGrantOfTheSameTokenJoinsTheHold() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);
        List<Call> round = round();

        answer(round, granted(P, 1), null, granted(P, 1));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, P, 1, 0));

        round.get(1).reply(granted(P, 1));
        assertThat(undone()).isEmpty();
    }

    @Test
    void aReEntryWinsWithTheHeldTokenAndTheHighestCountAndALateFreshGrantOfAMasterThatLostTheHoldIsUndone() {
        calibrated();
        CompletableFuture<Acquired> acquired = redlock.acquire(request(redlock, KEYS, OWNER, 1, 30_000, 77,
                ticker.nanos()), false);
        List<Call> round = round();
        assertThat(round.get(0).args.get(4)).isEqualTo("77");

        answer(round, granted(77, 2), granted(77, 3));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 77, 3, 0));

        round.get(2).reply(granted(P, 1));
        assertThat(undone()).containsExactly("2:" + P);
        assertThat(quorum.master(2).next(RedlockDriver.UNDO).keys).containsExactly(KEYS.lock());
        assertThat(quorum.master(2).next(RedlockDriver.UNDO).args).containsExactly(OWNER, Long.toString(P));
    }

    @Test
    void fewerRepliesThanAMajorityFailTheTryAsUnavailableAndUndoTheMinorityGrant() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);

        answer(round(), granted(P, 1), unreachable(), unreachable());

        assertThat(failure(acquired)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageStartingWith("Redlock 'orders': only 1 of 3 masters answered (2 needed)")
                .hasMessageContaining("could not be reached");
        assertThat(undone()).as("refused before they were sent: nothing to undo there").containsExactly("0:" + P);
    }

    @Test
    void aMinorityOfBusyRepliesIsNotABusyLockButAnOutage() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);
        List<Call> round = round();

        answer(round, busy(5_000, 9));
        assertThat(acquired).as("one reply decides nothing").isNotDone();
        answer(round, null, unreachable(), unreachable());

        assertThat(failure(acquired)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageStartingWith("Redlock 'orders': only 1 of 3 masters answered (2 needed)");
    }

    @Test
    void aTryThatTimedOutOnAMasterMayStillRunThereSoItsProposalIsUndoneThereToo() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(false);

        answer(round(), busy(1_000, 9), new RedisCommandTimeoutException("Command timed out after 1 second(s)"),
                busy(2_000, 9));

        assertThat(value(acquired).granted()).isFalse();
        assertThat(undone()).containsExactly("1:" + P);
    }

    @Test
    void aLockHeldByAnotherOnAMajoritySleepsUntilEnoughOfItsMastersExpireForAMajorityToBeFree() {
        calibrated();
        CompletableFuture<Acquired> twoOfThree = attempt(true);
        answer(round(), busy(3_000, 9), busy(1_000, 9), busy(500, 9));
        assertThat(value(twoOfThree)).as("the free third master and the first to expire make a majority")
                .isEqualTo(new Acquired(false, 0, 0, 1_000));

        CompletableFuture<Acquired> split = attempt(true);
        answer(round(), busy(3_000, 9), granted(P + 1, 1), busy(2_000, 9));
        assertThat(value(split).pttl()).isEqualTo(2_000);
        assertThat(undone()).as("its own minority grant").containsExactly("1:" + (P + 1));
    }

    @Test
    void aSplitVoteThisTryDoesNotLeadIsUndoneAndRetriedOnceTheKeeperHadItsRounds() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);

        answer(round(), busy(3_000, 9), granted(P, 1), busy(3_000, 10));

        Acquired refused = value(acquired);
        assertThat(refused.granted()).isFalse();
        assertThat(refused.pttl()).as("the keeper's four rounds and its own, of at least 1 ms, and 1-20 ms")
                .isBetween(6L, 25L);
        assertThat(undone()).containsExactly("1:" + P);

        CompletableFuture<Acquired> slow = attempt(true);
        List<Call> calls = round();
        clock.advance(Duration.ofMillis(10));
        answer(calls, busy(3_000, 9), granted(P + 1, 1), busy(3_000, 10));
        assertThat(value(slow).pttl()).as("paced by the round trip: 5 x 10 ms and 1-20 ms").isBetween(51L, 70L);
    }

    @Test
    void aSplitVoteThisTryLeadsKeepsItsGrantAndGoesRoundAgainWithAHigherProposal() throws Exception {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);
        List<Call> round = round();
        answer(round, granted(P, 1), busy(3_000, 9));
        // The next round runs a millisecond later, on the JDK's delayer: its masters answer as soon as asked.
        quorum.masters.forEach(m -> m.answer(RedlockDriver.ACQUIRE, c -> granted(Long.parseLong(c.args.get(6)), 1)));

        round.get(2).reply(busy(3_000, 10));

        assertThat(acquired.get(5, TimeUnit.SECONDS)).isEqualTo(new Acquired(true, P + 1, 1, 0));
        assertThat(undone()).as("the kept grant was replaced by the new proposal's").isEmpty();
    }

    @Test
    void aMajorityHeardAfterTheValidityRanOutIsUndoneEverywhereLateGrantsIncluded() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);
        List<Call> round = round();

        clock.advance(Duration.ofMillis(VALIDITY_MILLIS));
        answer(round, granted(P, 1), granted(P, 1));

        Acquired refused = value(acquired);
        assertThat(refused.granted()).isFalse();
        assertThat(refused.pttl()).isBetween(1L, 20L);
        assertThat(undone()).containsExactly("0:" + P, "1:" + P);

        round.get(2).reply(granted(P, 1));
        assertThat(undone()).containsExactly("0:" + P, "1:" + P, "2:" + P);
    }

    @Test
    void aMajorityHeardJustWithinTheValidityHolds() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(true);
        List<Call> round = round();

        clock.advance(Duration.ofMillis(VALIDITY_MILLIS).minusNanos(1));
        answer(round, granted(P, 1), granted(P, 1));

        assertThat(value(acquired).granted()).isTrue();
    }

    @Test
    void aNewDeploymentWithoutMarkersIsAdmittedAtOnceAndTheTryGoesRoundAgain() {
        CompletableFuture<Acquired> acquired = attempt(false);
        answer(round(), unmarked(), unmarked(), unmarked());

        List<Call> admits = quorum.calls(RedlockAdmission.ADMIT);
        assertThat(admits).hasSize(3).allSatisfy(c -> {
            assertThat(c.keys).containsExactly(MARKER);
            assertThat(c.args).containsExactly("0");
        });
        assertThat(quorum.calls(RedlockDriver.ACQUIRE)).as("not before they are admitted").hasSize(3);
        admits.forEach(c -> c.reply(0L));

        List<Call> again = round();
        assertThat(again.get(0).args.get(6)).isEqualTo(Long.toString(TIME));
        answer(again, granted(TIME, 1), granted(TIME, 1));
        assertThat(value(acquired).token()).isEqualTo(TIME);
    }

    @Test
    void aMasterThatLostItsDataAmongAMajorityWithMarkersSitsOutTheLongestLease() {
        calibrated();
        CompletableFuture<Acquired> acquired = attempt(false);

        answer(round(), granted(P, 1), null, unmarked());
        assertThat(acquired).as("one grant and one unmarked master decide nothing").isNotDone();
        quorum.master(1).next(RedlockDriver.ACQUIRE).reply(granted(P, 1));

        assertThat(value(acquired).granted()).isTrue();
        assertThat(quorum.master(2).next(RedlockAdmission.ADMIT).args).containsExactly("60000");
        assertThat(quorum.calls(RedlockAdmission.ADMIT)).hasSize(1);
    }

    @Test
    void theValidityIsTheLeaseLessTheDriftAllowanceAndALeaseTheSitOutOrTheAllowanceLeavesNoRoomForIsRefused() {
        assertThat(redlock.validityMillis(30_000)).isEqualTo(VALIDITY_MILLIS);
        assertThat(redlock.validityMillis(3)).isEqualTo(1);
        assertThatThrownBy(() -> redlock.validityMillis(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too short for a Redlock");
        assertThatThrownBy(() -> redlock.validityMillis(60_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redlockMaxLease (60000 ms)").hasMessageEndingWith("60001 ms");
        assertThat(redlock.validityMillis(60_000)).isEqualTo(60_000 - 600 - 2);
    }

    // ---- releasing, renewing, keeping ----

    @Test
    void aReleaseGoesToEveryMasterNamingItsTokenInTheMessageAndIsDecidedByAMajority() {
        CompletableFuture<Long> released = redlock.release(KEYS, OWNER, 77, false);

        List<Call> calls = quorum.next(LockCalls.RELEASE);
        assertThat(calls).allSatisfy(c -> {
            assertThat(c.keys).containsExactly(KEYS.lock());
            assertThat(c.args).containsExactly(OWNER, "77", KEYS.channel(), "0", "0", "released 77");
        });
        answer(calls, 0L, -1L);
        assertThat(released).isNotDone();
        answer(calls, null, null, 0L);
        assertThat(value(released)).isZero();
    }

    @Test
    void aReleaseThatAMajorityNoLongerHadIsGone() {
        CompletableFuture<Long> released = redlock.release(KEYS, OWNER, 77, true);

        List<Call> calls = quorum.next(LockCalls.RELEASE);
        assertThat(calls.get(0).args.get(3)).isEqualTo("1");
        answer(calls, -1L, 0L, -1L);

        assertThat(value(released)).isEqualTo(-1);
    }

    @Test
    void aReleaseTooFewMastersAnsweredFailsAsUnavailable() {
        CompletableFuture<Long> released = redlock.release(KEYS, OWNER, 77, false);

        answer(quorum.next(LockCalls.RELEASE), 0L, unreachable(), unreachable());

        assertThat(failure(released)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("too few masters answered the release");
    }

    @Test
    void theLastReleaseOfAHoldEndsItOnEveryMasterThatStillCountsItLateOnesIncluded() {
        Hold last = hold(redlock, KEYS, OWNER, 77);
        CompletableFuture<Long> released = redlock.releaseHold(last, false);
        List<Call> calls = quorum.next(LockCalls.RELEASE);

        answer(calls, 0L, 1L);
        assertThat(value(released)).isZero();
        Call keep = quorum.master(1).next(LockCalls.KEEP);
        assertThat(keep.args).containsExactly("1", OWNER, "77");

        calls.get(2).reply(2L);
        assertThat(quorum.master(2).next(LockCalls.KEEP).args).containsExactly("1", OWNER, "77");
        assertThat(quorum.master(0).calls(LockCalls.KEEP)).isEmpty();
    }

    @Test
    void anInnerReleaseLeavesTheCountsAlone() {
        Hold twice = hold(redlock, KEYS, OWNER, 77, 2, Long.MAX_VALUE);
        CompletableFuture<Long> released = redlock.releaseHold(twice, false);

        answer(quorum.next(LockCalls.RELEASE), 1L, 1L, 2L);

        assertThat(value(released)).isEqualTo(1);
        assertThat(quorum.calls(LockCalls.KEEP)).isEmpty();
    }

    // ---- contended tries: the first master alone, then the others ----

    /**
     * A waiting acquisition of {@code OWNER} whose first try (one parallel round, as every first try) found the lock
     * held by another hold's majority; its next try, {@code redlock.acquire(request, true)}, is a contended one.
     */
    private AcquireRequest refusedOnce() {
        calibrated();
        AcquireRequest request = request(redlock, KEYS, OWNER, 1, 30_000, 0, ticker.nanos());
        CompletableFuture<Acquired> first = redlock.acquire(request, true);
        answer(round(), busy(3_000, 9), busy(3_000, 9), busy(3_000, 9));
        assertThat(value(first).granted()).isFalse();
        return request;
    }

    /** The one call of the acquire script to the first master, the other masters asked nothing meanwhile. */
    private Call firstMasterAlone() {
        assertThat(quorum.master(1).unanswered()).as("master 1 asked nothing yet").isEmpty();
        assertThat(quorum.master(2).unanswered()).as("master 2 asked nothing yet").isEmpty();
        return quorum.master(0).next(RedlockDriver.ACQUIRE);
    }

    private static long proposalOf(Call acquire) {
        return Long.parseLong(acquire.args.get(6));
    }

    @Test
    void aFirstTryIsOneParallelRoundEvenAfterOtherAcquisitionsWereRefused() {
        refusedOnce();
        CompletableFuture<Acquired> fresh = attempt(true);
        List<Call> round = round(); // every master asked at once

        answer(round, granted(proposalOf(round.get(0)), 1), granted(proposalOf(round.get(0)), 1));

        assertThat(value(fresh).granted()).isTrue();
    }

    @Test
    void aContendedTryTakesTheFirstMasterAloneThenTheOthersWithTheSameProposal() {
        AcquireRequest request = refusedOnce();
        CompletableFuture<Acquired> retry = redlock.acquire(request, true);
        Call first = firstMasterAlone();
        long proposal = proposalOf(first);

        first.reply(granted(proposal, 1));
        Call second = quorum.master(1).next(RedlockDriver.ACQUIRE);
        Call third = quorum.master(2).next(RedlockDriver.ACQUIRE);
        assertThat(List.of(proposalOf(second), proposalOf(third))).containsOnly(proposal);
        assertThat(retry).isNotDone();
        second.reply(granted(proposal, 1));

        assertThat(value(retry)).isEqualTo(new Acquired(true, proposal, 1, 0));
        third.reply(granted(proposal, 1));
        assertThat(undone()).as("a late grant of the winning proposal is part of the hold").isEmpty();

        CompletableFuture<Acquired> again = redlock.acquire(request, true);
        assertThat(round()).as("granted, the acquisition is no longer contended: every master at once").hasSize(3);
        assertThat(again).isNotDone();
    }

    @Test
    void aContendedTryThatFindsTheFirstMasterTakenAsksNoOtherMasterAndSleepsBoundedly() {
        AcquireRequest request = refusedOnce();
        CompletableFuture<Acquired> retry = redlock.acquire(request, true);
        firstMasterAlone().reply(busy(20_000, 9));

        assertThat(value(retry)).isEqualTo(new Acquired(false, 0, 0, RedlockDriver.FIRST_MASTER_RECHECK_MILLIS));
        assertThat(quorum.master(1).unanswered()).isEmpty();
        assertThat(quorum.master(2).unanswered()).isEmpty();
        assertThat(undone()).isEmpty();

        CompletableFuture<Acquired> soon = redlock.acquire(request, true);
        firstMasterAlone().reply(busy(40, 9));
        assertThat(value(soon)).as("until the lease there runs out, if sooner").isEqualTo(new Acquired(false, 0, 0,
                40));
    }

    @Test
    void aContendedTryWhoseFirstMasterTimesOutUndoesThereAndGoesToEveryMasterAtOnce() {
        AcquireRequest request = refusedOnce();
        CompletableFuture<Acquired> retry = redlock.acquire(request, true);
        Call first = firstMasterAlone();
        long phaseOne = proposalOf(first);

        first.fail(new RedisCommandTimeoutException("Command timed out after 1 second(s)"));
        assertThat(undone()).as("the timed-out call may still run there").containsExactly("0:" + phaseOne);
        List<Call> round = round();
        long proposal = proposalOf(round.get(0));
        assertThat(proposal).isGreaterThan(phaseOne);
        answer(round, granted(proposal, 1), granted(proposal, 1), granted(proposal, 1));

        assertThat(value(retry)).isEqualTo(new Acquired(true, proposal, 1, 0));
        CompletableFuture<Acquired> next = redlock.acquire(refusedAgain(), true);
        assertThat(round()).as("for a while, contended tries skip the first master that failed").hasSize(3);
        assertThat(next).isNotDone();
    }

    /** A contended retry of {@code OWNER} and the proposal the first master granted it. */
    private record FirstMasterRetry(CompletableFuture<Acquired> outcome, long proposal) {
    }

    /**
     * A retry of an acquisition refused once: the first master alone grants its proposal, and the other two answer
     * with {@code second} and {@code third}.
     */
    private FirstMasterRetry retryGrantedOnTheFirstMaster(Object second, Object third) {
        CompletableFuture<Acquired> retry = redlock.acquire(refusedOnce(), true);
        Call first = firstMasterAlone();
        long proposal = proposalOf(first);
        first.reply(granted(proposal, 1));
        answer(List.of(quorum.master(1).next(RedlockDriver.ACQUIRE), quorum.master(2).next(RedlockDriver.ACQUIRE)),
                second, third);
        return new FirstMasterRetry(retry, proposal);
    }

    /** Another acquisition of {@code OWNER}, refused once by a majority hold (the masters' clock already heard). */
    private AcquireRequest refusedAgain() {
        AcquireRequest request = request(redlock, KEYS, OWNER, 1, 30_000, 0, ticker.nanos());
        CompletableFuture<Acquired> first = redlock.acquire(request, true);
        answer(round(), busy(3_000, 9), busy(3_000, 9), busy(3_000, 9));
        assertThat(value(first).granted()).isFalse();
        return request;
    }

    @Test
    void aContendedTryGrantedOnTheFirstMasterButNotByAMajorityUndoesItQuietlyAndSleepsOnTheHolder() {
        FirstMasterRetry retry = retryGrantedOnTheFirstMaster(busy(2_000, 9), busy(3_000, 9));
        long proposal = retry.proposal();

        assertThat(value(retry.outcome()))
                .as("another hold has the other two: sleeps until its lease is out on one of them")
                .isEqualTo(new Acquired(false, 0, 0, 2_000));
        assertThat(undone()).containsExactly("0:" + proposal);
        assertThat(quorum.master(0).calls(LockCalls.RELEASE)).as("no wake-up: the holder's release wakes them")
                .isEmpty();
    }

    @Test
    void aContendedTryGrantedOnlyOnTheFirstMasterFailsAsUnavailableAndReleasesItThereWakingItsWaiters() {
        FirstMasterRetry retry = retryGrantedOnTheFirstMaster(unreachable(), unreachable());
        long proposal = retry.proposal();

        assertThat(failure(retry.outcome())).isInstanceOf(BatonUnavailableException.class)
                .hasMessageStartingWith("Redlock 'orders': only 1 of 3 masters answered (2 needed)");
        List<Call> releases = quorum.master(0).calls(LockCalls.RELEASE);
        assertThat(releases).as("released there, publishing, so that the tries it turned away try again").hasSize(1);
        assertThat(releases.get(0).args.subList(0, 2)).containsExactly(OWNER, Long.toString(proposal));
        assertThat(releases.get(0).args.get(3)).isEqualTo("1");
        assertThat(undone()).isEmpty();
    }

    @Test
    void aContendedTryHoldingTheFirstMasterGoesRoundAgainAfterASplitAndTheNewProposalReplacesItsGrant()
            throws Exception {
        quorum.transport.close();
        FakeQuorum five = FakeQuorum.of(5);
        RedlockDriver driver = new RedlockDriver(five.transport, BatonConfig.builder().redlock("redis://a:6379",
                "redis://b:6379", "redis://c:6379", "redis://d:6379", "redis://e:6379")
                .redlockMaxLease(Duration.ofMinutes(1)).build(), ticker);
        try {
            AcquireRequest request = request(driver, KEYS, OWNER, 1, 30_000, 0, ticker.nanos());
            CompletableFuture<Acquired> first = driver.acquire(request, true);
            answer(five.next(RedlockDriver.ACQUIRE), busy(3_000, 9), busy(3_000, 9), busy(3_000, 9),
                    busy(3_000, 9), busy(3_000, 9));
            assertThat(value(first).granted()).isFalse();

            CompletableFuture<Acquired> retry = driver.acquire(request, true);
            for (int i = 1; i < 5; i++) {
                assertThat(five.master(i).unanswered()).isEmpty();
            }
            Call phaseOne = five.master(0).next(RedlockDriver.ACQUIRE);
            long proposal = proposalOf(phaseOne);
            phaseOne.reply(granted(proposal, 1));
            List<Call> others = new ArrayList<>();
            for (int i = 1; i < 5; i++) {
                others.add(five.master(i).next(RedlockDriver.ACQUIRE));
            }
            five.masters.forEach(m -> m.answer(RedlockDriver.ACQUIRE, c -> granted(proposalOf(c), 1)));
            // Newcomers' parallel first tries took masters 1, 2 and 4: nobody has three of five. This try holds the
            // first master, so it keeps its grants and goes round again; the newcomers give theirs back.
            answer(others, busy(3_000, 10), busy(3_000, 10), granted(proposal, 1), busy(3_000, 11));

            Acquired won = retry.get(5, TimeUnit.SECONDS);
            assertThat(won.granted()).isTrue();
            assertThat(won.token()).as("a new, higher proposal").isGreaterThan(proposal);
            assertThat(five.master(0).calls(RedlockDriver.UNDO)).as("its first master's grant was replaced, not undone")
                    .isEmpty();
        } finally {
            five.transport.close();
        }
    }

    // ---- handing over to a local waiter ----

    private static final String NEXT = "inst-a:L2";

    private static List<Long> handed(long token) {
        return List.of(1L, token, 0L, TIME);
    }

    private static List<Long> handStale(long counter) {
        return List.of(-1L, counter, 0L, TIME);
    }

    private static List<Long> notHere() {
        return List.of(-2L, 0L, 0L, TIME);
    }

    /** {@link #OWNER}'s hold with token 77 handed to {@link #NEXT}, with a 30 s lease, after calibration. */
    private CompletableFuture<Long> handOver() {
        calibrated();
        return redlock.handoff(hold(redlock, KEYS, OWNER, 77),
                request(redlock, KEYS, NEXT, 1, 30_000, 0, ticker.nanos()));
    }

    /** Every call but the acquire rounds of the calibration and the handover itself, as "master:script:args". */
    private List<String> cleanups() {
        return quorum.masters.stream().flatMap(m -> Stream.of(LockCalls.RELEASE, LockCalls.KEEP, RedlockDriver.UNDO)
                .flatMap(script -> m.calls(script).stream().map(c -> quorum.masters.indexOf(m) + ":"
                        + script.file().replace("/dev/baton/lua/", "").replace(".lua", "") + ":"
                        + String.join(",", c.args)))).toList();
    }

    @Test
    void aHandoffGivesTheLocalWaiterTheHoldOnEveryMasterInOneRoundWithANewProposal() {
        RedlockStatistics.Counts before = RedlockStatistics.snapshot();
        CompletableFuture<Long> token = handOver();

        List<Call> calls = quorum.next(RedlockDriver.HANDOFF);
        assertThat(calls).allSatisfy(c -> {
            assertThat(c.keys).containsExactly(KEYS.lock(), KEYS.counter());
            assertThat(c.args).containsExactly(OWNER, "77", NEXT, "30000", HOLDER, "86400000", Long.toString(P));
        });
        answer(calls, handed(P), handed(P));
        assertThat(value(token)).isEqualTo(P);
        calls.get(2).reply(handed(P));

        assertThat(cleanups()).as("a late handover is part of the new hold; nothing is released").isEmpty();
        RedlockStatistics.Counts counted = RedlockStatistics.snapshot().minus(before);
        assertThat(counted.handovers()).isEqualTo(1);
        assertThat(counted.rounds()).as("the calibration's two rounds and the handover").isEqualTo(3);
    }

    @Test
    void aHandoffThatAMinorityRefusesOrNeverAnswersLeavesNoOldHoldBehindThere() {
        CompletableFuture<Long> token = handOver();

        answer(quorum.next(RedlockDriver.HANDOFF), handed(P), handStale(P + 50), handed(P));

        assertThat(value(token)).isEqualTo(P);
        assertThat(cleanups()).as("the old hold expires at once, quietly, where it was not handed")
                .containsExactly("1:lock-keep:1," + OWNER + ",77");

        CompletableFuture<Long> next = redlock.handoff(hold(redlock, KEYS, NEXT, P),
                request(redlock, KEYS, OWNER, 1, 30_000, 0, ticker.nanos()));
        List<Call> calls = quorum.next(RedlockDriver.HANDOFF);
        assertThat(Long.parseLong(calls.get(0).args.get(6))).as("above the counter it was told about")
                .isGreaterThan(P + 50);
        answer(calls, handed(P + 51), handed(P + 51),
                new RedisCommandTimeoutException("Command timed out after 1 second(s)"));
        assertThat(value(next)).isEqualTo(P + 51);
        assertThat(cleanups()).as("a handover that may still run there joins the hold; the old hold expires behind it")
                .contains("2:lock-keep:1," + NEXT + "," + P).noneMatch(c -> c.contains("redlock-undo"));
    }

    @Test
    void aHandoffWithoutAMajorityReleasesWhatIsLeftOfBothHoldsAndAnnouncesItSoWaitersTry() {
        CompletableFuture<Long> token = handOver();

        answer(quorum.next(RedlockDriver.HANDOFF), handed(P), notHere(), handStale(P + 50));

        assertThat(value(token)).as("released instead: the local waiter tries on its own").isZero();
        assertThat(cleanups()).containsExactlyInAnyOrder(
                "0:lock-release:" + NEXT + "," + P + "," + KEYS.channel() + ",1,0,released " + P,
                "2:lock-release:" + OWNER + ",77," + KEYS.channel() + ",1,0,released 77");
    }

    @Test
    void aHandoffWhereAMajorityNoLongerHadTheHoldSaysItWasLostAndReleasesALateHandover() {
        CompletableFuture<Long> token = handOver();

        List<Call> calls = quorum.next(RedlockDriver.HANDOFF);
        answer(calls, notHere(), notHere());
        assertThat(value(token)).isEqualTo(-1);

        calls.get(2).reply(handed(P));
        assertThat(cleanups()).containsExactly(
                "2:lock-release:" + NEXT + "," + P + "," + KEYS.channel() + ",1,0,released " + P);
    }

    @Test
    void aHandoffTooFewMastersAnsweredIsUnavailableAndIsUndoneWhereItMayStillRun() {
        CompletableFuture<Long> token = handOver();

        answer(quorum.next(RedlockDriver.HANDOFF), handed(P),
                new RedisCommandTimeoutException("Command timed out after 1 second(s)"), unreachable());

        assertThat(failure(token)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageStartingWith("Redlock 'orders': only 1 of 3 masters answered the handover (2 needed)");
        assertThat(cleanups()).containsExactlyInAnyOrder(
                "0:lock-release:" + NEXT + "," + P + "," + KEYS.channel() + ",1,0,released " + P,
                "1:lock-keep:1," + OWNER + ",77", "1:redlock-undo:" + NEXT + "," + P,
                "2:lock-keep:1," + OWNER + ",77", "2:redlock-undo:" + NEXT + "," + P);
    }

    @Test
    void aHandoffAMajorityConfirmedPastTheNewHoldsValidityIsReleased() {
        CompletableFuture<Long> token = handOver();
        List<Call> calls = quorum.next(RedlockDriver.HANDOFF);

        clock.advance(Duration.ofMillis(VALIDITY_MILLIS));
        answer(calls, handed(P), handed(P));

        assertThat(value(token)).isZero();
        assertThat(cleanups()).containsExactlyInAnyOrder(
                "0:lock-release:" + NEXT + "," + P + "," + KEYS.channel() + ",1,0,released " + P,
                "1:lock-release:" + NEXT + "," + P + "," + KEYS.channel() + ",1,0,released " + P);
    }

    @Test
    void aHandoffBeforeAnyMasterWasHeardIsAReleaseThatPublishes() {
        CompletableFuture<Long> released = redlock.handoff(hold(redlock, KEYS, OWNER, 77), request(redlock, KEYS));

        List<Call> calls = quorum.next(LockCalls.RELEASE);
        assertThat(calls.get(0).args.get(3)).isEqualTo("1");
        answer(calls, 0L, 0L, 0L);
        assertThat(value(released)).isZero();
    }

    @Test
    void aRenewalCountsOncePerHoldWhenAMajorityRenewedItWithinItsValidity() {
        Hold renewed = hold(redlock, KEYS, OWNER, 77, 1, ticker.nanos() + Duration.ofSeconds(10).toNanos());
        Hold gone = hold(redlock, KEYS, "inst-a:L2", 78, 1, ticker.nanos() + Duration.ofSeconds(10).toNanos());

        CompletableFuture<boolean[]> result = redlock.renew(List.of(renewed, gone), 30_000);

        List<Call> calls = quorum.next(LockCalls.RENEW);
        assertThat(calls.get(0).args).containsExactly("30000", OWNER, "77", "inst-a:L2", "78");
        answer(calls, List.of(1L, 0L), List.of(1L, 0L));
        assertThat(value(result)).containsExactly(true, false);
    }

    @Test
    void aRenewalConfirmedAfterTheHoldRanOutHereDoesNotCount() {
        Hold hold = hold(redlock, KEYS, OWNER, 77, 1, ticker.nanos() + Duration.ofSeconds(1).toNanos());
        CompletableFuture<boolean[]> result = redlock.renew(List.of(hold), 30_000);

        clock.advance(Duration.ofSeconds(1));
        answer(quorum.next(LockCalls.RENEW), List.of(1L), List.of(1L), List.of(1L));

        assertThat(value(result)).containsExactly(false);
    }

    @Test
    void aRenewalTooFewMastersAnsweredFailsAsUnavailable() {
        CompletableFuture<boolean[]> result = redlock.renew(List.of(hold(redlock, KEYS, OWNER, 77)), 30_000);

        answer(quorum.next(LockCalls.RENEW), List.of(1L), unreachable(), unreachable());

        assertThat(failure(result)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("too few Redlock masters answered the renewal of 'orders' (2 needed)");
    }

    @Test
    void aKeepIsSetOnceAMajoritySetItAndNeverLongerThanTheSitOut() {
        Hold hold = hold(redlock, KEYS, OWNER, 77);
        assertThatThrownBy(() -> redlock.keep(hold, 60_001)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("at most redlockMaxLease (60000 ms)");
        assertThat(quorum.calls(LockCalls.KEEP)).isEmpty();

        CompletableFuture<Boolean> kept = redlock.keep(hold, 5_000);
        List<Call> calls = quorum.next(LockCalls.KEEP);
        assertThat(calls.get(0).args).containsExactly("5000", OWNER, "77");
        answer(calls, 1L, 0L, 1L);
        assertThat(value(kept)).isTrue();

        CompletableFuture<Boolean> gone = redlock.keep(hold, 5_000);
        answer(quorum.next(LockCalls.KEEP), 0L, 0L, 0L);
        assertThat(value(gone)).isFalse();

        CompletableFuture<Boolean> unknown = redlock.keep(hold, 5_000);
        answer(quorum.next(LockCalls.KEEP), 1L, unreachable(), unreachable());
        assertThat(failure(unknown)).isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("too few masters answered to leave it to expire");
    }

    // ---- administration and views ----

    @Test
    void aForcedUnlockWaitsForEveryMasterAndSaysWhetherAnyHeldIt() {
        CompletableFuture<Boolean> held = redlock.forceUnlock(KEYS);
        List<Call> calls = quorum.next(LockCalls.FORCE_UNLOCK);
        assertThat(calls.get(0).args).containsExactly(KEYS.channel(), "0");

        answer(calls, 0L, 0L);
        assertThat(held).as("an administrative call waits for the slow ones").isNotDone();
        answer(calls, null, null, 1L);
        assertThat(value(held)).isTrue();
    }

    @Test
    void aForcedUnlockNeedsAMajorityToAnswer() {
        CompletableFuture<Boolean> held = redlock.forceUnlock(KEYS);

        answer(quorum.next(LockCalls.FORCE_UNLOCK), 1L, unreachable(), unreachable());

        assertThat(failure(held)).isInstanceOf(BatonUnavailableException.class)
                .hasMessage("Redlock 'orders': only 1 of 3 masters answered to force-unlock (2 needed)");
    }

    @Test
    void aRedlockIsLockedWhereAMajorityOfMastersHasTheLock() {
        quorum.master(0).present(KEYS.lock());
        assertThat(value(redlock.isLocked(KEYS))).isFalse();

        quorum.master(2).present(KEYS.lock());
        assertThat(value(redlock.isLocked(KEYS))).isTrue();
    }

    @Test
    void anInspectionNamesTheHolderAMajorityHasWithTheLeaseLeftOnThatMajorityAndTheHighestToken() {
        CompletableFuture<LockInfo> info = redlock.inspect(KEYS);

        answer(quorum.next(LockCalls.INSPECT),
                Arrays.asList(OWNER, "1", "77", HOLDER, 1_200L, "77"),
                Arrays.asList(OWNER, "1", "77", HOLDER, 900L, "77"),
                Arrays.asList(null, null, null, null, -2L, "80"));

        LockInfo read = value(info);
        assertThat(read.lastFencingToken()).isEqualTo(80);
        assertThat(read.holder()).contains(new LockInfo.Holder("inst-a", "host-a", 4242, "worker 7", true, 1,
                Duration.ofMillis(900), 77));
    }

    @Test
    void anInspectionWithoutAMajorityForAnyHolderShowsNone() {
        CompletableFuture<LockInfo> info = redlock.inspect(KEYS);

        answer(quorum.next(LockCalls.INSPECT),
                Arrays.asList(OWNER, "1", "77", HOLDER, 1_200L, "77"),
                Arrays.asList("inst-b:L1", "1", "78", "inst-b 1 host-b t", 900L, "78"),
                unreachable());

        assertThat(value(info).holder()).isEmpty();
        assertThat(value(info).lastFencingToken()).isEqualTo(78);
    }

    @Test
    void aRedlockIsAnExclusiveLockWhoseWaitersQueueLocally() {
        assertThat(redlock.type()).isEqualTo(LockType.LOCK);
        assertThat(redlock.localQueueing()).isTrue();
    }
}
