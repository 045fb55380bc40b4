package dev.baton.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.engine.LockKeys;
import dev.baton.test.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each lock script on its own, against real Redis, reply by reply as its header comment documents it. */
class LockScriptsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;

    private final LockKeys keys = LockKeys.of("t", "job");

    @BeforeAll
    static void connect() {
        client = RedisClient.create(redis.server().uri());
        connection = client.connect();
        commands = connection.sync();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @Test
    void acquireGrantsReentersAndRefuses() {
        List<Object> first = acquire("a", 10_000);
        assertThat(first.get(0)).isEqualTo(1L);
        long token = (Long) first.get(1);
        assertThat(first.get(2)).isEqualTo(1L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "a").containsEntry("count", "1")
                .containsEntry("token", Long.toString(token)).containsEntry("holder", "holder of a");
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(token));
        assertThat(commands.pttl(keys.counter())).isBetween(50_000L, 60_000L);

        assertThat(acquire("a", 100)).as("re-entry keeps the longer lease").containsExactly(1L, token, 2L);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(5_000L);

        List<Object> refused = acquire("b", 10_000);
        assertThat(refused.get(0)).isEqualTo(0L);
        assertThat((Long) refused.get(1)).isBetween(1L, 10_000L);
    }

    @Test
    void anAcquisitionTheOwnerDoesNotKnowAboutIsReplacedNotReentered() {
        long forgotten = (Long) acquire("a", 10_000, 0).get(1); // say its reply was lost to a timeout
        List<Object> fresh = acquire("a", 10_000, 0);
        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(forgotten);
        assertThat(fresh.get(2)).as("a fresh hold, not a re-entry").isEqualTo(1L);
        assertThat(acquire("a", 10_000, (Long) fresh.get(1))).containsExactly(1L, fresh.get(1), 2L);
    }

    @Test
    void tokensComeFromRedisTimeAndNeverRepeat() {
        long before = micros(commands.time());
        long token = (Long) acquire("a", 10_000).get(1);
        assertThat(token).isGreaterThanOrEqualTo(before);
        commands.del(keys.lock());
        commands.set(keys.counter(), Long.toString(token + 1_000_000_000L)); // counter ahead of the clock
        assertThat((Long) acquire("b", 10_000).get(1)).isEqualTo(token + 1_000_000_001L);
    }

    @Test
    void releaseNeedsOwnerAndTokenAndPublishesAtZero() {
        long token = (Long) acquire("a", 10_000).get(1);
        acquire("a", 10_000);
        assertThat(release("b", token)).isEqualTo(-1L);
        assertThat(release("a", token + 1)).as("a stale token").isEqualTo(-1L);
        assertThat(release("a", token)).isEqualTo(1L);
        assertThat(release("a", token)).isEqualTo(0L);
        assertThat(commands.exists(keys.lock())).isZero();
        assertThat(commands.exists(keys.counter())).as("the counter outlives the lock").isOne();
        assertThat(release("a", token)).isEqualTo(-1L);
    }

    @Test
    void aReleasePublishesOnlyWhenSomebodyWaits() {
        long before = publishes();
        long token = (Long) acquire("a", 10_000).get(1);
        assertThat(release("a", token)).isZero();
        assertThat(publishes() - before).as("nobody waited").isZero();

        token = (Long) acquire("a", 10_000).get(1);
        List<Object> refused = commands.eval(LockCalls.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter()}, "b", "1000", "h", "60000", "0", "1");
        assertThat(refused.get(0)).isEqualTo(0L);
        assertThat(commands.hget(keys.lock(), "waiters")).isEqualTo("1");
        assertThat(release("a", token)).isZero();
        assertThat(publishes() - before).as("b waits").isOne();
    }

    @Test
    void handoffPassesTheLockWithANewTokenOnlyFromItsSoleHold() {
        long token = (Long) acquire("a", 10_000).get(1);
        acquire("a", 10_000);
        assertThat(handoff("a", token, "b")).as("a holds it twice").isEqualTo(-1L);
        release("a", token);
        assertThat(handoff("x", token, "b")).as("not the owner").isEqualTo(-1L);
        assertThat(handoff("a", token - 1, "b")).as("stale token").isEqualTo(-1L);
        long next = handoff("a", token, "b");
        assertThat(next).isGreaterThan(token);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "b").containsEntry("count", "1")
                .containsEntry("token", Long.toString(next)).containsEntry("holder", "holder of b");
        assertThat(commands.pttl(keys.lock())).isBetween(15_000L, 20_000L);
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(next));
        assertThat(release("a", token)).as("the old owner is out").isEqualTo(-1L);
        assertThat(release("b", next)).isZero();
    }

    @Test
    void renewExtendsOnlyLocksStillOwned() {
        LockKeys other = LockKeys.of("t", "other");
        LockKeys missing = LockKeys.of("t", "missing");
        String tokenA = acquire("a", 1_000).get(1).toString();
        List<Object> c = commands.eval(LockCalls.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {other.lock(), other.counter()}, "c", "1000", "h", "60000", "0", "0");
        String tokenC = c.get(1).toString();
        List<Long> renewed = commands.eval(LockCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), other.lock(), missing.lock(), other.lock()}, "30000",
                "a", tokenA, "not-c", tokenC, "a", tokenA, "c", "1");
        assertThat(renewed).as("owned / other owner / missing / right owner, earlier token")
                .containsExactly(1L, 0L, 0L, 0L);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(20_000L);
        assertThat(commands.pttl(other.lock())).isLessThanOrEqualTo(1_000L);
        assertThat(commands.exists(missing.lock())).as("renewal never creates a lock").isZero();
    }

    @Test
    void forceUnlockDeletesWhoeverHoldsIt() {
        acquire("a", 10_000);
        assertThat((Long) commands.eval(LockCalls.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER,
                new String[] {keys.lock()}, keys.channel())).isOne();
        assertThat((Long) commands.eval(LockCalls.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER,
                new String[] {keys.lock()}, keys.channel())).isZero();
        assertThat(commands.exists(keys.counter())).isOne();

        long token = (Long) acquire("a", 10_000).get(1);
        claim("b", 5_000);
        release("a", token); // free, claimed by b
        assertThat((Long) commands.eval(LockCalls.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER,
                new String[] {keys.lock()}, keys.channel())).as("nobody held it").isZero();
        assertThat(commands.exists(keys.lock())).as("the claim went with it").isZero();
    }

    @Test
    void inspectReadsEverythingAtOnce() {
        List<Object> free = inspect();
        assertThat(free).containsExactly(null, null, null, null, -2L, null);
        long token = (Long) acquire("a", 10_000).get(1);
        List<Object> held = inspect();
        assertThat(held.subList(0, 4)).containsExactly("a", "1", Long.toString(token), "holder of a");
        assertThat((Long) held.get(4)).isBetween(1L, 10_000L);
        assertThat(held.get(5)).isEqualTo(Long.toString(token));
    }

    @Test
    void aClaimantPastItsThresholdGetsTheLockNextAndNobodyElse() {
        long token = (Long) acquire("a", 10_000).get(1);
        List<Object> claimed = claim("b", 5_000);
        assertThat(claimed.get(0)).isEqualTo(0L);
        assertThat((Long) claimed.get(1)).as("a claimant comes back within a third of the claim").isBetween(1L, 1_000L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "a").containsEntry("next", "b")
                .containsKeys("next_since", "next_until", "waiters");
        assertThat(acquire("c", 10_000).get(0)).isEqualTo(0L);

        List<String> messages = listen(() -> assertThat(release("a", token)).isZero());
        assertThat(messages).as("the release wakes the claimant by name").containsExactly("next b");
        assertThat(commands.hget(keys.lock(), "owner")).as("free").isNull();
        assertThat(commands.pttl(keys.lock())).as("the hash lives as long as the claim").isBetween(1L, 3_000L);

        List<Object> refused = acquire("c", 10_000);
        assertThat(refused.get(0)).as("free, but claimed by b").isEqualTo(0L);
        assertThat((Long) refused.get(1)).as("what is left of the claim").isBetween(1L, 3_000L);
        List<Object> granted = new java.util.ArrayList<>();
        assertThat(listen(() -> granted.addAll(claim("b", 5_100))))
                .as("c waits: the claimant's grant wakes the others, to claim next").containsExactly("unclaimed");
        assertThat(granted.get(0)).isEqualTo(1L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "b").containsEntry("waiters", "1")
                .doesNotContainKeys("next", "next_since", "next_until");

        List<String> plain = listen(() -> assertThat(release("b", (Long) granted.get(1))).isZero());
        assertThat(plain).as("c waits: a plain release").containsExactly("released");
        assertThat(commands.exists(keys.lock())).isZero();
    }

    @Test
    void theLongestWaiterTakesTheClaimOver() {
        long token = (Long) acquire("a", 10_000).get(1);
        claim("b", 1_000);
        claim("c", 5_000);
        assertThat(commands.hget(keys.lock(), "next")).isEqualTo("c");
        claim("b", 1_100);
        assertThat(commands.hget(keys.lock(), "next")).as("b has waited less").isEqualTo("c");

        release("a", token); // free, claimed by c
        assertThat(claim("b", 1_200).get(0)).isEqualTo(0L);
        assertThat(claim("d", 60_000).get(0)).as("free, and d waited longer than the claimant").isEqualTo(1L);
        assertThat(commands.hget(keys.lock(), "next")).isNull();
    }

    @Test
    void aClaimThatRanOutNoLongerStandsInTheWay() {
        long token = (Long) acquire("a", 10_000).get(1);
        claim("b", 5_000);
        commands.hset(keys.lock(), "next_until", "1"); // long ago: the claimant died or stopped trying

        List<String> messages = listen(() -> assertThat(release("a", token)).isZero());
        assertThat(messages).as("an ordinary release").containsExactly("released");
        assertThat(commands.exists(keys.lock())).isZero();

        long c = (Long) acquire("c", 10_000).get(1);
        claim("b", 6_000);
        release("c", c);
        commands.hset(keys.lock(), "next_until", "1");
        assertThat(acquire("d", 10_000).get(0)).isEqualTo(1L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "d").doesNotContainKey("next");
    }

    @Test
    void aLocalHandoffNeverBypassesAForeignClaimant() {
        long token = (Long) acquire("a", 10_000).get(1);
        claim("x", 5_000);
        List<String> messages = listen(() -> assertThat(handoff("a", token, "b")).as("released instead").isZero());
        assertThat(messages).containsExactly("next x");
        assertThat(commands.hget(keys.lock(), "owner")).isNull();
        assertThat(commands.hget(keys.lock(), "next")).isEqualTo("x");

        long x = (Long) claim("x", 5_100).get(1);
        claim("y", 5_000);
        long y = handoff("x", x, "y");
        assertThat(y).as("handed to the claimant itself").isGreaterThan(x);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "y").containsEntry("count", "1")
                .containsEntry("token", Long.toString(y)).doesNotContainKey("next");
    }

    @Test
    void anAbandonReportsAGrantOfItsOwnerThatTheAttemptDidNotHaveBefore() {
        long token = (Long) acquire("a", 10_000).get(1);
        assertThat(abandonReply("a", 0)).as("a fresh attempt's grant whose reply was lost").containsExactly(0L, token);
        assertThat(abandonReply("a", token)).as("a re-entry's outer hold is the caller's").containsExactly(0L, 0L);
        assertThat(abandonReply("b", 0)).as("another owner's hold is none of its business").containsExactly(0L, 0L);
        assertThat(commands.hget(keys.lock(), "owner")).as("it only reports: the release is precise").isEqualTo("a");
    }

    @Test
    void aClaimantThatGivesUpWithdrawsItsClaim() {
        long token = (Long) acquire("a", 10_000).get(1);
        claim("b", 5_000);
        assertThat(abandon("c")).as("not c's claim").isZero();
        assertThat(abandon("b")).isOne();
        assertThat(acquire("c", 10_000).get(0)).isEqualTo(0L);
        assertThat(listen(() -> release("a", token))).as("no claim left: an ordinary release")
                .containsExactly("released");

        long again = (Long) acquire("a", 10_000).get(1);
        claim("b", 5_000);
        release("a", again);
        List<String> messages = listen(() -> assertThat(abandon("b")).isOne());
        assertThat(messages).as("the free lock waited for b alone: the others are woken").containsExactly("released");
        assertThat(commands.exists(keys.lock())).isZero();
    }

    private List<Object> acquire(String owner, long leaseMillis) {
        return acquire(owner, leaseMillis, heldToken(owner));
    }

    private List<Object> acquire(String owner, long leaseMillis, long heldToken) {
        return commands.eval(LockCalls.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter()}, owner, Long.toString(leaseMillis), "holder of " + owner,
                "60000", Long.toString(heldToken), "1");
    }

    /** The token the owner holds, as a caller that tracks its holds would pass it. */
    private long heldToken(String owner) {
        return owner.equals(commands.hget(keys.lock(), "owner")) ? Long.parseLong(commands.hget(keys.lock(), "token"))
                : 0;
    }

    /** A try of a waiter that has waited {@code waitedMillis}, past its threshold, with claims lasting 3 s. */
    private List<Object> claim(String owner, long waitedMillis) {
        return commands.eval(LockCalls.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter()}, owner, "10000", "holder of " + owner, "60000", "0", "1",
                Long.toString(waitedMillis), "3000", keys.channel(), "0");
    }

    /** Whether the abandon withdrew a claim of {@code owner}, which held nothing before it waited. */
    private long abandon(String owner) {
        return abandonReply(owner, 0).get(0);
    }

    /** {@code {withdrawn, orphan}}: the abandon of an attempt of {@code owner} that held {@code heldToken} before. */
    private List<Long> abandonReply(String owner, long heldToken) {
        return commands.eval(LockCalls.ABANDON.body(), ScriptOutputType.MULTI, new String[] {keys.lock()}, owner,
                keys.channel(), "0", Long.toString(heldToken));
    }

    /** The messages published on the lock's channel while {@code action} runs. */
    private List<String> listen(Runnable action) {
        List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub()) {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    messages.add(message);
                }
            });
            pubSub.sync().subscribe(keys.channel());
            action.run();
            commands.publish(keys.channel(), "end");
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> messages.contains("end"));
        }
        messages.remove("end");
        return messages;
    }

    private long release(String owner, long token) {
        return commands.eval(LockCalls.RELEASE.body(), ScriptOutputType.INTEGER, new String[] {keys.lock()},
                owner, Long.toString(token), keys.channel(), "0", "0");
    }

    private long handoff(String from, long token, String to) {
        return commands.eval(LockCalls.HANDOFF.body(), ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.counter()}, from, Long.toString(token), to, "20000", "holder of " + to,
                "60000", keys.channel(), "0");
    }

    /** PUBLISH calls so far, including those made inside scripts. */
    private long publishes() {
        return redis.server().command("INFO", "commandstats").lines()
                .filter(l -> l.startsWith("cmdstat_publish:")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("^[^:]+:calls=(\\d+),.*", "$1"))).orElse(0L);
    }

    private List<Object> inspect() {
        return commands.eval(LockCalls.INSPECT.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter()});
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }
}
