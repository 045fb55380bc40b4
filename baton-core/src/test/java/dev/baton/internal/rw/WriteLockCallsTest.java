package dev.baton.internal.rw;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.failure;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static dev.baton.internal.rw.ReadWriteFixture.KEYS;
import static dev.baton.internal.rw.ReadWriteFixture.RETENTION_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The write side's driver on a fake transport: {@code rw-write-acquire.lua}'s four keys and seven arguments (the
 * intent's life last, three re-check intervals but never under 2 s), the {@code {-1}} refusal of an upgrade turned
 * into {@link IllegalMonitorStateException}, the release's arguments, an abandon that always withdraws the intent and
 * reads the orphaned write hold, and a writer woken by both {@code "w"} and {@code "all"}.
 */
class WriteLockCallsTest {
    private final ReadWriteFixture rw = new ReadWriteFixture();
    private final FakeTransport redis = rw.redis;
    private final WriteLockCalls write = rw.write;

    @Test
    void aTrySendsTheFourKeysAndSevenArgumentsEndingWithTheIntentsLife() {
        CompletableFuture<Acquired> acquired = write.acquire(request(write, KEYS), true);

        FakeTransport.Call call = redis.next(WriteLockCalls.ACQUIRE, ReadWriteFixture.acquireKeys(),
                OWNER, "30000", HOLDER, RETENTION_MILLIS, "0", "1", "2000");
        call.reply(List.of(1L, 7L, 1L));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0));
    }

    @Test
    void anIntentLastsThreeRecheckIntervalsButNeverLessThanTwoSeconds() {
        assertThat(WriteLockCalls.intentMillis(Duration.ofMillis(100))).isEqualTo(2_000);
        assertThat(WriteLockCalls.intentMillis(Duration.ofSeconds(1))).isEqualTo(3_000);
    }

    @Test
    void aWriterRefusedWhileReadersHoldReadsTheirLease() {
        CompletableFuture<Acquired> refused = write.acquire(request(write, KEYS), true);

        redis.next(WriteLockCalls.ACQUIRE).reply(List.of(0L, 666L));

        assertThat(value(refused)).isEqualTo(new Acquired(false, 0, 0, 666));
    }

    @Test
    void anUpgradeRefusedByTheScriptFailsTheTryWithIllegalMonitorState() {
        CompletableFuture<Acquired> upgrade = write.acquire(request(write, KEYS), true);

        redis.next(WriteLockCalls.ACQUIRE).reply(List.of(-1L));

        assertThat(failure(upgrade)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("read-write lock 'catalog'")
                .hasMessageContaining("release the read lock first");
    }

    @Test
    void aReleaseSendsOwnerTokenChannelAndBothPublishModes() {
        CompletableFuture<Long> left = write.release(KEYS, OWNER, 7, false);

        FakeTransport.Call call = redis.next(WriteLockCalls.RELEASE, ReadWriteFixture.releaseKeys(),
                OWNER, "7", KEYS.channel(), "0", "0");
        call.reply(1L);
        assertThat(value(left)).isEqualTo(1);
    }

    @Test
    void anAbandonAlwaysWithdrawsTheIntentAndReadsTheOrphanedWriteHold() {
        CompletableFuture<Long> nothing = write.abandon(request(write, KEYS, OWNER, 1, 30_000, 5, 0), false);
        FakeTransport.Call call = redis.next(WriteLockCalls.ABANDON, List.of(KEYS.lock(), ReadWriteCalls.writers(KEYS)),
                OWNER, KEYS.channel(), "0", "5");
        call.reply(List.of(1L, 0L));
        assertThat(value(nothing)).isZero();

        CompletableFuture<Long> orphan = write.abandon(request(write, KEYS), true);
        redis.next(WriteLockCalls.ABANDON).reply(List.of(0L, 9L));
        assertThat(value(orphan)).isEqualTo(9);
    }

    @Test
    void aWriterTakesBothTheWriterMessageAndTheWakeAll() {
        AcquireRequest r = request(write, KEYS);
        assertThat(write.grantIn(WriteLockCalls.WRITER_MAY_GO, r)).isZero();
        assertThat(write.grantIn("all", r)).isZero();
    }

    @Test
    void aWriterQueuesNothingLocallySinceItsWaitHoldsReadersBack() {
        assertThat(write.type()).isEqualTo(LockType.WRITE);
        assertThat(write.localQueueing()).isFalse();
    }
}
