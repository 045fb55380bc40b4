package dev.baton.internal.rw;

import static dev.baton.internal.engine.DriverKit.OWNER;
import static dev.baton.internal.engine.DriverKit.hold;
import static dev.baton.internal.engine.DriverKit.inspected;
import static dev.baton.internal.engine.DriverKit.inspectedHolder;
import static dev.baton.internal.engine.DriverKit.request;
import static dev.baton.internal.engine.DriverKit.value;
import static dev.baton.internal.rw.ReadWriteFixture.KEYS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What both sides of a read-write lock share, on a fake transport: the keys of one lock, the scripts that take a side
 * argument ({@code rw-renew.lua}, {@code rw-keep.lua}, {@code rw-force-unlock.lua}, {@code rw-inspect.lua}) with their
 * keys and arguments in order and their replies read, the name-inspect read that shows the whole lock whichever side
 * asks (a free lock named after the asking side), and the sharded publish mode in every script that announces.
 */
class ReadWriteCallsTest {
    private final ReadWriteFixture rw = new ReadWriteFixture();
    private final FakeTransport redis = rw.redis;

    @Test
    void everyKeyOfOneLockCarriesItsHashTag() {
        assertThat(KEYS.lock()).isEqualTo("baton:rw:{catalog}");
        assertThat(ReadWriteCalls.readers(KEYS)).isEqualTo("baton:rw:{catalog}:readers");
        assertThat(ReadWriteCalls.writers(KEYS)).isEqualTo("baton:rw:{catalog}:writers");
        assertThat(KEYS.counter()).isEqualTo("baton:rw:{catalog}:token");
        assertThat(KEYS.channel()).isEqualTo("baton:rw:{catalog}:released");
    }

    @Test
    void aRenewalSendsHoldsAndReadersOfEachLockThenLeaseSideAndEachOwnerAndToken() {
        LockKeys other = ReadWriteCalls.keys("baton", "prices");

        CompletableFuture<boolean[]> renewed = rw.read.renew(List.of(hold(rw.read, KEYS, OWNER, 7),
                hold(rw.read, other, "inst-a:L2", 8)), 30_000);

        List<String> keys = List.of(KEYS.lock(), ReadWriteCalls.readers(KEYS), other.lock(),
                ReadWriteCalls.readers(other));
        FakeTransport.Call call = redis.next(ReadWriteCalls.RENEW, keys, "30000", "r", OWNER, "7", "inst-a:L2", "8");
        call.reply(List.of(0L, 1L));
        assertThat(value(renewed)).containsExactly(false, true);

        rw.write.renew(List.of(hold(rw.write, KEYS, OWNER, 9)), 10_000);
        assertThat(redis.next(ReadWriteCalls.RENEW).args).containsExactly("10000", "w", OWNER, "9");
    }

    @Test
    void aKeepNamesTheSideOwnerAndTokenOfTheHoldAndSaysWhetherItWasSet() {
        CompletableFuture<Boolean> kept = rw.write.keep(hold(rw.write, KEYS, OWNER, 7), 250);

        FakeTransport.Call call = redis.next(ReadWriteCalls.KEEP, List.of(KEYS.lock(), ReadWriteCalls.readers(KEYS)),
                "250", "w", OWNER, "7");
        call.reply(1L);
        assertThat(value(kept)).isTrue();

        CompletableFuture<Boolean> gone = rw.read.keep(hold(rw.read, KEYS, OWNER, 7), 250);
        FakeTransport.Call readKeep = redis.next(ReadWriteCalls.KEEP);
        assertThat(readKeep.args.get(1)).isEqualTo("r");
        readKeep.reply(0L);
        assertThat(value(gone)).isFalse();
    }

    @Test
    void aForcedUnlockRemovesOneSideAndSaysWhetherItWasHeld() {
        CompletableFuture<Boolean> readers = rw.read.forceUnlock(KEYS);

        FakeTransport.Call call = redis.next(ReadWriteCalls.FORCE_UNLOCK, ReadWriteFixture.releaseKeys(),
                "r", KEYS.channel(), "0");
        call.reply(0L);
        assertThat(value(readers)).isFalse();

        CompletableFuture<Boolean> writer = rw.write.forceUnlock(KEYS);
        redis.next(ReadWriteCalls.FORCE_UNLOCK).reply(1L);
        assertThat(value(writer)).isTrue();
    }

    @Test
    void aSideIsLockedWhenTheInspectScriptCountsAHolderOnIt() {
        CompletableFuture<Boolean> readLocked = rw.read.isLocked(KEYS);

        FakeTransport.Call call = redis.next(ReadWriteCalls.INSPECT,
                List.of(KEYS.lock(), ReadWriteCalls.readers(KEYS), KEYS.counter()), "r");
        call.reply(Arrays.asList(OWNER, "1", "7", "h", 900L, "7", 3L));
        assertThat(value(readLocked)).isTrue();

        CompletableFuture<Boolean> writeLocked = rw.write.isLocked(KEYS);
        FakeTransport.Call writeSide = redis.next(ReadWriteCalls.INSPECT);
        assertThat(writeSide.args).containsExactly("w");
        writeSide.reply(Arrays.asList(null, null, null, null, -2L, "7", 0L));
        assertThat(value(writeLocked)).isFalse();
    }

    @Test
    void aFreeLockIsNamedAfterTheSideThatAsks() {
        CompletableFuture<LockInfo> asRead = rw.read.inspect(KEYS);
        CompletableFuture<LockInfo> asWrite = rw.write.inspect(KEYS);

        List<FakeTransport.Call> calls = redis.calls();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).keys).containsExactlyElementsOf(ReadWriteFixture.acquireKeys());
        assertThat(calls.get(0).args).containsExactly("R");
        calls.forEach(c -> c.reply(List.of(inspected("R", 4, 0, -1))));

        assertThat(value(asRead).kind()).isEqualTo(LockType.READ);
        assertThat(value(asWrite).kind()).isEqualTo(LockType.WRITE);
        assertThat(value(asWrite).isLocked()).isFalse();
        assertThat(value(asWrite).lastFencingToken()).isEqualTo(4);
    }

    @Test
    void aHeldLockIsNamedAfterItsStrongestHoldWithEveryHolderAndTheWaitingWriters() {
        CompletableFuture<LockInfo> info = rw.read.inspect(KEYS);

        redis.calls().get(0).reply(List.of(inspected("R", 9, 2, -1,
                inspectedHolder("inst-a:t3", "W", 2, 9, 1_000, 1),
                inspectedHolder(OWNER, "R", 1, 8, 500, 1))));

        LockInfo read = value(info);
        assertThat(read.kind()).isEqualTo(LockType.WRITE);
        assertThat(read.waiting()).isEqualTo(2);
        assertThat(read.allHolders()).extracting(LockInfo.Holder::kind).containsExactly(LockType.WRITE,
                LockType.READ);
        assertThat(read.allHolders()).extracting(LockInfo.Holder::leaseOwned).containsExactly(false, true);
        assertThat(read.holder().orElseThrow().holdCount()).isEqualTo(2);
        assertThat(read.allHolders().get(1).remainingLease()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void onShardedPubSubEveryScriptThatAnnouncesSaysSo() {
        ReadWriteFixture sharded = new ReadWriteFixture(new FakeTransport(Duration.ofSeconds(1)).sharded());

        sharded.read.release(KEYS, OWNER, 7, false);
        sharded.write.release(KEYS, OWNER, 7, false);
        sharded.write.abandon(request(sharded.write, KEYS), false);
        sharded.read.forceUnlock(KEYS);

        assertThat(sharded.redis.next(ReadLockCalls.RELEASE).args.get(4)).isEqualTo("1");
        assertThat(sharded.redis.next(WriteLockCalls.RELEASE).args.get(4)).isEqualTo("1");
        assertThat(sharded.redis.next(WriteLockCalls.ABANDON).args.get(2)).isEqualTo("1");
        assertThat(sharded.redis.next(ReadWriteCalls.FORCE_UNLOCK).args.get(2)).isEqualTo("1");
    }
}
