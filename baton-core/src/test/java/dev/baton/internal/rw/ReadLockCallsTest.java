package dev.baton.internal.rw;

import static dev.baton.internal.engine.DriverKit.HOLDER;
import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static dev.baton.internal.rw.ReadWriteFixture.KEYS;
import static dev.baton.internal.rw.ReadWriteFixture.RETENTION_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockDriver.Acquired;
import dev.baton.internal.transport.FakeTransport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The read side's driver on a fake transport: {@code rw-read-acquire.lua}'s four keys and six arguments, its grant,
 * re-entry and refusal replies, the release's arguments, an abandon that is only sent after a lost reply (readers
 * leave no mark while they wait) and reads a bare token, and a reader that ignores the {@code "w"} message meant for
 * writers.
 */
class ReadLockCallsTest {
    private final ReadWriteFixture rw = new ReadWriteFixture();
    private final FakeTransport redis = rw.redis;
    private final ReadLockCalls read = rw.read;

    @Test
    void aTrySendsTheFourKeysAndSixArgumentsAndReadsAGrant() {
        CompletableFuture<Acquired> acquired = read.acquire(request(read, KEYS), true);

        FakeTransport.Call call = redis.next(ReadLockCalls.ACQUIRE, ReadWriteFixture.acquireKeys(),
                OWNER, "30000", HOLDER, RETENTION_MILLIS, "0", "1");
        call.reply(List.of(1L, 7L, 1L));
        assertThat(value(acquired)).isEqualTo(new Acquired(true, 7, 1, 0));
    }

    @Test
    void aReEntryNamesItsTokenAndAReaderRefusedForAWriterReadsHowLongItIsBusy() {
        CompletableFuture<Acquired> again = read.acquire(request(read, KEYS, OWNER, 1, 30_000, 7, 0), false);
        FakeTransport.Call reentry = redis.next(ReadLockCalls.ACQUIRE);
        assertThat(reentry.args.get(4)).isEqualTo("7");
        assertThat(reentry.args.get(5)).isEqualTo("0");
        reentry.reply(List.of(1L, 7L, 2L));
        assertThat(value(again)).isEqualTo(new Acquired(true, 7, 2, 0));

        CompletableFuture<Acquired> refused = read.acquire(request(read, KEYS), true);
        redis.next(ReadLockCalls.ACQUIRE).reply(List.of(0L, 800L));
        assertThat(value(refused)).isEqualTo(new Acquired(false, 0, 0, 800));
    }

    @Test
    void aReleaseSendsOwnerTokenChannelAndBothPublishModes() {
        CompletableFuture<Long> left = read.release(KEYS, OWNER, 7, true);

        FakeTransport.Call call = redis.next(ReadLockCalls.RELEASE, ReadWriteFixture.releaseKeys(),
                OWNER, "7", KEYS.channel(), "1", "0");
        call.reply(-1L);
        assertThat(value(left)).isEqualTo(-1);
    }

    @Test
    void aWaitWhoseRepliesAllCameSendsNoAbandon() {
        assertThat(value(read.abandon(request(read, KEYS), false))).isZero();
        assertThat(redis.calls()).isEmpty();
    }

    @Test
    void anAbandonAfterALostReplyAsksForAReadHoldOfThisOwnerUnderAnotherToken() {
        CompletableFuture<Long> orphan = read.abandon(request(read, KEYS, OWNER, 1, 30_000, 5, 0), true);

        FakeTransport.Call call = redis.next(ReadLockCalls.ABANDON, List.of(KEYS.lock()), OWNER, "5");
        call.reply(9L);
        assertThat(value(orphan)).isEqualTo(9);
    }

    @Test
    void aReaderTakesEveryMessageButTheOneThatLetsAWriterGo() {
        AcquireRequest r = request(read, KEYS);
        assertThat(read.grantIn(WriteLockCalls.WRITER_MAY_GO, r)).isEqualTo(-1);
        assertThat(read.grantIn("all", r)).isZero();
        assertThat(read.grantIn("released", r)).isZero();
    }

    @Test
    void readersShareTheLockAndQueueNothingLocally() {
        assertThat(read.type()).isEqualTo(LockType.READ);
        assertThat(read.localQueueing()).isFalse();
    }
}
