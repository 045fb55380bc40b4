package dev.baton.internal.lock;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.runtime.ManualScheduler;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The plain mutex driver on a fake transport: the {@code KEYS} and {@code ARGV} of each {@code lock-*.lua} script in
 * the order its header gives, and how each reply is read. Also the bounded waits' part of the driver: a waiter claims
 * precedence (ten arguments instead of six) only once it has waited past the fairness threshold, sleeps no further than
 * that threshold before, withdraws a claim it may have made, and takes a {@code "next <owner>"} message only when it
 * names its own owner.
 */
class LockCallsTest {
    private static final LockKeys KEYS = LockKeys.of("baton", "orders");
    private static final Duration THRESHOLD = Duration.ofSeconds(2);
    /** Three re-check intervals of 500 ms. */
    private static final String CLAIM_MILLIS = "1500";
    private static final String RETENTION_MILLIS = "3600000";

    private final FakeTransport redis = new FakeTransport(Duration.ofSeconds(1));
    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler clock = new ManualScheduler(ticker);
    private final LockCalls lock = lockWith(redis, THRESHOLD);

    private LockCalls lockWith(FakeTransport transport, Duration threshold) {
        return new LockCalls(transport, Duration.ofHours(1), ticker, threshold, Duration.ofMillis(500));
    }

    /** A wait of {@code OWNER} that starts now. */
    private AcquireRequest waitFromNow() {
        return request(lock, KEYS, OWNER, 1, 30_000, 0, ticker.nanos());
    }

    private FakeTransport.Call onlyCall() {
        assertThat(redis.calls()).hasSize(1);
        return redis.calls().get(0);
    }

    @Test
    void aFirstTrySendsTheLockAndItsCounterAndSixArgumentsAndIsGrantedAFreshHold() {
        CompletableFuture<Acquired> acquired = lock.acquire(request(lock, KEYS), false);

        FakeTransport.Call call = redis.next(LockCalls.ACQUIRE, List.of(KEYS.lock(), KEYS.counter()),
                OWNER, "30000", HOLDER, RETENTION_MILLIS, "0", "0");
        call.reply(List.of(1L, 7L, 1L));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0));
    }

    @Test
    void aReEntryNamesTheTokenItHoldsAndReadsTheHoldCountRedisKeeps() {
        CompletableFuture<Acquired> acquired = lock.acquire(request(lock, KEYS, OWNER, 1, 5_000, 7, 0), false);

        FakeTransport.Call call = redis.next(LockCalls.ACQUIRE);
        assertThat(call.args).containsExactly(OWNER, "5000", HOLDER, RETENTION_MILLIS, "7", "0");
        call.reply(List.of(1L, 7L, 3L));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 3, 0));
    }

    @Test
    void aBusyLockIsReadAsTheHoldersRemainingLeaseAndAWaiterMarksTheLock() {
        CompletableFuture<Acquired> acquired = lock.acquire(waitFromNow(), true);

        FakeTransport.Call call = redis.next(LockCalls.ACQUIRE);
        assertThat(call.args).as("below the threshold: no claim").hasSize(6);
        assertThat(call.args.get(5)).as("will wait").isEqualTo("1");
        call.reply(List.of(0L, 1_234L));
        assertThat(value(acquired)).isEqualTo(new Acquired(false, 0, 0, 1_234));
    }

    /** The {@code ARGV} of a try of {@code driver} whose caller asked {@code waited} ago. */
    private List<String> argsOfATry(LockCalls driver, Duration waited, boolean willWait) {
        AcquireRequest r = waitFromNow();
        clock.advance(waited);
        driver.acquire(r, willWait);
        return redis.next(LockCalls.ACQUIRE).args;
    }

    @Test
    void aWaiterPastTheThresholdClaimsWithItsWaitTheClaimsLifeTheChannelAndThePublishMode() {
        assertThat(argsOfATry(lock, Duration.ofMillis(2_500), true)).containsExactly(OWNER, "30000", HOLDER,
                RETENTION_MILLIS, "0", "1", "2500", CLAIM_MILLIS, KEYS.channel(), "0");
    }

    @Test
    void aSingleTryNeverClaimsHoweverLongAgoItsCallerAsked() {
        assertThat(argsOfATry(lock, Duration.ofSeconds(10), false)).containsExactly(OWNER, "30000", HOLDER,
                RETENTION_MILLIS, "0", "0");
    }

    @Test
    void withoutAThresholdNoWaiterClaimsAndNoneSleepsShortForIt() {
        LockCalls unclaimed = lockWith(redis, Duration.ZERO);

        assertThat(argsOfATry(unclaimed, Duration.ofSeconds(10), true)).hasSize(6);
        AcquireRequest longAgo = request(unclaimed, KEYS, OWNER, 1, 30_000, 0, ticker.nanos() - 10_000_000_000L);
        assertThat(unclaimed.sleepLimitNanos(longAgo)).isEqualTo(Long.MAX_VALUE);
        assertThat(value(unclaimed.abandon(longAgo, false))).as("nothing to withdraw").isZero();
        assertThat(redis.calls(LockCalls.ABANDON)).isEmpty();
    }

    @Test
    void aWaiterSleepsAtMostUntilJustPastItsThresholdAndWithoutALimitOfItsOwnAfterIt() {
        AcquireRequest wait = waitFromNow();
        clock.advance(Duration.ofMillis(500));
        assertThat(lock.sleepLimitNanos(wait)).isEqualTo(Duration.ofMillis(1_501).toNanos());

        clock.advance(Duration.ofMillis(1_500));
        assertThat(lock.sleepLimitNanos(wait)).as("at the threshold: claims at its next try")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aReleaseNamesOwnerTokenChannelAndPublishModesAndPassesTheCountLeftOn() {
        CompletableFuture<Long> left = lock.release(KEYS, OWNER, 7, true);

        FakeTransport.Call call = onlyCall();
        assertThat(call.script).isSameAs(LockCalls.RELEASE);
        assertThat(call.keys).containsExactly(KEYS.lock());
        assertThat(call.args).containsExactly(OWNER, "7", KEYS.channel(), "1", "0");
        call.reply(2L);
        assertThat(value(left)).isEqualTo(2);

        lock.release(KEYS, OWNER, 7, false);
        assertThat(redis.calls().get(1).args.get(3)).as("only if waiters marked the lock").isEqualTo("0");
        redis.calls().get(1).reply(-1L);
    }

    @Test
    void aReleaseCallWithAMessageAnnouncesItInsteadOfThePlainReleased() {
        assertThat(LockCalls.releaseCall(KEYS, OWNER, 9, false, "0", "released 9").args()).containsExactly(OWNER, "9",
                KEYS.channel(), "0", "0", "released 9");
    }

    @Test
    void aHandoffNamesTheHoldItEndsAndTheRequestItGrantsAndReturnsTheNewToken() {
        AcquireRequest to = request(lock, KEYS, "inst-a:L2", 1, 10_000, 0, 0);

        CompletableFuture<Long> token = lock.handoff(hold(lock, KEYS, OWNER, 7), to);

        FakeTransport.Call call = redis.next(LockCalls.HANDOFF, List.of(KEYS.lock(), KEYS.counter()),
                OWNER, "7", "inst-a:L2", "10000", HOLDER, RETENTION_MILLIS, KEYS.channel(), "0");
        call.reply(12L);
        assertThat(value(token)).isEqualTo(12);
    }

    @Test
    void aNextMessageIsForTheOwnerItNamesAloneAndEveryOtherMessageIsAReasonToTry() {
        AcquireRequest mine = request(lock, KEYS);

        assertThat(lock.grantIn("next " + OWNER, mine)).isZero();
        assertThat(lock.grantIn("next inst-a:L12", mine)).as("an owner that merely starts alike").isEqualTo(-1);
        assertThat(lock.grantIn("next x" + OWNER, mine)).as("an owner that merely ends alike").isEqualTo(-1);
        assertThat(lock.grantIn("released", mine)).isZero();
        assertThat(lock.grantIn("unclaimed", mine)).isZero();
    }

    @Test
    void aWaiterBelowTheThresholdWhoseTriesWereAllAnsweredSendsNoAbandon() {
        assertThat(value(lock.abandon(waitFromNow(), false))).isZero();
        assertThat(redis.calls()).isEmpty();
    }

    @Test
    void anAbandonAfterALostReplyReportsTheOrphanedGrant() {
        CompletableFuture<Long> orphan = lock.abandon(request(lock, KEYS, OWNER, 1, 30_000, 5, ticker.nanos()), true);

        FakeTransport.Call call = redis.next(LockCalls.ABANDON, List.of(KEYS.lock()), OWNER, KEYS.channel(), "0", "5");
        call.reply(List.of(0L, 9L));
        assertThat(value(orphan)).isEqualTo(9);
    }

    @Test
    void aWaiterPastTheThresholdWithdrawsItsClaimEvenIfEveryReplyCame() {
        AcquireRequest wait = waitFromNow();
        clock.advance(THRESHOLD);

        CompletableFuture<Long> orphan = lock.abandon(wait, false);

        redis.next(LockCalls.ABANDON).reply(List.of(1L, 0L));
        assertThat(value(orphan)).isZero();
    }

    @Test
    void aRenewalSendsEachHoldsLockAsAKeyThenTheLeaseThenEachOwnerAndTokenAndReadsOneFlagPerHold() {
        LockKeys other = LockKeys.of("baton", "invoices");

        CompletableFuture<boolean[]> renewed = lock.renew(List.of(hold(lock, KEYS, OWNER, 7),
                hold(lock, other, "inst-a:t9", 8)), 30_000);

        FakeTransport.Call call = redis.next(LockCalls.RENEW, List.of(KEYS.lock(), other.lock()),
                "30000", OWNER, "7", "inst-a:t9", "8");
        call.reply(List.of(1L, 0L));
        assertThat(value(renewed)).containsExactly(true, false);
    }

    @Test
    void aKeepSetsTheExpiryOfTheHoldItNamesAndSaysWhetherItWasStillThere() {
        CompletableFuture<Boolean> kept = lock.keep(hold(lock, KEYS, OWNER, 7), 1_500);

        FakeTransport.Call call = redis.next(LockCalls.KEEP, List.of(KEYS.lock()), "1500", OWNER, "7");
        call.reply(1L);
        assertThat(value(kept)).isTrue();

        CompletableFuture<Boolean> gone = lock.keep(hold(lock, KEYS, OWNER, 7), 1_500);
        redis.next(LockCalls.KEEP).reply(0L);
        assertThat(value(gone)).isFalse();
    }

    @Test
    void aForcedUnlockAnnouncesOnTheChannelAndSaysWhetherTheLockWasHeld() {
        CompletableFuture<Boolean> held = lock.forceUnlock(KEYS);
        FakeTransport.Call call = redis.next(LockCalls.FORCE_UNLOCK, List.of(KEYS.lock()), KEYS.channel(), "0");
        call.reply(1L);
        assertThat(value(held)).isTrue();

        CompletableFuture<Boolean> free = lock.forceUnlock(KEYS);
        redis.next(LockCalls.FORCE_UNLOCK).reply(0L);
        assertThat(value(free)).isFalse();
    }

    @Test
    void anInspectionReadsHolderCountTokenDescriptionRemainingLeaseAndLastToken() {
        CompletableFuture<LockInfo> info = lock.inspect(KEYS);

        FakeTransport.Call call = redis.next(LockCalls.INSPECT);
        assertThat(call.keys).containsExactly(KEYS.lock(), KEYS.counter());
        assertThat(call.args).isEmpty();
        call.reply(Arrays.asList(OWNER, "2", "7", HOLDER, 1_200L, "9"));

        LockInfo read = value(info);
        assertThat(read.name()).isEqualTo("orders");
        assertThat(read.lastFencingToken()).isEqualTo(9);
        assertThat(read.holder()).contains(new LockInfo.Holder("inst-a", "host-a", 4242, "worker 7", true, 2,
                Duration.ofMillis(1_200), 7));
    }

    @Test
    void anInspectionOfAFreeLockWithNoTokenRememberedHasNoHolderAndToken0() {
        CompletableFuture<LockInfo> info = lock.inspect(KEYS);

        redis.next(LockCalls.INSPECT).reply(Arrays.asList(null, null, null, null, -2L, null));

        assertThat(value(info).holder()).isEmpty();
        assertThat(value(info).lastFencingToken()).isZero();
        assertThat(value(info).isLocked()).isFalse();
    }

    @Test
    void aHolderWithoutExpiryIsShownWithNoLeaseLeftRatherThanANegativeOne() {
        CompletableFuture<LockInfo> info = lock.inspect(KEYS);

        redis.next(LockCalls.INSPECT).reply(Arrays.asList("inst-a:t1", "1", "7", HOLDER, -1L, "7"));

        LockInfo.Holder holder = value(info).holder().orElseThrow();
        assertThat(holder.remainingLease()).isZero();
        assertThat(holder.leaseOwned()).as("a thread owner").isFalse();
    }

    @Test
    void isLockedAsksWhetherTheLockHashExists() {
        assertThat(value(lock.isLocked(KEYS))).isFalse();
        redis.present(KEYS.lock());
        assertThat(value(lock.isLocked(KEYS))).isTrue();
    }

    @Test
    void onShardedPubSubEveryScriptThatAnnouncesSaysSo() {
        FakeTransport sharded = new FakeTransport(Duration.ofSeconds(1)).sharded();
        LockCalls onShards = lockWith(sharded, THRESHOLD);
        AcquireRequest wait = waitFromNow();
        clock.advance(THRESHOLD);

        onShards.acquire(wait, true);
        onShards.release(KEYS, OWNER, 7, false);
        onShards.abandon(wait, true);
        onShards.forceUnlock(KEYS);
        onShards.handoff(hold(onShards, KEYS, OWNER, 7), wait);

        assertThat(sharded.next(LockCalls.ACQUIRE).args.get(9)).isEqualTo("1");
        assertThat(sharded.next(LockCalls.RELEASE).args.get(4)).isEqualTo("1");
        assertThat(sharded.next(LockCalls.ABANDON).args.get(2)).isEqualTo("1");
        assertThat(sharded.next(LockCalls.FORCE_UNLOCK).args.get(1)).isEqualTo("1");
        assertThat(sharded.next(LockCalls.HANDOFF).args.get(7)).isEqualTo("1");
    }

    @Test
    void aPlainLockIsExclusiveWithUnorderedWaitersAndHoldsForItsWholeLease() {
        assertThat(lock.type()).isEqualTo(LockType.LOCK);
        assertThat(lock.localQueueing()).isTrue();
        assertThat(lock.validityMillis(30_000)).isEqualTo(30_000);
    }
}
