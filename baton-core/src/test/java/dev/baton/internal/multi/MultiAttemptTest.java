package dev.baton.internal.multi;

import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonUnavailableException;
import dev.baton.internal.engine.AcquireAttempt;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A multi-lock's acquisition, stepped reply by reply on a fake transport (a standalone server, so all locks are one
 * run): how many scripts it sends, in which order it takes and gives back the locks, and that however it ends without
 * all of them it gives back what it took before it reports.
 */
class MultiAttemptTest {
    private static final long LEASE = SteppedEngine.WATCHDOG_LEASE.toMillis();

    private final SteppedEngine baton = new SteppedEngine();
    private final MultiLockMembers members = MultiLockMembers.of("baton", false, "c", "a", "b");
    /** The names in canonical order. */
    private final List<String> order = members.locks().stream().map(LockKeys::name).toList();

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void freeLocksAreTakenByOneScriptInCanonicalOrder() {
        MultiAttempt attempt = start(Duration.ofSeconds(10));

        FakeTransport.Call script = baton.redis.next(MultiLockCalls.ACQUIRE);
        List<String> keys = new ArrayList<>();
        members.locks().forEach(k -> keys.addAll(List.of(k.lock(), k.counter())));
        assertThat(script.keys).containsExactlyElementsOf(keys);
        assertThat(script.args.get(4)).as("not all or nothing: the caller waits").isEqualTo("0");
        assertThat(script.args.subList(5, 8)).as("no hold to re-enter").containsOnly("0");
        script.reply(List.of(3L, 0L, 11L, 1L, 12L, 1L, 13L, 1L));

        List<Hold> holds = attempt.result.join();
        assertThat(holds).extracting(h -> h.keys.name()).containsExactlyElementsOf(order);
        assertThat(holds).extracting(h -> h.token).containsExactly(11L, 12L, 13L);
        assertThat(baton.redis.calls()).hasSize(1);
        assertThat(baton.engine.bookkeeping().renewedHolds()).as("each lock renewed like a plain one").isEqualTo(3);
    }

    @Test
    void aSingleTryIsAllOrNothingInOneScript() {
        MultiAttempt attempt = start(Duration.ZERO);

        FakeTransport.Call script = baton.redis.next(MultiLockCalls.ACQUIRE);
        assertThat(script.args.get(4)).isEqualTo("1");
        script.reply(List.of(0L, 700L));

        assertThat(attempt.result.join()).isNull();
        assertThat(baton.redis.calls()).as("nothing taken, nothing to give back").hasSize(1);
        assertThat(baton.engine.bookkeeping().renewedHolds()).isZero();
    }

    @Test
    void aBusyLockIsWaitedForLikeAPlainLockThenTheRestAreTaken() {
        MultiAttempt attempt = start(Duration.ofSeconds(10));
        baton.redis.next(MultiLockCalls.ACQUIRE).reply(List.of(1L, 5_000L, 11L, 1L));

        // The second lock: an ordinary attempt of the plain lock (try, subscribe, re-check, sleep, wake).
        FakeTransport.Call first = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(first.keys.get(0)).isEqualTo(members.get(1).lock());
        first.reply(held(5_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        assertThat(baton.engine.bookkeeping().sleepingWaiters()).isEqualTo(1);
        baton.redis.publish(members.get(1).channel());
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(21));

        // The last lock is a run of one: the plain lock's attempt again.
        FakeTransport.Call last = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(last.keys.get(0)).isEqualTo(members.get(2).lock());
        last.reply(granted(31));

        assertThat(attempt.result.join()).extracting(h -> h.token).containsExactly(11L, 21L, 31L);
    }

    @Test
    void aWaitThatRunsOutGivesBackWhatWasTakenBeforeItReports() {
        MultiAttempt attempt = start(Duration.ofSeconds(2));
        baton.redis.next(MultiLockCalls.ACQUIRE).reply(List.of(1L, 5_000L, 11L, 1L));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));

        baton.advance(Duration.ofSeconds(2));
        FakeTransport.Call retry = baton.redis.next(LockCalls.ACQUIRE); // the re-check at 1 s
        retry.reply(held(5_000));

        FakeTransport.Call release = baton.redis.next(LockCalls.RELEASE);
        assertThat(release.keys).containsExactly(members.get(0).lock());
        assertThat(release.args.get(1)).isEqualTo("11");
        assertThat(attempt.result).as("reports only once the lock was given back").isNotDone();
        release.reply(0L);

        assertThat(attempt.result.join()).isNull();
        assertThat(baton.engine.bookkeeping().renewedHolds()).isZero();
    }

    @Test
    void aCancelWhileTheScriptIsInFlightGivesBackEveryLockInReverseOrder() {
        MultiAttempt attempt = start(Duration.ofSeconds(10));
        FakeTransport.Call script = baton.redis.next(MultiLockCalls.ACQUIRE);

        CompletableFuture<Void> settled = attempt.cancel();
        assertThat(settled).isNotDone();
        script.reply(List.of(2L, 5_000L, 11L, 1L, 12L, 1L));

        FakeTransport.Call second = baton.redis.next(LockCalls.RELEASE);
        assertThat(second.keys).containsExactly(members.get(1).lock());
        second.reply(0L);
        FakeTransport.Call first = baton.redis.next(LockCalls.RELEASE);
        assertThat(first.keys).containsExactly(members.get(0).lock());
        assertThat(settled).isNotDone();
        first.reply(0L);

        assertThat(settled).isDone();
        assertThat(attempt.result).isCancelled();
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).as("never waited for the third").isEmpty();
        LockEngine.Bookkeeping left = baton.engine.bookkeeping();
        assertThat(left.renewedHolds() + left.localHolders() + left.waiters()).isZero();
    }

    @Test
    void aRedisFailureWhileWaitingGivesBackWhatWasTaken() {
        MultiAttempt attempt = start(Duration.ofSeconds(10));
        baton.redis.next(MultiLockCalls.ACQUIRE).reply(List.of(1L, 5_000L, 11L, 1L));
        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());

        FakeTransport.Call release = baton.redis.next(LockCalls.RELEASE);
        assertThat(release.keys).containsExactly(members.get(0).lock());
        release.reply(0L);

        assertThatThrownBy(attempt.result::get).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(BatonUnavailableException.class);
        assertThat(baton.engine.bookkeeping().renewedHolds()).isZero();
    }

    @Test
    void aThreadsOwnHoldsAreReenteredByToken() {
        String owner = baton.engine.identity().threadOwner();
        AcquireAttempt outer = baton.engine.attempt(baton.mutex(), members.get(1), owner, 1, LEASE, true, 0, true,
                Thread.currentThread());
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(99));
        assertThat(outer.result.join().token).isEqualTo(99);

        MultiAttempt attempt = new MultiAttempt(baton.engine, baton.mutex(), calls(), members, owner,
                "holder", LEASE, true, Long.MAX_VALUE, true).start();
        FakeTransport.Call script = baton.redis.next(MultiLockCalls.ACQUIRE);
        assertThat(script.args.subList(5, 8)).containsExactly("0", "99", "0");
        script.reply(List.of(3L, 0L, 11L, 1L, 99L, 2L, 13L, 1L));

        assertThat(attempt.result.join().get(1)).as("the thread's hold itself").isSameAs(outer.result.join());
        assertThat(outer.result.join().count()).isEqualTo(2);
    }

    private MultiAttempt start(Duration wait) {
        return new MultiAttempt(baton.engine, baton.mutex(), calls(), members,
                baton.engine.identity().newLeaseOwner(), "holder", LEASE, true, wait.toNanos(), false).start();
    }

    private MultiLockCalls calls() {
        return new MultiLockCalls(baton.redis, Duration.ofDays(1));
    }
}
