package dev.baton.internal.engine;

import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.keys;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonUnavailableException;
import dev.baton.Lease;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The handoff between owners of one Baton, stepped on a fake transport: a waiter queued behind a local holder gets
 * the lock in one script when the holder releases it; when that script fails or finds the holder's lock gone, the
 * waiter tries on its own; and after {@code localHandoffLimit} handoffs in a row the lock is released to everyone.
 */
class LocalHandoffTest {
    private SteppedEngine baton = new SteppedEngine();

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void aReleaseHandsTheLockToTheLocalWaiterInOneScript() {
        Lease first = acquire(1);
        CompletableFuture<Lease> second = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        assertThat(baton.redis.unanswered()).as("queued behind the local holder without a try").isEmpty();
        baton.redis.answer(LockCalls.HANDOFF, call -> 2L);

        first.release();

        FakeTransport.Call handoff = baton.redis.calls(LockCalls.HANDOFF).get(0);
        assertThat(handoff.keys).containsExactly(keys("orders").lock(), keys("orders").counter());
        assertThat(handoff.args.subList(0, 2)).as("from: owner and token").containsExactly(owner(0), "1");
        assertThat(handoff.args.get(3)).as("the new owner's own lease").isEqualTo("30000");
        assertThat(baton.redis.calls(LockCalls.RELEASE)).as("no release, no notification, no new try").isEmpty();
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).hasSize(1);
        assertThat(first.isValid()).isFalse();
        assertThat(second.join().fencingToken()).isEqualTo(2);
        assertThat(handoff.args.get(2)).as("to: the second lease's owner").isEqualTo(baton.engine.instanceId() + ":L2");
        assertThat(baton.engine.bookkeeping().localHolders()).isEqualTo(1);
        assertThat(baton.engine.bookkeeping().renewedHolds()).isEqualTo(1);
    }

    @Test
    void whenTheHandoffFindsTheHoldersLockGoneTheWaiterTriesOnItsOwn() {
        Lease first = acquire(1);
        CompletableFuture<Lease> second = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        baton.redis.answer(LockCalls.HANDOFF, call -> -1L);

        assertThatThrownBy(first::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("was lost while held");

        assertThat(second).isNotDone();
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(5));
        assertThat(second.join().fencingToken()).isEqualTo(5);
    }

    @Test
    void whenRedisFailsTheHandoffTheWaiterTriesOnItsOwnAndTheHolderGivesItsHoldUp() {
        Lease first = acquire(1);
        CompletableFuture<Lease> second = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        baton.redis.answer(LockCalls.HANDOFF, call -> {
            throw unreachable();
        });

        assertThatThrownBy(first::release).isInstanceOf(BatonUnavailableException.class);

        assertThat(first.isValid()).as("given up: it expires with its lease").isFalse();
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(6));
        assertThat(second.join().fencingToken()).isEqualTo(6);
    }

    @Test
    void afterTheHandoffLimitTheLockIsReleasedToEveryone() {
        baton.close();
        baton = new SteppedEngine(b -> b.localHandoffLimit(1));
        Lease first = acquire(1);
        CompletableFuture<Lease> second = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        baton.redis.answer(LockCalls.HANDOFF, call -> 2L);
        first.release();
        CompletableFuture<Lease> third = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        assertThat(baton.redis.unanswered()).isEmpty();
        baton.redis.answer(LockCalls.RELEASE, call -> 0L);

        second.join().release();

        FakeTransport.Call release = baton.redis.calls(LockCalls.RELEASE).get(0);
        assertThat(release.args.get(3)).as("publishes: this Baton has a waiter").isEqualTo("1");
        assertThat(third).isNotDone();
        baton.redis.publish(keys("orders").channel()); // what the release script does
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(3));
        assertThat(third.join().fencingToken()).isEqualTo(3);
    }

    private Lease acquire(long token) {
        CompletableFuture<Lease> lease = baton.primitives.lock("orders").acquireAsync(Duration.ZERO);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(token));
        return lease.join();
    }

    /** The owner of the n-th lease this Baton made. */
    private String owner(int n) {
        return baton.redis.calls(LockCalls.ACQUIRE).get(n).args.get(0);
    }
}
