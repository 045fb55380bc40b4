package dev.baton.internal.lock;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.inspected;
import static dev.baton.internal.engine.DriverKit.inspectedHolder;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonConfig;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The fair lock's driver on a fake transport, call by call (its waits on the engine are {@link FairLockAttemptTest}'s):
 * the four keys every {@code fair-*.lua} script takes, each script's {@code ARGV} in order, the entry lifetime it
 * derives from the settings, the queued reply that carries the last token, the handoff message that only the named
 * owner takes, an abandon that reports nothing left to release, and the name-inspect read of the fair lock.
 */
class FairLockDriverTest {
    private static final LockKeys KEYS = FairLockDriver.keys("baton", "orders");
    private static final String RETENTION_MILLIS = "86400000";
    /** Three re-check intervals of 1 s and two command timeouts of 2 s. */
    private static final String ENTRY_LIFETIME_MILLIS = "7000";

    private final FakeTransport redis = new FakeTransport(Duration.ofSeconds(2));
    private final BatonConfig config = BatonConfig.builder().uri("redis://127.0.0.1:1")
            .recheckInterval(Duration.ofSeconds(1)).commandTimeout(Duration.ofSeconds(2)).build();
    private final LockCalls plain = new LockCalls(redis, config.fencingTokenRetention(), new FakeTicker(),
            Duration.ZERO, config.recheckInterval());
    private final FairLockDriver fair = new FairLockDriver(redis, config, plain);

    private static List<String> allKeys() {
        return List.of(KEYS.lock(), KEYS.counter(), FairLockDriver.queue(KEYS), FairLockDriver.waiters(KEYS));
    }

    @Test
    void theKeysOfAFairLockAreOfTheirOwnKindSoItNeverExcludesThePlainLockOfTheSameName() {
        assertThat(KEYS.lock()).isEqualTo("baton:fair:{orders}");
        assertThat(KEYS.counter()).isEqualTo("baton:fair:{orders}:token");
        assertThat(KEYS.channel()).isEqualTo("baton:fair:{orders}:released");
        assertThat(FairLockDriver.queue(KEYS)).isEqualTo("baton:fair:{orders}:queue");
        assertThat(FairLockDriver.waiters(KEYS)).isEqualTo("baton:fair:{orders}:waiters");
        assertThat(KEYS.lock()).isNotEqualTo(LockKeys.of("baton", "orders").lock());
    }

    @Test
    void aTrySendsTheFourKeysAndSevenArgumentsEndingWithTheEntryLifetime() {
        CompletableFuture<Acquired> acquired = fair.acquire(request(fair, KEYS, OWNER, 1, 10_000, 0, 0), true);

        FakeTransport.Call call = redis.next(FairLockDriver.ACQUIRE, allKeys(),
                OWNER, "10000", HOLDER, RETENTION_MILLIS, "0", "1", ENTRY_LIFETIME_MILLIS);
        call.reply(List.of(1L, 7L, 1L));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0, 0));
    }

    @Test
    void aQueuedReplyCarriesThePttlAndTheLastTokenIssued() {
        CompletableFuture<Acquired> acquired = fair.acquire(request(fair, KEYS), false);

        FakeTransport.Call call = redis.next(FairLockDriver.ACQUIRE);
        assertThat(call.args.get(5)).isEqualTo("0");
        call.reply(List.of(0L, 2_333L, 41L));
        assertThat(value(acquired)).isEqualTo(new Acquired(false, 0, 0, 2_333, 41));
    }

    @Test
    void theEntryLifetimeIsThreeRecheckIntervalsAndTwoCommandTimeouts() {
        assertThat(FairLockDriver.entryLifetimeMillis(config)).isEqualTo(7_000);
    }

    @Test
    void aReleaseSendsOwnerTokenChannelPublishModeAndRetentionAndIgnoresThePublishFlag() {
        CompletableFuture<Long> left = fair.release(KEYS, OWNER, 7, true);
        fair.release(KEYS, OWNER, 7, false);

        List<FakeTransport.Call> calls = redis.calls(FairLockDriver.RELEASE);
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).keys).containsExactlyElementsOf(allKeys());
        assertThat(calls.get(0).args).containsExactly(OWNER, "7", KEYS.channel(), "0", RETENTION_MILLIS);
        assertThat(calls.get(1).args).isEqualTo(calls.get(0).args);
        calls.get(0).reply(0L);
        assertThat(value(left)).isZero();
    }

    @Test
    void aHandoffMessageIsTheNamedOwnersTokenAndForEveryOtherWaiterNothing() {
        AcquireRequest mine = request(fair, KEYS);

        assertThat(fair.grantIn(OWNER + " 9", mine)).isEqualTo(9);
        assertThat(fair.grantIn("inst-b:L1 9", mine)).isEqualTo(-1);
        assertThat(fair.grantIn(OWNER + "0 9", mine)).as("an owner that merely starts alike").isEqualTo(-1);
        assertThat(fair.grantIn(OWNER + " nine", mine)).as("no token").isEqualTo(-1);
        assertThat(fair.grantIn("released", mine)).as("no owner named: a reason to try").isZero();
    }

    @Test
    void anAbandonLeavesTheQueueAndReportsNothingToReleaseWhetherOrNotItPassedALockOn() {
        CompletableFuture<Long> passedOn = fair.abandon(request(fair, KEYS, OWNER, 1, 10_000, 5, 0), true);
        FakeTransport.Call call = redis.next(FairLockDriver.ABANDON, allKeys(),
                OWNER, "5", KEYS.channel(), "0", RETENTION_MILLIS);
        call.reply(1L);
        assertThat(value(passedOn)).isZero();

        CompletableFuture<Long> left = fair.abandon(request(fair, KEYS), false);
        redis.next(FairLockDriver.ABANDON).reply(0L);
        assertThat(value(left)).isZero();
    }

    @Test
    void aForcedUnlockHandsTheLockOnAndSaysWhetherSomebodyHeldIt() {
        CompletableFuture<Boolean> held = fair.forceUnlock(KEYS);

        FakeTransport.Call call = redis.next(FairLockDriver.FORCE_UNLOCK, allKeys(),
                KEYS.channel(), "0", RETENTION_MILLIS);
        call.reply(1L);
        assertThat(value(held)).isTrue();
    }

    @Test
    void renewalAndKeepAreThePlainLocksScriptsOnTheSameHashLayout() {
        fair.renew(List.of(hold(fair, KEYS, OWNER, 7)), 30_000);
        fair.keep(hold(fair, KEYS, OWNER, 7), 500);

        assertThat(redis.next(LockCalls.RENEW).keys).containsExactly(KEYS.lock());
        assertThat(redis.next(LockCalls.KEEP).args).containsExactly("500", OWNER, "7");
    }

    @Test
    void anInspectionReadsTheFairLockAloneWithItsLiveWaiters() {
        CompletableFuture<LockInfo> info = fair.inspect(KEYS);

        FakeTransport.Call call = redis.calls().get(0);
        assertThat(call.keys).containsExactlyElementsOf(allKeys());
        assertThat(call.args).containsExactly("F");
        call.reply(List.of(inspected("F", 12, 2, -1, inspectedHolder(OWNER, "F", 1, 12, 900, 1))));

        LockInfo read = value(info);
        assertThat(read.kind()).isEqualTo(LockType.FAIR);
        assertThat(read.waiting()).isEqualTo(2);
        assertThat(read.lastFencingToken()).isEqualTo(12);
        assertThat(read.holder()).contains(new LockInfo.Holder("inst-a", "host-a", 4242, "worker 7", true, 1,
                Duration.ofMillis(900), 12, LockType.FAIR, 1));
    }

    @Test
    void isLockedAsksWhetherTheLockHashExists() {
        redis.present(KEYS.lock());
        assertThat(value(fair.isLocked(KEYS))).isTrue();
        assertThat(value(fair.isLocked(FairLockDriver.keys("baton", "invoices")))).isFalse();
    }

    @Test
    void aFairLockQueuesNoWaiterLocally() {
        assertThat(fair.type()).isEqualTo(LockType.FAIR);
        assertThat(fair.localQueueing()).isFalse();
    }
}
