package dev.baton.internal.lock;

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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each fair-lock script on its own, against real Redis, reply by reply as its header comment documents it. */
class FairLockScriptsIT {
    private static final String LIFETIME = "60000";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;

    private final LockKeys keys = FairLockDriver.keys("t", "job");
    private final String[] allKeys = {keys.lock(), keys.counter(), FairLockDriver.queue(keys),
            FairLockDriver.waiters(keys)};
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private StatefulRedisPubSubConnection<String, String> subscriber;

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

    @BeforeEach
    void listen() {
        subscriber = client.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(message);
            }
        });
        subscriber.sync().subscribe(keys.channel());
    }

    @AfterEach
    void stopListening() {
        subscriber.close();
    }

    @Test
    void aFreeLockIsGrantedAndReenteredAndABusyOneQueuesWaitersInArrivalOrder() {
        long token = granted(acquire("a", "0", true));
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "a").containsEntry("count", "1")
                .containsEntry("token", Long.toString(token)).containsEntry("holder", "holder of a");
        assertThat(acquire("a", Long.toString(token), true)).as("re-entry").containsExactly(1L, token, 2L);

        List<Long> busy = acquire("b", "0", true);
        assertThat(busy.get(0)).isZero();
        assertThat(busy.get(1)).as("first in line: back within the holder's lease or a third of the lifetime")
                .isBetween(1L, 10_000L);
        assertThat(busy.get(2)).as("the last token issued").isEqualTo(token);
        acquire("c", "0", true);
        acquire("b", "0", true); // keeps its place
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("b", "c");
        assertThat(commands.hget(FairLockDriver.waiters(keys), "c")).endsWith(" 10000 holder of c");
        assertThat(commands.pttl(FairLockDriver.queue(keys))).isBetween(50_000L, 60_000L);
        assertThat(commands.pttl(FairLockDriver.waiters(keys))).isBetween(50_000L, 60_000L);
        assertThat(acquire("c", "0", true).get(1)).as("not first: back within a third of the lifetime")
                .isEqualTo(20_000L);
    }

    @Test
    void aReleaseHandsTheLockToTheFirstWaiterAndNamesItAlone() {
        long token = granted(acquire("a", "0", true));
        acquire("a", Long.toString(token), true);
        acquire("b", "0", true);
        acquire("c", "0", true);

        assertThat(release("a", token)).as("one hold left").isEqualTo(1L);
        assertThat(release("a", token)).isZero();
        long handed = Long.parseLong(commands.hget(keys.lock(), "token"));
        assertThat(handed).isGreaterThan(token);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "b").containsEntry("count", "1")
                .containsEntry("holder", "holder of b");
        assertThat(commands.pttl(keys.lock())).as("b's own lease").isBetween(9_000L, 10_000L);
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("c");
        await().atMost(Duration.ofSeconds(10)).until(() -> !messages.isEmpty());
        assertThat(messages).containsExactly("b " + handed);

        assertThat(release("a", token)).as("a's hold is gone").isEqualTo(-1L);
        assertThat(acquire("c", "0", true).get(0)).as("c waits for b").isZero();
        assertThat(acquire("b", "0", true)).as("b claims what it was handed: same token, fresh lease")
                .containsExactly(1L, handed, 1L);
        assertThat(release("b", handed)).isZero();
        assertThat(commands.hget(keys.lock(), "owner")).isEqualTo("c");
        long last = Long.parseLong(commands.hget(keys.lock(), "token"));
        assertThat(release("c", last)).isZero();
        assertThat(commands.keys("t:fair:*")).as("only the counter is left").containsExactly(keys.counter());
    }

    @Test
    void aFreeLockGoesToTheFirstLiveWaiterOnlyAndNewcomersDoNotOvertake() {
        long token = granted(acquire("a", "0", true));
        acquire("b", "0", true, "3000");
        commands.del(keys.lock()); // a's lease ran out
        assertThat(acquire("x", "0", false).get(1)).as("back when b's entry would die, if b does not come")
                .isBetween(1L, 3_001L);

        List<Long> newcomer = acquire("c", "0", false);
        assertThat(newcomer.get(0)).as("a single try does not overtake b").isZero();
        assertThat(newcomer.get(1)).as("also back when b's entry would die").isBetween(1L, 3_001L);
        assertThat(acquire("c", "0", true).get(0)).isZero();
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("b", "c");

        List<Long> b = acquire("b", "0", true);
        assertThat(b.get(0)).isOne();
        assertThat(b.get(1)).isGreaterThan(token);
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("c");
    }

    @Test
    void aWaiterThatStopsTryingIsSkippedOnceItsEntryDies() {
        long token = granted(acquire("a", "0", true));
        acquire("b", "0", true, "200"); // b will not come back
        acquire("c", "0", true);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> deadline("b") < redisMillis());

        assertThat(release("a", token)).isZero();
        assertThat(commands.hget(keys.lock(), "owner")).as("b is skipped").isEqualTo("c");
        assertThat(commands.zcard(FairLockDriver.queue(keys))).isZero();
        assertThat(commands.exists(FairLockDriver.queue(keys), FairLockDriver.waiters(keys))).isZero();

        // A waiter whose entry died and who comes back after all rejoins at the tail.
        acquire("d", "0", true);
        acquire("e", "0", true, "200");
        acquire("f", "0", true);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> deadline("e") < redisMillis());
        acquire("e", "0", true);
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("d", "f", "e");
    }

    @Test
    void abandonLeavesTheQueueAndPassesOnALockHandedToTheCaller() {
        long token = granted(acquire("a", "0", true));
        acquire("b", "0", true);
        acquire("c", "0", true);
        acquire("d", "0", true);
        assertThat(abandon("c", "0")).isZero();
        assertThat(commands.zrange(FairLockDriver.queue(keys), 0, -1)).containsExactly("b", "d");

        assertThat(release("a", token)).isZero();
        assertThat(commands.hget(keys.lock(), "owner")).isEqualTo("b");
        assertThat(abandon("b", "0")).as("b gave up after the handoff: passed on").isOne();
        assertThat(commands.hget(keys.lock(), "owner")).isEqualTo("d");
        long dToken = Long.parseLong(commands.hget(keys.lock(), "token"));
        await().atMost(Duration.ofSeconds(10)).until(() -> messages.size() == 2);
        assertThat(messages.get(1)).isEqualTo("d " + dToken);

        acquire("d", Long.toString(dToken), true); // a re-entry, then cancelled: d's hold stays
        assertThat(abandon("d", Long.toString(dToken))).isZero();
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "d").containsEntry("count", "2");
    }

    @Test
    void forceUnlockHandsTheLockToTheNextWaiterOrDeletesIt() {
        granted(acquire("a", "0", true));
        acquire("b", "0", true);
        assertThat(commands.eval(FairLockDriver.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER, allKeys,
                keys.channel(), "0", "60000").equals(1L)).isTrue();
        assertThat(commands.hget(keys.lock(), "owner")).isEqualTo("b");
        assertThat(commands.eval(FairLockDriver.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER, allKeys,
                keys.channel(), "0", "60000").equals(1L)).isTrue();
        assertThat(commands.exists(keys.lock())).isZero();
        assertThat(commands.eval(FairLockDriver.FORCE_UNLOCK.body(), ScriptOutputType.INTEGER, allKeys,
                keys.channel(), "0", "60000").equals(0L)).isTrue();
    }

    // ---- helpers ----

    private List<Long> acquire(String owner, String heldToken, boolean willWait) {
        return acquire(owner, heldToken, willWait, LIFETIME);
    }

    private List<Long> acquire(String owner, String heldToken, boolean willWait, String lifetime) {
        return commands.eval(FairLockDriver.ACQUIRE.body(), ScriptOutputType.MULTI, allKeys, owner, "10000",
                "holder of " + owner, "60000", heldToken, willWait ? "1" : "0", lifetime);
    }

    private static long granted(List<Long> reply) {
        assertThat(reply.get(0)).as("granted").isOne();
        return reply.get(1);
    }

    private long release(String owner, long token) {
        return commands.eval(FairLockDriver.RELEASE.body(), ScriptOutputType.INTEGER, allKeys, owner,
                Long.toString(token), keys.channel(), "0", "60000");
    }

    private long abandon(String owner, String heldToken) {
        return commands.eval(FairLockDriver.ABANDON.body(), ScriptOutputType.INTEGER, allKeys, owner, heldToken,
                keys.channel(), "0", "60000");
    }

    private long deadline(String owner) {
        return Long.parseLong(commands.hget(FairLockDriver.waiters(keys), owner).split(" ")[0]);
    }

    private static long redisMillis() {
        List<String> time = commands.time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }
}
