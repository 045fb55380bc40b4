package dev.baton.internal.rw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.engine.LockKeys;
import dev.baton.test.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each read-write lock script on its own, against real Redis, reply by reply as its header comment documents it. */
class ReadWriteScriptsIT {
    private static final String INTENT = "3000";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;
    private static StatefulRedisPubSubConnection<String, String> pubSub;
    private static final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

    private final LockKeys keys = ReadWriteCalls.keys("t", "doc");
    private final String readers = ReadWriteCalls.readers(keys);
    private final String writers = ReadWriteCalls.writers(keys);

    @BeforeAll
    static void connect() {
        client = RedisClient.create(redis.server().uri());
        connection = client.connect();
        commands = connection.sync();
        pubSub = client.connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(message);
            }
        });
    }

    @AfterAll
    static void disconnect() {
        pubSub.close();
        connection.close();
        client.shutdown();
    }

    @BeforeEach
    void listen() {
        pubSub.sync().subscribe(keys.channel());
        messages.clear();
    }

    @Test
    void readersShareTheLockEachWithItsOwnTokenAndLease() {
        List<Object> a = read("a", 10_000, 0, false);
        List<Object> b = read("b", 20_000, 0, false);
        assertThat(a.get(0)).isEqualTo(1L);
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat((Long) b.get(1)).as("each reader gets a token of its own").isGreaterThan((Long) a.get(1));
        assertThat(b.get(2)).isEqualTo(1L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("c:a", "1").containsEntry("t:a", a.get(1).toString())
                .containsEntry("h:b", "holder of b").doesNotContainKey("w");
        assertThat(commands.zcard(readers)).isEqualTo(2);
        assertThat(commands.pttl(keys.lock())).as("the longest lease").isBetween(15_000L, 20_000L);

        assertThat(read("a", 100, (Long) a.get(1), false)).as("re-entry keeps token and longer lease")
                .containsExactly(1L, a.get(1), 2L);
        assertThat(commands.zscore(readers, "a") - now()).isGreaterThan(5_000.0);

        assertThat(readRelease("a", (Long) a.get(1))).isEqualTo(1L);
        assertThat(readRelease("a", (Long) a.get(1))).isZero();
        assertThat(readRelease("a", (Long) a.get(1))).as("gone").isEqualTo(-1L);
        assertThat(commands.pttl(keys.lock())).isBetween(15_000L, 20_000L);
        assertThat(readRelease("b", (Long) b.get(1) - 1)).as("wrong token").isEqualTo(-1L);
        assertThat(readRelease("b", (Long) b.get(1))).isZero();
        assertThat(commands.exists(keys.lock(), readers, writers)).as("nothing left").isZero();
        assertThat(commands.exists(keys.counter())).isOne();
        assertThat(messages).as("nobody waited").isEmpty();
    }

    @Test
    void aWaitingWriterHoldsNewReadersBackAndGetsInWhenTheLastReaderLeaves() throws Exception {
        long a = (Long) read("a", 10_000, 0, false).get(1);
        assertThat(write("w", 10_000, 0, false)).as("a single try leaves no intent").element(0).isEqualTo(0L);
        assertThat(commands.exists(writers)).isZero();

        List<Object> refused = write("w", 10_000, 0, true);
        assertThat(refused.get(0)).isEqualTo(0L);
        assertThat((Long) refused.get(1)).as("comes back within a third of its intent").isBetween(1L, 1000L);
        assertThat(commands.zscore(writers, "w") - now()).isBetween(2000.0, 3000.0);
        assertThat(commands.pttl(writers)).isBetween(2000L, 3000L);

        List<Object> newReader = read("b", 10_000, 0, true);
        assertThat(newReader.get(0)).as("new readers queue behind the writer").isEqualTo(0L);
        assertThat((Long) newReader.get(1)).isBetween(1L, 3000L);
        assertThat(read("a", 10_000, a, false)).as("re-entries do not").containsExactly(1L, a, 2L);

        readRelease("a", a);
        assertThat(messages).isEmpty();
        assertThat(readRelease("a", a)).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("the last reader wakes a writer").isEqualTo("w");

        List<Object> w = write("w", 10_000, 0, true);
        assertThat(w.get(0)).isEqualTo(1L);
        assertThat((Long) w.get(1)).isGreaterThan(a);
        assertThat(commands.exists(writers)).as("its intent is gone").isZero();
        assertThat(commands.hget(keys.lock(), "waiters")).as("readers waited behind it").isEqualTo("1");
        assertThat(read("b", 10_000, 0, true).get(0)).isEqualTo(0L);

        assertThat(writeRelease("w", (Long) w.get(1))).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("every reader may go").isEqualTo("all");
        assertThat(commands.exists(keys.lock(), readers, writers)).isZero();
        assertThat(read("b", 10_000, 0, true).get(0)).isEqualTo(1L);
    }

    @Test
    void aWriterExcludesEveryoneElseAndReentersWithItsToken() throws Exception {
        long w = (Long) write("w", 10_000, 0, false).get(1);
        assertThat(commands.hgetall(keys.lock())).containsEntry("w", "w").containsEntry("wc", "1")
                .containsEntry("wt", Long.toString(w)).containsEntry("wh", "holder of w");
        assertThat(write("x", 10_000, 0, false).get(0)).isEqualTo(0L);
        List<Object> reader = read("r", 10_000, 0, true);
        assertThat(reader.get(0)).isEqualTo(0L);
        assertThat((Long) reader.get(1)).as("the writer's remaining lease").isBetween(8_000L, 10_000L);
        assertThat(write("w", 20_000, w, false)).containsExactly(1L, w, 2L);
        assertThat(commands.pttl(keys.lock())).isBetween(15_000L, 20_000L);
        assertThat(write("w", 10_000, 0, false).get(0)).as("a token it does not know: replaced").isEqualTo(1L);
        long replaced = Long.parseLong(commands.hget(keys.lock(), "wt"));
        assertThat(replaced).isGreaterThan(w);
        assertThat(writeRelease("w", w)).as("the replaced hold").isEqualTo(-1L);
        assertThat(writeRelease("w", replaced)).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("r waited").isEqualTo("all");
        assertThat(commands.exists(keys.lock(), readers, writers)).isZero();
    }

    @Test
    void anUpgradeIsRefusedAndLeavesNothingBehind() {
        long r = (Long) read("a", 10_000, 0, false).get(1);
        assertThat(write("a", 10_000, 0, true)).containsExactly(-1L);
        assertThat(commands.exists(writers)).isZero();
        assertThat(commands.hgetall(keys.lock())).doesNotContainKeys("w", "waiters");
        assertThat(readRelease("a", r)).isZero();
        assertThat(commands.exists(keys.lock(), readers, writers)).isZero();
    }

    @Test
    void aWriterMayTakeTheReadLockAndThenReleaseTheWriteLock() throws Exception {
        long w = (Long) write("a", 10_000, 0, false).get(1);
        assertThat(write("x", 10_000, 0, true).get(0)).isEqualTo(0L); // another writer waits
        List<Object> r = read("a", 10_000, 0, false);
        assertThat(r.get(0)).as("the writer reads, waiting writers notwithstanding").isEqualTo(1L);
        assertThat((Long) r.get(1)).isGreaterThan(w);
        assertThat(read("b", 10_000, 0, false).get(0)).isEqualTo(0L);
        assertThat(writeRelease("a", w)).isZero();
        assertThat(messages).as("x still waits for the downgraded reader").isEmpty();
        assertThat(write("x", 10_000, 0, true).get(0)).isEqualTo(0L);
        assertThat(readRelease("a", (Long) r.get(1))).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("w");
        assertThat(write("x", 10_000, 0, true).get(0)).isEqualTo(1L);
    }

    @Test
    void aCrashedReaderStopsCountingWhenItsOwnLeaseEnds() {
        read("crashed", 300, 0, false);
        long b = (Long) read("b", 10_000, 0, false).get(1);
        long w = write("w", 10_000, 0, true).get(0).equals(0L) ? 0 : -1;
        assertThat(w).isZero();
        assertThat(readRelease("b", b)).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> write("w", 10_000, 0, true).get(0).equals(1L));
        assertThat(commands.hkeys(keys.lock())).as("the crashed reader was purged")
                .noneMatch(f -> f.endsWith(":crashed"));
        assertThat(commands.exists(readers)).isZero();
    }

    @Test
    void aWaitingWriterThatDiedHoldsReadersBackOnlyUntilItsIntentLapses() {
        long a = (Long) read("a", 10_000, 0, false).get(1);
        eval(WriteLockCalls.ACQUIRE, "w", "10000", "holder of w", "60000", "0", "1", "300");
        assertThat(read("b", 10_000, 0, true).get(0)).isEqualTo(0L);
        await().atMost(Duration.ofSeconds(30)).until(() -> read("b", 10_000, 0, true).get(0).equals(1L));
        assertThat(commands.exists(writers)).isZero();
        readRelease("a", a);
    }

    @Test
    void abandonsReportTheHoldsOfTheirOwnerThatTheAttemptDidNotHaveBefore() {
        long w = (Long) write("w", 10_000, 0, false).get(1);
        assertThat(this.<List<Long>>writeAbandonReply("w", 0)).as("a write grant whose reply was lost")
                .containsExactly(0L, w);
        assertThat(this.<List<Long>>writeAbandonReply("w", w)).containsExactly(0L, 0L);
        long r = (Long) read("w", 10_000, w, false).get(1); // a downgrade: the writer reads too
        assertThat(readAbandon("w", 0)).as("a read grant whose reply was lost").isEqualTo(r);
        assertThat(readAbandon("w", r)).isZero();
        assertThat(readAbandon("x", 0)).isZero();
        assertThat(readRelease("w", r)).isZero();
        assertThat(writeRelease("w", w)).as("they only report: the holds are still w's").isZero();
    }

    @Test
    void aWriterThatGivesUpWithdrawsItsIntentAndLetsReadersGo() throws Exception {
        long a = (Long) read("a", 10_000, 0, false).get(1);
        write("w", 10_000, 0, true);
        assertThat(read("b", 10_000, 0, true).get(0)).isEqualTo(0L);
        assertThat(abandon("w")).isOne();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("all");
        assertThat(abandon("w")).as("nothing left to withdraw").isZero();
        assertThat(read("b", 10_000, 0, true).get(0)).isEqualTo(1L);
        assertThat(commands.exists(writers)).isZero();
        readRelease("a", a);
    }

    @Test
    void renewalExtendsEachHoldOnItsOwn() {
        long a = (Long) read("a", 1_000, 0, false).get(1);
        long b = (Long) read("b", 1_000, 0, false).get(1);
        List<Long> renewed = commands.eval(ReadWriteCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), readers, keys.lock(), readers, keys.lock(), readers}, "30000", "r",
                "a", Long.toString(a), "b", Long.toString(b - 1), "w", "1");
        assertThat(renewed).as("owned / earlier token / not a reader").containsExactly(1L, 0L, 0L);
        assertThat(commands.zscore(readers, "a") - now()).isGreaterThan(20_000.0);
        assertThat(commands.zscore(readers, "b") - now()).isLessThan(1_000.0);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(20_000L);
        assertThat(commands.pttl(readers)).isGreaterThan(20_000L);

        readRelease("a", a);
        readRelease("b", b);
        long w = (Long) write("w", 1_000, 0, false).get(1);
        renewed = commands.eval(ReadWriteCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), readers, keys.lock(), readers}, "30000", "w",
                "w", Long.toString(w), "w", Long.toString(w + 1));
        assertThat(renewed).containsExactly(1L, 0L);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(20_000L);
        assertThat(Long.parseLong(commands.hget(keys.lock(), "we")) - now()).isGreaterThan(20_000L);
    }

    @Test
    void aHoldWhoseLeaseRanOutCanNeitherBeRenewedNorReleased() {
        long a = (Long) read("a", 200, 0, false).get(1);
        long keep = (Long) read("keep", 30_000, 0, false).get(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> commands.zscore(readers, "a") < now());
        List<Long> renewed = commands.eval(ReadWriteCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), readers}, "30000", "r", "a", Long.toString(a));
        assertThat(renewed).containsExactly(0L);
        assertThat(readRelease("a", a)).isEqualTo(-1L);
        readRelease("keep", keep);
    }

    @Test
    void inspectReportsEachSide() {
        assertThat(inspect("r")).containsExactly(null, null, null, null, -2L, null, 0L);
        long a = (Long) read("a", 10_000, 0, false).get(1);
        long b = (Long) read("b", 20_000, 0, false).get(1);
        List<Object> r = inspect("r");
        assertThat(r.subList(0, 4)).as("the reader whose lease ends last")
                .containsExactly("b", "1", Long.toString(b), "holder of b");
        assertThat((Long) r.get(4)).isBetween(15_000L, 20_000L);
        assertThat(r.subList(5, 7)).containsExactly(Long.toString(b), 2L);
        assertThat(inspect("w")).containsExactly(null, null, null, null, -2L, Long.toString(b), 0L);
        readRelease("a", a);
        readRelease("b", b);
        long w = (Long) write("w", 10_000, 0, false).get(1);
        assertThat(inspect("w").subList(0, 4)).containsExactly("w", "1", Long.toString(w), "holder of w");
        assertThat(inspect("w").get(6)).isEqualTo(1L);
    }

    @Test
    void forceUnlockRemovesOneSide() throws Exception {
        long a = (Long) read("a", 10_000, 0, false).get(1);
        read("b", 10_000, 0, false);
        write("w", 10_000, 0, true);
        assertThat(forceUnlock("w")).as("no writer").isZero();
        assertThat(forceUnlock("r")).isOne();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("w");
        assertThat(readRelease("a", a)).isEqualTo(-1L);
        assertThat(commands.exists(keys.lock(), readers)).isZero();
        long w = (Long) write("w", 10_000, 0, true).get(1);
        assertThat(forceUnlock("w")).isOne();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("all");
        assertThat(writeRelease("w", w)).isEqualTo(-1L);
        assertThat(commands.exists(keys.lock(), readers, writers)).isZero();
        assertThat(commands.exists(keys.counter())).isOne();
    }

    private List<Object> read(String owner, long leaseMillis, long heldToken, boolean willWait) {
        return eval(ReadLockCalls.ACQUIRE, owner, Long.toString(leaseMillis), "holder of " + owner, "60000",
                Long.toString(heldToken), willWait ? "1" : "0");
    }

    private List<Object> write(String owner, long leaseMillis, long heldToken, boolean willWait) {
        return eval(WriteLockCalls.ACQUIRE, owner, Long.toString(leaseMillis), "holder of " + owner, "60000",
                Long.toString(heldToken), willWait ? "1" : "0", INTENT);
    }

    private List<Object> eval(dev.baton.internal.transport.Script script, String... args) {
        return commands.eval(script.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), readers, writers, keys.counter()}, args);
    }

    private long readRelease(String owner, long token) {
        return release(ReadLockCalls.RELEASE, owner, token);
    }

    private long writeRelease(String owner, long token) {
        return release(WriteLockCalls.RELEASE, owner, token);
    }

    private long release(dev.baton.internal.transport.Script script, String owner, long token) {
        return commands.eval(script.body(), ScriptOutputType.INTEGER, new String[] {keys.lock(), readers, writers},
                owner, Long.toString(token), keys.channel(), "0", "0");
    }

    /** Whether the abandon withdrew an intent of {@code owner}, which held nothing before it waited. */
    private long abandon(String owner) {
        return this.<List<Long>>writeAbandonReply(owner, 0).get(0);
    }

    /** {@code {withdrawn, orphan}} of rw-write-abandon.lua for an attempt that held {@code heldToken} before. */
    private <T> T writeAbandonReply(String owner, long heldToken) {
        return commands.eval(WriteLockCalls.ABANDON.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), writers}, owner, keys.channel(), "0", Long.toString(heldToken));
    }

    /** The orphan rw-read-abandon.lua reports for an attempt that held {@code heldToken} before. */
    private long readAbandon(String owner, long heldToken) {
        return commands.eval(ReadLockCalls.ABANDON.body(), ScriptOutputType.INTEGER, new String[] {keys.lock()},
                owner, Long.toString(heldToken));
    }

    private long forceUnlock(String side) {
        return commands.eval(ReadWriteCalls.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER,
                new String[] {keys.lock(), readers, writers}, side, keys.channel(), "0");
    }

    private List<Object> inspect(String side) {
        return commands.eval(ReadWriteCalls.INSPECT.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), readers, keys.counter()}, side);
    }

    /** Milliseconds on the Redis clock. */
    private static double now() {
        List<String> t = commands.time();
        return Long.parseLong(t.get(0)) * 1000.0 + Long.parseLong(t.get(1)) / 1000;
    }
}
