package dev.baton.internal.semaphore;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.failure;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.baton.BatonConfig;
import dev.baton.LockType;
import dev.baton.SemaphoreInfo;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.transport.FakeTransport;
import dev.baton.support.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's driver on a fake transport: the six keys of a semaphore, each {@code semaphore-*.lua} script's
 * {@code KEYS} and {@code ARGV} in order, its three acquire replies (granted with the stored total, not now, never:
 * fewer permits in total than asked for), the warning given once per name when the stored total is not the one asked
 * for (and not after a deliberate {@code setPermits}), the counts and the operators' snapshot read from the inspect
 * script, and what a semaphore does not offer (a lock's inspection, a forced unlock, a delayed release).
 */
class SemaphoreCallsTest {
    private static final LockKeys KEYS = SemaphoreCalls.keys("baton", "pool");
    private static final String WARNING = "semaphore 'pool' has 8 permits in Redis; asked for 4";

    private final FakeTransport redis = new FakeTransport(Duration.ofSeconds(1));
    private final SemaphoreCalls semaphore = new SemaphoreCalls(redis, 86_400_000, 5_000, 4, new SemaphoreTotals());
    private final LogCapture log = LogCapture.start();

    @AfterEach
    void stopCapture() {
        log.close();
    }

    private static List<String> fiveKeys() {
        return List.of(KEYS.lock(), SemaphoreCalls.holders(KEYS), SemaphoreCalls.expiry(KEYS),
                SemaphoreCalls.queue(KEYS), SemaphoreCalls.waiters(KEYS));
    }

    /** What the acquire and inspect scripts take: the five keys and the fencing counter. */
    private static List<String> sixKeys() {
        List<String> keys = new ArrayList<>(fiveKeys());
        keys.add(KEYS.counter());
        return keys;
    }

    private static AcquireRequest threePermits() {
        return request(null, KEYS, OWNER, 3, 30_000, 0, 0);
    }

    private CompletableFuture<Acquired> acquireAnswered(List<Long> reply) {
        CompletableFuture<Acquired> acquired = semaphore.acquire(threePermits(), true);
        redis.next(SemaphoreCalls.ACQUIRE).reply(reply);
        return acquired;
    }

    private List<String> warnings() {
        return log.lines(Level.WARN, "semaphore 'pool'");
    }

    @Test
    void everyKeyOfASemaphoreCarriesItsHashTag() {
        assertThat(fiveKeys()).containsExactly("baton:semaphore:{pool}", "baton:semaphore:{pool}:holders",
                "baton:semaphore:{pool}:expiry", "baton:semaphore:{pool}:queue", "baton:semaphore:{pool}:waiters");
        assertThat(KEYS.counter()).isEqualTo("baton:semaphore:{pool}:token");
    }

    @Test
    void aTrySendsSixKeysAndTenArgumentsAndAGrantWithTheTotalAskedForWarnsOfNothing() {
        CompletableFuture<Acquired> acquired = semaphore.acquire(threePermits(), true);

        FakeTransport.Call call = redis.next(SemaphoreCalls.ACQUIRE, sixKeys(), OWNER, "3", "30000", HOLDER, "86400000",
                "4", "1", "5000", KEYS.channel(), "0");
        call.reply(List.of(1L, 7L, 4L));

        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0));
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aGrantUnderAnotherStoredTotalWarnsOncePerName() {
        acquireAnswered(List.of(1L, 7L, 8L));
        acquireAnswered(List.of(1L, 8L, 8L));

        assertThat(warnings()).singleElement().asString().contains(WARNING);
    }

    @Test
    void notNowIsReadAsTheHintOfTheNextLeaseToRunOut() {
        assertThat(value(acquireAnswered(List.of(0L, 1_500L)))).isEqualTo(new Acquired(false, 0, 0, 1_500));
    }

    @Test
    void moreThanTheTotalIsRefusedForGoodWithIllegalArgument() {
        CompletableFuture<Acquired> never = acquireAnswered(List.of(-1L, 2L));

        assertThat(failure(never)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("semaphore 'pool' has 2 permits in total, fewer than the 3 asked for");
    }

    @Test
    void aReleaseSendsSixKeysOwnerTokenChannelPublishModeAndRetentionWhateverThePublishFlag() {
        CompletableFuture<Long> released = semaphore.release(KEYS, OWNER, 7, true);
        semaphore.release(KEYS, OWNER, 7, false);

        List<FakeTransport.Call> calls = redis.calls(SemaphoreCalls.RELEASE);
        assertThat(calls.get(0).keys).as("the counter too: a release mints the tokens of the permits it hands on")
                .containsExactlyElementsOf(sixKeys());
        assertThat(calls.get(0).args).containsExactly(OWNER, "7", KEYS.channel(), "0", "86400000");
        assertThat(calls.get(1).args).isEqualTo(calls.get(0).args);
        calls.get(0).reply(-1L);
        assertThat(value(released)).isEqualTo(-1);
    }

    @Test
    void aRenewalSendsThreeKeysPerLeaseThenLeaseRetentionAndEachOwnerAndToken() {
        LockKeys other = SemaphoreCalls.keys("baton", "pool-2");

        CompletableFuture<boolean[]> renewed = semaphore.renew(List.of(hold(semaphore, KEYS, OWNER, 7),
                hold(semaphore, other, "inst-a:L2", 8)), 30_000);

        List<String> keys = List.of(KEYS.lock(), SemaphoreCalls.holders(KEYS), SemaphoreCalls.expiry(KEYS),
                other.lock(), SemaphoreCalls.holders(other), SemaphoreCalls.expiry(other));
        FakeTransport.Call call = redis.next(SemaphoreCalls.RENEW, keys, "30000", "86400000", OWNER, "7", "inst-a:L2",
                "8");
        call.reply(List.of(1L, 0L));
        assertThat(value(renewed)).containsExactly(true, false);
    }

    @Test
    void anAbandonLeavesTheQueueAndReadsTheOrphanedLease() {
        CompletableFuture<Long> orphan = semaphore.abandon(request(semaphore, KEYS, OWNER, 2, 30_000, 5, 0), true);

        FakeTransport.Call call = redis.next(SemaphoreCalls.ABANDON, sixKeys(), OWNER, KEYS.channel(), "0", "5",
                "86400000");
        call.reply(List.of(1L, 9L));
        assertThat(value(orphan)).isEqualTo(9);
    }

    @Test
    void aWaiterTakesTheMessagesForAnyoneAndTheHandoffNamingItButNotOneNamingAnother() {
        AcquireRequest r = threePermits();
        assertThat(semaphore.grantIn("released", r)).isZero();
        assertThat(semaphore.grantIn("all", r)).isZero();
        assertThat(semaphore.grantIn(OWNER + " 1700000000000042", r)).as("permits handed to this waiter: its token")
                .isEqualTo(1_700_000_000_000_042L);
        assertThat(semaphore.grantIn("inst-b:L4 1700000000000042", r)).isEqualTo(-1);
        assertThat(semaphore.grantIn(OWNER + "0 12", r)).as("an owner id that merely starts with this one")
                .isEqualTo(-1);
        assertThat(semaphore.grantIn(OWNER + " x", r)).as("garbled: not a grant").isEqualTo(-1);
    }

    @Test
    void settingThePermitsSendsTheTotalAndWakesWaitersAndSilencesTheWarningForThatName() {
        CompletableFuture<Long> previous = semaphore.setPermits(KEYS, 8);

        FakeTransport.Call call = redis.next(SemaphoreCalls.SET_PERMITS, List.of(KEYS.lock(),
                SemaphoreCalls.queue(KEYS)), "8", "86400000", KEYS.channel(), "0");
        call.reply(4L);
        assertThat(value(previous)).isEqualTo(4);

        acquireAnswered(List.of(1L, 7L, 8L));
        assertThat(warnings()).as("set deliberately by this Baton").isEmpty();
    }

    @Test
    void theCountsOfANewSemaphoreAreTheTotalAskedFor() {
        CompletableFuture<SemaphoreCalls.Counts> counts = semaphore.counts(KEYS);

        FakeTransport.Call call = redis.next(SemaphoreCalls.INSPECT, sixKeys(), "0");
        call.reply(List.of(-1L, 0L, 0L, 0L));

        assertThat(value(counts)).isEqualTo(new SemaphoreCalls.Counts(4, 0));
        assertThat(value(counts).available()).isEqualTo(4);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void theCountsOfAStoredTotalWarnIfItIsNotTheOneAskedForAndNeverShowFewerThanNoPermitsFree() {
        CompletableFuture<SemaphoreCalls.Counts> counts = semaphore.counts(KEYS);
        redis.next(SemaphoreCalls.INSPECT).reply(List.of(8L, 9L, 0L, 3L));

        assertThat(value(counts)).isEqualTo(new SemaphoreCalls.Counts(8, 9));
        assertThat(value(counts).available()).as("a total cut below what is held").isZero();
        assertThat(warnings()).singleElement().asString().contains(WARNING);
    }

    @Test
    void theSnapshotListsEveryLiveLeaseWithItsPermitsAndTheWaiters() {
        CompletableFuture<SemaphoreInfo> info = semaphore.inspectSemaphore(KEYS);

        FakeTransport.Call call = redis.next(SemaphoreCalls.INSPECT);
        assertThat(call.args).containsExactly("1");
        call.reply(List.of(4L, 3L, 1L, 12L,
                OWNER, "11 2 " + HOLDER, 900L,
                "inst-b:L4", "12 1 inst-b 77 host-b", -5L));

        assertThat(value(info)).isEqualTo(new SemaphoreInfo("pool", 4, 1, List.of(
                new SemaphoreInfo.Holder("inst-a", "host-a", 4242, "worker 7", 2, Duration.ofMillis(900), 11),
                new SemaphoreInfo.Holder("inst-b", "host-b", 77, "", 1, Duration.ZERO, 12)), 1, 12));
    }

    @Test
    void aSemaphoreIsLockedWhileAnyPermitIsHeld() {
        CompletableFuture<Boolean> held = semaphore.isLocked(KEYS);
        redis.next(SemaphoreCalls.INSPECT).reply(List.of(4L, 1L, 0L, 3L));
        assertThat(value(held)).isTrue();

        CompletableFuture<Boolean> free = semaphore.isLocked(KEYS);
        redis.next(SemaphoreCalls.INSPECT).reply(List.of(4L, 0L, 0L, 3L));
        assertThat(value(free)).isFalse();
    }

    @Test
    void aForcedReleaseRemovesEveryLeaseInOneScriptAndSaysWhetherThereWasAny() {
        CompletableFuture<Boolean> removed = semaphore.forceUnlock(KEYS);
        redis.next(SemaphoreCalls.FORCE_RELEASE).reply(2L);
        assertThat(value(removed)).isTrue();

        CompletableFuture<Boolean> none = semaphore.forceUnlock(KEYS);
        redis.next(SemaphoreCalls.FORCE_RELEASE).reply(0L);
        assertThat(value(none)).isFalse();
    }

    @Test
    void aSemaphoreOffersNoLockInspectionAndNoDelayedReleaseAndSendsNothingForThem() {
        assertThat(failure(semaphore.inspect(KEYS))).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("DistributedSemaphore.inspect()");
        assertThatThrownBy(() -> semaphore.keep(hold(semaphore, KEYS, OWNER, 7), 100))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(redis.calls()).isEmpty();
    }

    @Test
    void aDriverForAnEngineTakesItsRetentionAndAWaitersPlaceOfOneRecheckAndTwoCommandTimeouts() {
        BatonConfig config = BatonConfig.builder().uri("redis://127.0.0.1:1").recheckInterval(Duration.ofSeconds(1))
                .commandTimeout(Duration.ofSeconds(2)).fencingTokenRetention(Duration.ofHours(1)).build();
        SemaphoreTotals totals = new SemaphoreTotals();

        SemaphoreCalls driver = SemaphoreCalls.of(redis, config, 4, totals);

        assertThat(driver).isEqualTo(new SemaphoreCalls(redis, 3_600_000, 5_000, 4, totals))
                .as("a value: the watchdog renews equal drivers in one batch")
                .isEqualTo(SemaphoreCalls.of(redis, config, 4, totals));
        assertThat(driver.type()).isEqualTo(LockType.SEMAPHORE);
        assertThat(driver.localQueueing()).isFalse();
    }

    @Test
    void onShardedPubSubEveryScriptThatAnnouncesSaysSo() {
        FakeTransport sharded = new FakeTransport(Duration.ofSeconds(1)).sharded();
        SemaphoreCalls onShards = new SemaphoreCalls(sharded, 86_400_000, 5_000, 4, new SemaphoreTotals());

        onShards.acquire(threePermits(), true);
        onShards.release(KEYS, OWNER, 7, false);
        onShards.abandon(threePermits(), false);
        onShards.setPermits(KEYS, 5);

        assertThat(sharded.next(SemaphoreCalls.ACQUIRE).args.get(9)).isEqualTo("1");
        assertThat(sharded.next(SemaphoreCalls.RELEASE).args.get(3)).isEqualTo("1");
        assertThat(sharded.next(SemaphoreCalls.ABANDON).args.get(2)).isEqualTo("1");
        assertThat(sharded.next(SemaphoreCalls.SET_PERMITS).args.get(3)).isEqualTo("1");
    }
}
