package dev.baton.internal.semaphore;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each semaphore script on its own, against real Redis, reply by reply as its header comment documents it. */
class SemaphoreScriptsIT {
    private static final String RETENTION = "60000";
    private static final String WAITER_TTL = "10000";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;
    private static StatefulRedisPubSubConnection<String, String> pubSub;
    private static final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

    private final LockKeys keys = SemaphoreCalls.keys("t", "pool");
    private final String s = keys.lock();

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
        pubSub.sync().subscribe(SemaphoreCalls.keys("t", "pool").channel());
    }

    @BeforeEach
    void forgetEarlierMessages() {
        messages.clear();
    }

    @AfterAll
    static void disconnect() {
        pubSub.close();
        connection.close();
        client.shutdown();
    }

    @Test
    void grantsWhilePermitsLastAndTellsWhenTheNextLeaseRunsOut() {
        List<Long> a = acquire("a", 2, 10_000, 3, false);
        assertThat(a.get(0)).isEqualTo(1L);
        long token = a.get(1);
        assertThat(commands.hgetall(s)).containsEntry("total", "3");
        assertThat(commands.hgetall(s + ":holders")).containsEntry("used", "2")
                .containsEntry("a", token + " 2 holder of a");
        assertThat(commands.hget(s + ":holders", "until")).as("the horizon: twice the lease from the grant")
                .isNotNull();
        assertThat(commands.pttl(s + ":holders")).isBetween(15_000L, 20_000L);
        assertThat(commands.pttl(s + ":expiry")).isBetween(15_000L, 20_000L);
        assertThat(commands.pttl(s)).as("the total outlives the lease by the retention").isBetween(65_000L, 70_000L);
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(token));

        List<Long> refused = acquire("b", 2, 10_000, 3, false);
        assertThat(refused.get(0)).isEqualTo(0L);
        assertThat(refused.get(1)).as("until a's lease runs out").isBetween(5_000L, 10_000L);
        List<Long> b = acquire("b", 1, 10_000, 3, false);
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat(b.get(1)).isGreaterThan(token);
        assertThat(commands.hget(s + ":holders", "used")).isEqualTo("3");
        assertThat(commands.exists(s + ":queue")).as("single tries never queue").isZero();
    }

    @Test
    void theFirstAcquisitionWritesTheTotalAndLaterOnesKeepIt() {
        long token = acquire("a", 1, 10_000, 3, false).get(1);
        assertThat(release("a", token)).isZero();
        List<Long> b = acquire("b", 1, 10_000, 9, false);
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat(b.get(2)).as("a grant tells the total in Redis, to compare with the one asked for").isEqualTo(3L);
        assertThat(commands.hget(s, "total")).isEqualTo("3");
        assertThat(acquire("c", 4, 10_000, 9, true)).as("more than the total: never").containsExactly(-1L, 3L);
        assertThat(commands.exists(s + ":queue")).isZero();
    }

    @Test
    void waitersAreServedInArrivalOrderAndNobodyOvertakesTheFirst() throws Exception {
        long a = acquire("a", 2, 10_000, 2, false).get(1);
        assertThat(acquire("w1", 2, 10_000, 2, true).get(0)).isZero();
        assertThat(acquire("w2", 1, 10_000, 2, true).get(0)).isZero();
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("w1", "w2");
        assertThat(commands.hget(s + ":waiters", "w1")).as("what a handoff to w1 writes")
                .endsWith(" 2 10000 holder of w1");
        assertThat(commands.pttl(s + ":queue")).isBetween(5_000L, 10_000L);

        assertThat(release("a", a)).isZero();
        List<String> handed = messagesUntilNow();
        assertThat(handed).as("the release hands both permits to the first waiter, by name, with its token")
                .hasSize(1);
        assertThat(handed.get(0)).startsWith("w1 ");
        long w1 = Long.parseLong(handed.get(0).substring(3));
        assertThat(w1).isGreaterThan(a);
        assertThat(commands.hget(s + ":holders", "w1")).isEqualTo(w1 + " 2 holder of w1");
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("w2");
        assertThat(commands.hexists(s + ":waiters", "w1")).isFalse();
        assertThat(acquire("w2", 1, 10_000, 2, true).get(0)).as("no permit left for w2").isZero();
        assertThat(acquire("x", 1, 10_000, 2, false)).as("a single try does not jump the queue")
                .containsExactly(0L, 0L);
        assertThat(acquire("w1", 2, 10_000, 2, true)).as("a try of w1 finds the permits handed to it")
                .containsExactly(1L, w1, 2L);

        assertThat(release("w1", w1)).isZero();
        handed = messagesUntilNow();
        assertThat(handed).hasSize(1);
        assertThat(handed.get(0)).startsWith("w2 ");
        assertThat(commands.exists(s + ":queue", s + ":waiters")).isZero();
    }

    @Test
    void aReleaseHandsTheFreePermitsToAsManyWaitersAsTheySatisfyInOrder() throws Exception {
        long a = acquire("a", 3, 10_000, 3, false).get(1);
        acquire("w1", 1, 10_000, 3, true);
        acquire("w2", 1, 10_000, 3, true);
        acquire("w3", 2, 10_000, 3, true);
        acquire("w4", 1, 10_000, 3, true);
        release("a", a);
        List<String> handed = messagesUntilNow();
        assertThat(handed).as("w1 and w2 at once; one permit left, w3 needs two, and w4 does not overtake it")
                .hasSize(2);
        assertThat(handed.get(0)).startsWith("w1 ");
        assertThat(handed.get(1)).startsWith("w2 ");
        assertThat(Long.parseLong(handed.get(1).substring(3))).isGreaterThan(Long.parseLong(handed.get(0).substring(3)));
        assertThat(commands.hget(s + ":holders", "used")).isEqualTo("2");
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("w3", "w4");
        assertThat(inspect(true).subList(0, 3)).containsExactly(3L, 2L, 2L);
    }

    @Test
    void permitsOfALeaseThatRanOutGoToTheQueueBeforeANewcomer() throws Exception {
        acquire("a", 1, 50, 1, false);
        acquire("w1", 1, 10_000, 1, true, "120000"); // alive for longer than the wait below may take
        await().atMost(Duration.ofSeconds(30)).until(() -> inspect(false).get(1).equals(0L)); // a's lease ran out
        assertThat(acquire("x", 1, 10_000, 1, false).get(0)).as("w1 is served first").isZero();
        List<String> handed = messagesUntilNow();
        assertThat(handed).hasSize(1);
        assertThat(handed.get(0)).startsWith("w1 ");
        assertThat(commands.hget(s + ":holders", "w1")).startsWith(handed.get(0).substring(3) + " 1 ");
    }

    @Test
    void aWaiterThatStopsTryingLosesItsPlace() throws Exception {
        long a = acquire("a", 1, 10_000, 1, false).get(1);
        assertThat(acquire("quitter", 1, 10_000, 1, true, "50").get(0)).isZero();
        assertThat(acquire("w2", 1, 10_000, 1, true).get(0)).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> inspect(true).get(2).equals(1L)); // quitter's 50 ms ran out
        acquire("w3", 1, 10_000, 1, true);
        assertThat(release("a", a)).isZero();
        List<String> handed = messagesUntilNow();
        assertThat(handed).as("the dead first waiter is skipped").hasSize(1);
        assertThat(handed.get(0)).startsWith("w2 ");
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("w3");
        assertThat(commands.hexists(s + ":waiters", "quitter")).isFalse();

        // A waiter that tries again after losing its place queues anew, at the back.
        assertThat(acquire("quitter", 1, 10_000, 1, true).get(0)).isZero();
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("w3", "quitter");
    }

    @Test
    void aWaiterThatComesBackLateButBeforeAnyoneNoticedKeepsItsPlace() {
        acquire("a", 1, 10_000, 1, false);
        acquire("late", 1, 10_000, 1, true, "50");
        acquire("w2", 1, 10_000, 1, true);
        await().atMost(Duration.ofSeconds(30)).until(() -> inspect(true).get(2).equals(1L)); // late looks dead
        assertThat(acquire("late", 1, 10_000, 1, true).get(0)).isZero(); // but tries, before anyone purged it
        assertThat(commands.zrange(s + ":queue", 0, -1)).containsExactly("late", "w2");
        assertThat(inspect(true).get(2)).isEqualTo(2L);
    }

    @Test
    void aReleaseWithAStaleTokenOrAnotherOwnerChangesNothing() {
        long token = acquire("a", 2, 10_000, 3, false).get(1);
        assertThat(release("a", token - 1)).isEqualTo(-1L);
        assertThat(release("b", token)).isEqualTo(-1L);
        assertThat(commands.hget(s + ":holders", "used")).isEqualTo("2");
        assertThat(release("a", token)).isZero();
        assertThat(release("a", token)).isEqualTo(-1L);
        assertThat(commands.exists(s + ":holders", s + ":expiry")).as("nobody holds: no holder keys").isZero();
        assertThat(commands.hget(s, "total")).as("a release never changes the total").isEqualTo("3");
    }

    @Test
    void anExpiredLeaseIsPurgedAndNeverRenewed() {
        long short1 = acquire("a", 1, 50, 1, false).get(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> acquire("b", 1, 10_000, 1, false).get(0) == 1L);
        long b = Long.parseLong(commands.hget(s + ":holders", "b").split(" ")[0]);
        assertThat(renew(10_000, "a", short1, "b", b)).containsExactly(0L, 1L);
        assertThat(release("a", short1)).isEqualTo(-1L);
        assertThat(commands.hget(s + ":holders", "used")).isEqualTo("1");
    }

    @Test
    void renewalExtendsOnlyTheHoldsWhoseOwnerAndTokenMatch() {
        long a = acquire("a", 1, 1_000, 2, false).get(1);
        assertThat(renew(20_000, "a", a, "a", a + 1, "z", a)).containsExactly(1L, 0L, 0L);
        assertThat(commands.pttl(s + ":holders")).as("twice the new lease").isBetween(35_000L, 40_000L);
        assertThat(commands.pttl(s)).isBetween(75_000L, 80_000L);
        List<Object> info = inspect(true);
        assertThat((Long) info.get(6)).isBetween(15_000L, 20_000L);
        assertThat(renew(100, "a", a)).as("a renewal never shortens a lease").containsExactly(1L);
        assertThat(commands.pttl(s + ":holders")).isGreaterThan(10_000L);
    }

    @Test
    void anAbandonReportsPermitsGrantedToItsOwnerUnderAnotherToken() {
        long a = acquire("a", 1, 10_000, 2, false).get(1);
        assertThat(abandonReply("a", 0)).as("permits whose reply was lost").containsExactly(0L, a);
        assertThat(abandonReply("a", a)).containsExactly(0L, 0L);
        assertThat(abandonReply("z", 0)).containsExactly(0L, 0L);
        assertThat(release("a", a)).as("it only reports: the permits are still a's").isZero();
    }

    @Test
    void abandoningLeavesTheQueueAndHandsOnWhatThatLetsThrough() throws Exception {
        acquire("a", 1, 10_000, 2, false);
        acquire("w1", 2, 10_000, 2, true);
        acquire("w2", 1, 10_000, 2, true);
        assertThat(messagesUntilNow()).isEmpty();
        assertThat(abandon("w2")).isEqualTo(1L);
        assertThat(messagesUntilNow()).as("w2 was not first").isEmpty();
        acquire("w2", 1, 10_000, 2, true);
        assertThat(abandon("w1")).isEqualTo(1L);
        List<String> handed = messagesUntilNow();
        assertThat(handed).as("w2 is first now, and a permit is free").hasSize(1);
        assertThat(handed.get(0)).startsWith("w2 ");
        long w2 = Long.parseLong(handed.get(0).substring(3));
        assertThat(abandon("w1")).isZero();
        assertThat(abandonReply("w2", 0)).as("w2 gave up as the permit was handed to it: an orphan to release")
                .containsExactly(0L, w2);
        assertThat(release("w2", w2)).isZero();
        assertThat(commands.exists(s + ":queue", s + ":waiters")).isZero();
    }

    @Test
    void setPermitsWritesTheTotalAndWakesEveryWaiter() throws Exception {
        assertThat(setPermits(4)).as("new").isZero();
        assertThat(commands.pttl(s)).isBetween(55_000L, 60_000L);
        acquire("a", 4, 10_000, 1, false);
        assertThat(messagesUntilNow()).as("nobody waits").isEmpty();
        acquire("w", 1, 10_000, 1, true);
        assertThat(setPermits(5)).isEqualTo(4L);
        assertThat(messagesUntilNow()).containsExactly("all");
        assertThat(commands.hget(s, "total")).isEqualTo("5");
        assertThat(commands.pttl(s)).as("never shortened").isGreaterThan(65_000L);
    }

    @Test
    void inspectReadsEverythingAndChangesNothing() {
        assertThat(inspect(true)).containsExactly(-1L, 0L, 0L, 0L);
        long a = acquire("a", 2, 10_000, 5, false).get(1);
        // b's lease must still run when w queues (else w's try purges it): 2 s for one script call, even on a
        // loaded machine.
        long gone = acquire("b", 1, 2_000, 5, false).get(1);
        acquire("w", 5, 10_000, 5, true);
        await().atMost(Duration.ofSeconds(30)).until(() -> inspect(false).get(1).equals(2L)); // b ran out
        List<Object> info = inspect(true);
        assertThat(info.subList(0, 6)).containsExactly(5L, 2L, 1L, gone, "a", a + " 2 holder of a");
        assertThat(info).hasSize(7);
        assertThat(commands.hget(s + ":holders", "used")).as("left for the next write to purge").isEqualTo("3");
        assertThat(gone).isGreaterThan(a);
    }

    // ---- the scripts, called as SemaphoreCalls calls them ----

    private List<Long> acquire(String owner, int permits, long leaseMillis, int initial, boolean willWait) {
        return acquire(owner, permits, leaseMillis, initial, willWait, WAITER_TTL);
    }

    private List<Long> acquire(String owner, int permits, long leaseMillis, int initial, boolean willWait,
                               String waiterTtl) {
        return commands.eval(SemaphoreCalls.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {s, s + ":holders", s + ":expiry", s + ":queue", s + ":waiters", keys.counter()},
                owner, Integer.toString(permits), Long.toString(leaseMillis), "holder of " + owner, RETENTION,
                Integer.toString(initial), willWait ? "1" : "0", waiterTtl, keys.channel(), "0");
    }

    private long release(String owner, long token) {
        return commands.eval(SemaphoreCalls.RELEASE.body(), ScriptOutputType.INTEGER, sixKeys(), owner,
                Long.toString(token), keys.channel(), "0", RETENTION);
    }

    /** Whether {@code owner}, which held nothing before it waited, was in the queue when it abandoned. */
    private long abandon(String owner) {
        return abandonReply(owner, 0).get(0);
    }

    /** {@code {queued, orphan}} of the abandon of an attempt that held {@code heldToken} before. */
    private List<Long> abandonReply(String owner, long heldToken) {
        return commands.eval(SemaphoreCalls.ABANDON.body(), ScriptOutputType.MULTI, sixKeys(), owner,
                keys.channel(), "0", Long.toString(heldToken), RETENTION);
    }

    private long setPermits(int total) {
        return commands.eval(SemaphoreCalls.SET_PERMITS.body(), ScriptOutputType.INTEGER,
                new String[] {s, s + ":queue"}, Integer.toString(total), RETENTION, keys.channel(), "0");
    }

    /** Renews holds of this semaphore: owner, token, owner, token ... */
    private List<Long> renew(long leaseMillis, Object... ownersAndTokens) {
        List<String> keyList = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of(Long.toString(leaseMillis), RETENTION));
        for (int i = 0; i < ownersAndTokens.length; i += 2) {
            keyList.addAll(List.of(s, s + ":holders", s + ":expiry"));
            args.add((String) ownersAndTokens[i]);
            args.add(ownersAndTokens[i + 1].toString());
        }
        return commands.eval(SemaphoreCalls.RENEW.body(), ScriptOutputType.MULTI, keyList.toArray(String[]::new),
                args.toArray(String[]::new));
    }

    private List<Object> inspect(boolean holders) {
        return commands.eval(SemaphoreCalls.INSPECT.body(), ScriptOutputType.MULTI,
                new String[] {s, s + ":holders", s + ":expiry", s + ":queue", s + ":waiters", keys.counter()},
                holders ? "1" : "0");
    }

    private String[] sixKeys() {
        return new String[] {s, s + ":holders", s + ":expiry", s + ":queue", s + ":waiters", keys.counter()};
    }

    /** The messages published on the channel so far: a marker published now arrives after all of them. */
    private List<String> messagesUntilNow() throws InterruptedException {
        commands.publish(keys.channel(), "marker");
        List<String> seen = new ArrayList<>();
        while (true) {
            String m = messages.poll(30, TimeUnit.SECONDS);
            assertThat(m).as("the marker arrives").isNotNull();
            if (m.equals("marker")) {
                return seen;
            }
            seen.add(m);
        }
    }
}
