package dev.baton.internal.multi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.lock.LockCalls;
import dev.baton.test.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code multi-acquire.lua} on its own, against real Redis, reply by reply as its header documents it; and the locks
 * it writes served by the plain lock's scripts, as if {@code lock-acquire.lua} had written them.
 */
class MultiAcquireScriptIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;

    private final List<LockKeys> locks = List.of(LockKeys.of("t", "a"), LockKeys.of("t", "b"), LockKeys.of("t", "c"));

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
    void flush() {
        commands.flushall();
    }

    @Test
    void freeLocksAreAllTakenEachAsLockAcquireWouldWriteIt() {
        long before = micros(commands.time());
        List<Long> reply = acquire("me", 10_000, true, 0, 0, 0);
        assertThat(reply).hasSize(8);
        assertThat(reply.subList(0, 2)).containsExactly(3L, 0L);
        for (int i = 0; i < 3; i++) {
            long token = reply.get(2 + 2 * i);
            assertThat(token).isGreaterThanOrEqualTo(before);
            assertThat(reply.get(3 + 2 * i)).isEqualTo(1L);
            LockKeys k = locks.get(i);
            assertThat(commands.hgetall(k.lock())).containsOnlyKeys("owner", "count", "token", "holder")
                    .containsEntry("owner", "me").containsEntry("count", "1")
                    .containsEntry("token", Long.toString(token)).containsEntry("holder", "holder of me");
            assertThat(commands.pttl(k.lock())).isBetween(1L, 10_000L);
            assertThat(commands.get(k.counter())).isEqualTo(Long.toString(token));
        }

        // The plain scripts serve them: inspect, renew, release.
        List<Object> info = commands.eval(LockCalls.INSPECT.body(), ScriptOutputType.MULTI,
                new String[] {locks.get(1).lock(), locks.get(1).counter()});
        assertThat(info.get(0)).isEqualTo("me");
        List<Long> renewed = commands.eval(LockCalls.RENEW.body(), ScriptOutputType.MULTI,
                new String[] {locks.get(0).lock(), locks.get(2).lock()}, "20000", "me", reply.get(2).toString(),
                "me", reply.get(6).toString());
        assertThat(renewed).containsExactly(1L, 1L);
        assertThat(commands.pttl(locks.get(2).lock())).isGreaterThan(10_000L);
        for (int i = 0; i < 3; i++) {
            assertThat(release(locks.get(i), "me", reply.get(2 + 2 * i))).isZero();
        }
        assertThat(commands.keys("t:lock:{?}")).isEmpty();
    }

    @Test
    void allOrNothingTakesNothingWhenOneLockIsBusy() {
        acquireOne(locks.get(2), "other");
        List<Long> reply = acquire("me", 10_000, true, 0, 0, 0);
        assertThat(reply.get(0)).isZero();
        assertThat(reply.get(1)).as("the busy lock's remaining lease").isBetween(1L, 10_000L);
        assertThat(reply).hasSize(2);
        assertThat(commands.exists(locks.get(0).lock(), locks.get(1).lock())).isZero();
        assertThat(commands.hget(locks.get(2).lock(), "waiters")).as("no waiter mark").isNull();
    }

    @Test
    void forAWaitingCallerTheFreeLocksBeforeTheFirstBusyOneAreTaken() {
        acquireOne(locks.get(1), "other");
        List<Long> reply = acquire("me", 10_000, false, 0, 0, 0);
        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat(reply.get(1)).isBetween(1L, 10_000L);
        assertThat(reply).hasSize(4);
        assertThat(commands.hget(locks.get(0).lock(), "owner")).isEqualTo("me");
        assertThat(commands.hget(locks.get(1).lock(), "owner")).isEqualTo("other");
        assertThat(commands.exists(locks.get(2).lock())).as("not after the busy one").isZero();
    }

    @Test
    void heldLocksAreReenteredByTokenAndUnknownOnesReplaced() {
        List<Long> first = acquire("me", 10_000, true, 0, 0, 0);
        long tokenA = first.get(2);
        long tokenB = first.get(4);
        // Re-enter a and c by their tokens; b's token unknown (a reply lost to a timeout): a fresh hold replaces it.
        List<Long> again = acquire("me", 100, true, tokenA, 0, first.get(6));
        assertThat(again.get(0)).isEqualTo(3L);
        assertThat(again.subList(2, 4)).containsExactly(tokenA, 2L);
        assertThat(again.get(4)).isGreaterThan(tokenB);
        assertThat(again.get(5)).isEqualTo(1L);
        assertThat(again.subList(6, 8)).containsExactly(first.get(6), 2L);
        assertThat(commands.pttl(locks.get(0).lock())).as("a re-entry never shortens the lease").isGreaterThan(5_000L);
        assertThat(release(locks.get(0), "me", tokenA)).isEqualTo(1L);
    }

    @Test
    void tokensExceedTheCountersEvenWhenTheyAreAheadOfTheClock() {
        long ahead = micros(commands.time()) + 1_000_000_000L;
        commands.set(locks.get(1).counter(), Long.toString(ahead));
        List<Long> reply = acquire("me", 10_000, true, 0, 0, 0);
        assertThat(reply.get(4)).isEqualTo(ahead + 1);
        assertThat(reply.get(2)).isLessThan(ahead);
    }

    @Test
    void aFreeLockKeptForAnotherOwnersLiveClaimIsBusyAndAnOwnClaimIsClearedByTheGrant() {
        // As lock-release.lua leaves a lock kept for a plain-lock waiter past its fairness threshold: no owner, a
        // live claim (docs/lock-protocol.md, "Bounded waits under contention").
        long nowMillis = micros(commands.time()) / 1000;
        commands.hset(locks.get(1).lock(), java.util.Map.of("waiters", "2", "next", "claimant",
                "next_since", "0", "next_until", Long.toString(nowMillis + 60_000)));

        List<Long> refused = acquire("me", 10_000, true, 0, 0, 0);
        assertThat(refused.get(0)).isZero();
        assertThat(refused.get(1)).as("the claim's remaining time").isBetween(1L, 60_000L);
        assertThat(commands.exists(locks.get(0).lock(), locks.get(2).lock())).isZero();
        List<Long> ordered = acquire("me", 10_000, false, 0, 0, 0);
        assertThat(ordered.subList(0, 1)).containsExactly(1L); // the lock before the claimed one, nothing after
        assertThat(release(locks.get(0), "me", ordered.get(2))).isZero();

        List<Long> claimant = acquire("claimant", 10_000, true, 0, 0, 0);
        assertThat(claimant.get(0)).isEqualTo(3L);
        assertThat(commands.hgetall(locks.get(1).lock())).doesNotContainKeys("next", "next_since", "next_until")
                .containsEntry("owner", "claimant").containsEntry("waiters", "1");
    }

    private List<Long> acquire(String owner, long leaseMillis, boolean allOrNothing, long... heldTokens) {
        String[] keys = new String[2 * locks.size()];
        List<String> args = new ArrayList<>(List.of(owner, Long.toString(leaseMillis), "holder of " + owner,
                "60000", allOrNothing ? "1" : "0"));
        for (int i = 0; i < locks.size(); i++) {
            keys[2 * i] = locks.get(i).lock();
            keys[2 * i + 1] = locks.get(i).counter();
            args.add(Long.toString(heldTokens[i]));
        }
        return commands.eval(MultiLockCalls.ACQUIRE.body(), ScriptOutputType.MULTI, keys,
                args.toArray(String[]::new));
    }

    private void acquireOne(LockKeys k, String owner) {
        commands.eval(LockCalls.ACQUIRE.body(), ScriptOutputType.MULTI, new String[] {k.lock(), k.counter()}, owner,
                "10000", "holder of " + owner, "60000", "0", "0");
    }

    private long release(LockKeys k, String owner, long token) {
        return commands.eval(LockCalls.RELEASE.body(), ScriptOutputType.INTEGER, new String[] {k.lock()}, owner,
                Long.toString(token), k.channel(), "0", "0");
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }
}
