package dev.baton.internal.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.lock.LockCalls;
import dev.baton.test.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redlock's scripts on one master, against real Redis, reply by reply as their header comments document them:
 * {@code redlock-acquire.lua} (admission, proposed tokens above the master's counter, re-entry, refusals) and
 * {@code redlock-admit.lua}; and the plain lock's release and renewal scripts, which the Redlock reuses, on a hash
 * that {@code redlock-acquire.lua} wrote.
 */
class RedlockScriptsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;

    private final LockKeys keys = LockKeys.of("t", "job");
    private final String marker = RedlockAdmission.markerKey("t");

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

    // ---- admission ----

    @Test
    void withoutAnAdmissionMarkerTheMasterTakesNoPartAndWritesNothing() {
        long before = serverMicros();
        List<Long> reply = acquire("a", 10_000, 0, true, before + 1_000_000);
        long after = serverMicros();
        assertThat(reply).hasSize(4);
        assertThat(reply.subList(0, 3)).containsExactly(-2L, 0L, 0L);
        assertThat(reply.get(3)).isBetween(before, after);
        assertThat(commands.keys("*")).as("nothing written, not even the marker").isEmpty();
    }

    @Test
    void aMarkerInTheFutureKeepsTheMasterOutForWhatIsLeftOfIt() {
        commands.set(marker, Long.toString(serverMillis() + 5_000));
        List<Long> reply = acquire("a", 10_000, 0, true, serverMicros() + 1_000_000);
        assertThat(reply.get(0)).isEqualTo(-3L);
        assertThat(reply.get(1)).as("ms left before it takes part").isBetween(4_000L, 5_000L);
        assertThat(reply.get(2)).isZero();
        assertThat(commands.exists(keys.lock(), keys.counter())).isZero();
    }

    @Test
    void aMarkerInThePastAdmitsTheMaster() {
        commands.set(marker, Long.toString(serverMillis() - 1));
        long proposal = serverMicros();
        assertThat(acquire("a", 10_000, 0, true, proposal)).startsWith(1L, proposal, 1L);
    }

    @Test
    void admitSetsTheMarkerOnceAndLaterCallsReadIt() {
        long before = serverMillis();
        long wait = admit(5_000);
        long after = serverMillis();
        assertThat(wait).isBetween(4_000L, 5_000L);
        long at = Long.parseLong(commands.get(marker));
        assertThat(at).as("the master's time from which it takes part").isBetween(before + 5_000, after + 5_000);
        assertThat(commands.pttl(marker)).as("the marker never expires").isEqualTo(-1L);

        long again = admit(0);
        assertThat(again).as("what the first call set, not at once").isBetween(1L, wait);
        assertThat(admit(60_000)).as("nor later").isBetween(1L, wait);
        assertThat(Long.parseLong(commands.get(marker))).isEqualTo(at);

        List<Long> out = acquire("a", 10_000, 0, true, serverMicros());
        assertThat(out.get(0)).isEqualTo(-3L);
        assertThat(out.get(1)).isBetween(1L, wait);
    }

    @Test
    void admitWithZeroAdmitsAtOnce() {
        long before = serverMillis();
        assertThat(admit(0)).isZero();
        long after = serverMillis();
        assertThat(Long.parseLong(commands.get(marker))).isBetween(before, after);
        assertThat(admit(0)).isZero();
        assertThat(admit(5_000)).as("admitted already: a later delay changes nothing").isZero();
        long proposal = serverMicros();
        assertThat(acquire("a", 10_000, 0, true, proposal)).startsWith(1L, proposal, 1L);
    }

    @Test
    void aMasterSittingOutTakesPartOnceItsMarkerIsReached() {
        assertThat(admit(300)).isBetween(1L, 300L);
        assertThat(acquire("a", 10_000, 0, true, serverMicros()).get(0)).isEqualTo(-3L);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> acquire("a", 10_000, 0, true, serverMicros()).get(0) == 1L);
        assertThat(admit(0)).isZero();
    }

    // ---- fresh grants and refusals ----

    @Test
    void aProposalAboveTheCounterIsGrantedAsTheToken() {
        admit(0);
        long proposal = serverMicros();
        List<Long> reply = acquire("a", 10_000, 0, true, proposal);
        assertThat(reply.subList(0, 3)).containsExactly(1L, proposal, 1L);
        assertThat(commands.hgetall(keys.lock())).containsExactlyInAnyOrderEntriesOf(Map.of("owner", "a",
                "count", "1", "token", Long.toString(proposal), "holder", "holder of a"));
        assertThat(commands.pttl(keys.lock())).isBetween(9_000L, 10_000L);
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(proposal));
        assertThat(commands.pttl(keys.counter())).as("kept for the retention").isBetween(50_000L, 60_000L);

        commands.del(keys.lock());
        List<Long> next = acquire("b", 10_000, 0, true, proposal + 1);
        assertThat(next.subList(0, 3)).as("one above the counter is enough").containsExactly(1L, proposal + 1, 1L);
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(proposal + 1));
    }

    @Test
    void aProposalNotAboveTheCounterIsRefusedAndNothingWritten() {
        admit(0);
        long counter = serverMicros() + 60_000_000; // granted by a faster clock
        commands.set(keys.counter(), Long.toString(counter));
        for (long proposal : new long[] {counter, counter - 1, serverMicros()}) {
            List<Long> reply = acquire("a", 10_000, 0, true, proposal);
            assertThat(reply.subList(0, 3)).as("proposal %d", proposal).containsExactly(-1L, counter, 0L);
        }
        assertThat(commands.exists(keys.lock())).isZero();
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(counter));
        assertThat(commands.pttl(keys.counter())).as("not even rewritten").isEqualTo(-1L);

        assertThat(acquire("a", 10_000, 0, true, counter + 1)).startsWith(1L, counter + 1, 1L);
    }

    @Test
    void aZeroProposalNeverGrantsAndAsksOnlyForTheClockAndCounter() {
        admit(0);
        long before = serverMicros();
        List<Long> fresh = acquire("a", 10_000, 0, true, 0);
        assertThat(fresh.subList(0, 3)).as("no counter yet").containsExactly(-1L, 0L, 0L);
        assertThat(fresh.get(3)).isBetween(before, serverMicros());
        assertThat(commands.exists(keys.lock(), keys.counter())).isZero();

        long token = serverMicros();
        acquire("b", 10_000, 0, true, token);
        commands.del(keys.lock());
        assertThat(acquire("a", 10_000, 0, true, 0).subList(0, 3)).containsExactly(-1L, token, 0L);
        assertThat(commands.exists(keys.lock())).isZero();
    }

    @Test
    void theTimeElementIsTheMastersClockInEveryReply() {
        // -2: no marker
        assertTimeIsServerTime(() -> acquire("a", 10_000, 0, true, 0), -2L);
        // -3: sitting out
        commands.set(marker, Long.toString(serverMillis() + 60_000));
        assertTimeIsServerTime(() -> acquire("a", 10_000, 0, true, 0), -3L);
        commands.set(marker, "0");
        // -1: stale proposal
        assertTimeIsServerTime(() -> acquire("a", 10_000, 0, true, 0), -1L);
        // 1: granted
        long[] token = new long[1];
        assertTimeIsServerTime(() -> {
            List<Long> r = acquire("a", 10_000, 0, true, serverMicros());
            token[0] = r.get(1);
            return r;
        }, 1L);
        // 1: re-entered
        assertTimeIsServerTime(() -> acquire("a", 10_000, token[0], true, 0), 1L);
        // 0: busy
        assertTimeIsServerTime(() -> acquire("b", 10_000, 0, true, serverMicros()), 0L);
    }

    // ---- re-entry, other owners, forgotten acquisitions ----

    @Test
    void reEntryWithTheHeldTokenCountsUpAndOnlyLengthensTheLease() {
        admit(0);
        long token = serverMicros();
        acquire("a", 10_000, 0, true, token);

        List<Long> shorter = acquire("a", 100, token, true, token + 5);
        assertThat(shorter.subList(0, 3)).as("the held token, not the proposal").containsExactly(1L, token, 2L);
        assertThat(commands.pttl(keys.lock())).as("not shortened").isGreaterThan(5_000L);
        assertThat(commands.get(keys.counter())).as("the proposal was not used").isEqualTo(Long.toString(token));

        List<Long> longer = acquire("a", 60_000, token, true, 0);
        assertThat(longer.subList(0, 3)).containsExactly(1L, token, 3L);
        assertThat(commands.pttl(keys.lock())).as("lengthened").isGreaterThan(50_000L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("count", "3")
                .containsEntry("token", Long.toString(token)).containsEntry("owner", "a");
    }

    @Test
    void heldByAnotherOwnerIsRefusedWithItsLeaseAndTheCounter() {
        admit(0);
        long token = serverMicros();
        acquire("a", 10_000, 0, true, token);

        List<Long> once = acquire("b", 10_000, 0, false, token + 1_000);
        assertThat(once.get(0)).isEqualTo(0L);
        assertThat(once.get(1)).as("pttl of a's hold").isBetween(1L, 10_000L);
        assertThat(once.get(2)).as("the counter").isEqualTo(token);
        assertThat(once.get(4)).as("the holder's token").isEqualTo(token);
        assertThat(commands.hexists(keys.lock(), "waiters")).as("a single try marks no waiter").isFalse();

        List<Long> waiting = acquire("b", 10_000, token, true, token + 2_000);
        assertThat(waiting.subList(0, 3)).as("a's token in b's hands is not b's hold")
                .startsWith(0L).endsWith(token);
        assertThat(commands.hget(keys.lock(), "waiters")).as("b waits").isEqualTo("1");

        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "a").containsEntry("count", "1")
                .containsEntry("token", Long.toString(token));
        assertThat(commands.get(keys.counter())).as("no proposal of b was used").isEqualTo(Long.toString(token));
    }

    @Test
    void anAcquisitionTheOwnerDoesNotKnowAboutIsReplacedByAFreshGrant() {
        admit(0);
        long forgotten = serverMicros();
        acquire("a", 10_000, 0, true, forgotten); // say its reply was lost to a timeout
        acquire("b", 10_000, 0, true, forgotten + 1); // b marks itself waiting
        assertThat(commands.hget(keys.lock(), "waiters")).isEqualTo("1");

        assertThat(acquire("a", 10_000, 0, true, forgotten).subList(0, 3))
                .as("still a proposal not above the counter").containsExactly(-1L, forgotten, 0L);
        assertThat(commands.hget(keys.lock(), "token")).isEqualTo(Long.toString(forgotten));

        long fresh = forgotten + 10;
        List<Long> reply = acquire("a", 20_000, 0, true, fresh);
        assertThat(reply.subList(0, 3)).as("a fresh hold, not a re-entry").containsExactly(1L, fresh, 1L);
        assertThat(commands.hgetall(keys.lock())).containsEntry("owner", "a").containsEntry("count", "1")
                .containsEntry("token", Long.toString(fresh)).containsEntry("holder", "holder of a");
        assertThat(commands.pttl(keys.lock())).isGreaterThan(10_000L);
        assertThat(commands.get(keys.counter())).isEqualTo(Long.toString(fresh));

        long other = fresh + 10;
        assertThat(acquire("a", 10_000, forgotten, true, other).subList(0, 3))
                .as("a token it no longer holds is replaced as well").containsExactly(1L, other, 1L);
        assertThat(acquire("a", 10_000, other, true, 0).subList(0, 3)).containsExactly(1L, other, 2L);
    }

    // ---- the plain lock's scripts on a Redlock hash ----

    @Test
    void thePlainReleaseWorksOnARedlockHold() {
        admit(0);
        long token = serverMicros();
        acquire("a", 10_000, 0, true, token);
        acquire("a", 10_000, token, true, 0);
        assertThat(release("b", token)).isEqualTo(-1L);
        assertThat(release("a", token + 1)).as("a stale token").isEqualTo(-1L);
        assertThat(release("a", token)).isEqualTo(1L);
        assertThat(commands.hget(keys.lock(), "count")).isEqualTo("1");
        assertThat(release("a", token)).isZero();
        assertThat(commands.exists(keys.lock())).isZero();
        assertThat(commands.get(keys.counter())).as("the counter outlives the lock").isEqualTo(Long.toString(token));
        assertThat(release("a", token)).isEqualTo(-1L);

        assertThat(acquire("b", 10_000, 0, true, token).get(0)).as("free, yet never the same token again")
                .isEqualTo(-1L);
    }

    @Test
    void aWaiterMarkedByRedlockAcquireIsNotifiedByThePlainRelease() {
        admit(0);
        long token = serverMicros();
        acquire("a", 10_000, 0, true, token);
        long before = publishes();
        acquire("b", 10_000, 0, true, token + 1);
        assertThat(release("a", token)).isZero();
        assertThat(publishes() - before).as("b waits").isOne();

        long next = token + 2;
        acquire("a", 10_000, 0, true, next);
        acquire("b", 10_000, 0, false, next + 1);
        assertThat(release("a", next)).isZero();
        assertThat(publishes() - before).as("b tried once and does not wait").isOne();
    }

    @Test
    void thePlainRenewalExtendsARedlockHoldOnlyForItsOwnerAndToken() {
        admit(0);
        long token = serverMicros();
        acquire("a", 1_000, 0, true, token);
        LockKeys missing = LockKeys.of("t", "missing");
        List<Long> renewed = commands.eval(LockCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.lock(), keys.lock(), missing.lock()}, "30000",
                "b", Long.toString(token), "a", Long.toString(token - 1), "a", Long.toString(token),
                "a", Long.toString(token));
        assertThat(renewed).as("other owner / other token / owned / missing").containsExactly(0L, 0L, 1L, 0L);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(20_000L);
        assertThat(commands.exists(missing.lock())).as("renewal never creates a lock").isZero();

        List<Long> shorter = commands.eval(LockCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock()}, "1000", "a", Long.toString(token));
        assertThat(shorter).as("already longer").containsExactly(1L);
        assertThat(commands.pttl(keys.lock())).isGreaterThan(20_000L);
    }

    // ---- helpers ----

    /** {@code redlock-acquire.lua} with retention 60 s, as the driver sends it. */
    private List<Long> acquire(String owner, long leaseMillis, long heldToken, boolean willWait, long proposal) {
        return commands.eval(RedlockDriver.ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter(), marker}, owner, Long.toString(leaseMillis),
                "holder of " + owner, "60000", Long.toString(heldToken), willWait ? "1" : "0",
                Long.toString(proposal));
    }

    private long admit(long delayMillis) {
        return commands.eval(RedlockAdmission.ADMIT.body(), ScriptOutputType.INTEGER, new String[] {marker},
                Long.toString(delayMillis));
    }

    private long release(String owner, long token) {
        return commands.eval(LockCalls.RELEASE.body(), ScriptOutputType.INTEGER, new String[] {keys.lock()},
                owner, Long.toString(token), keys.channel(), "0", "0");
    }

    private void assertTimeIsServerTime(java.util.function.Supplier<List<Long>> call, long code) {
        long before = serverMicros();
        List<Long> reply = call.get();
        long after = serverMicros();
        assertThat(reply).hasSize(code == 0L ? 5 : 4); // a busy reply names the holder's token as well
        assertThat(reply.get(0)).isEqualTo(code);
        assertThat(reply.get(3)).as("TIME in microseconds, reply code %d", code).isBetween(before, after);
    }

    /** PUBLISH calls so far, including those made inside scripts. */
    private static long publishes() {
        return redis.server().command("INFO", "commandstats").lines()
                .filter(l -> l.startsWith("cmdstat_publish:")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("^[^:]+:calls=(\\d+),.*", "$1"))).orElse(0L);
    }

    private static long serverMicros() {
        List<String> time = commands.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    private static long serverMillis() {
        return serverMicros() / 1_000;
    }
}
