package dev.baton.internal.latch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonConfig;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.ThreadScheduler;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The latch on a fake transport: each {@code latch-*.lua} script's {@code KEYS} and {@code ARGV} and how its reply
 * is read, and the wait's order (subscribe, then read again), so that a release between a waiter's first read and
 * its subscription is not missed, and a release message wakes a waiter long before its re-check. The re-check
 * interval is ten minutes here: a wait that ends within the test's bounds ended for another reason.
 */
class RedisCountDownLatchTest {
    private static final String KEY = "baton:latch:{gate}";
    private static final String CHANNEL = "baton:latch:{gate}:released";
    private static final Duration LONG = Duration.ofSeconds(30);

    private final FakeTransport redis = new FakeTransport(Duration.ofSeconds(5));
    private final ThreadScheduler scheduler = new ThreadScheduler("latch-test");
    private final BatonRuntime runtime = BatonRuntime.assemble(BatonConfig.builder().uri("redis://localhost:1")
            .recheckInterval(Duration.ofMinutes(10)).build(), redis, Ticker.SYSTEM, scheduler, Runnable::run);
    private final RedisCountDownLatch latch = RedisCountDownLatch.of(runtime, new LatchWaits(runtime), "gate");
    /** The count that {@code latch-count.lua} answers. */
    private final AtomicLong count = new AtomicLong();

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    void eachScriptGetsTheLatchKeyAndItsArguments() {
        redis.answer(LatchCalls.SET, call -> call.args.get(0).equals("3") ? 1L : 0L);
        assertThat(latch.trySetCount(3)).isTrue();
        assertThat(latch.trySetCount(2, Duration.ofMillis(1500))).isFalse();
        assertThat(redis.calls(LatchCalls.SET)).extracting(call -> call.keys).containsOnly(List.of(KEY));
        assertThat(redis.calls(LatchCalls.SET)).extracting(call -> call.args)
                .containsExactly(List.of("3", "86400000"), List.of("2", "1500"));

        redis.answer(LatchCalls.COUNT_DOWN, call -> -1L);
        latch.countDown();
        assertThat(redis.calls(LatchCalls.COUNT_DOWN)).singleElement().satisfies(call -> {
            assertThat(call.keys).containsExactly(KEY);
            assertThat(call.args).containsExactly(CHANNEL, "0");
        });

        redis.answer(LatchCalls.COUNT, call -> List.of("9007199254740993"));
        assertThat(latch.count()).as("exact beyond a double's 53 bits").isEqualTo(9007199254740993L);
        assertThat(redis.calls(LatchCalls.COUNT).get(0).keys).containsExactly(KEY);
    }

    @Test
    void aReleaseBetweenTheFirstReadAndTheSubscriptionIsSeenByTheReadAfterIt() throws Exception {
        List<Boolean> subscribedAtRead = new CopyOnWriteArrayList<>();
        count.set(1);
        redis.answer(LatchCalls.COUNT, call -> {
            subscribedAtRead.add(redis.subscribed().contains(CHANNEL));
            // The last count-down comes right after the first read, before the subscription: its message is lost.
            return List.of(Long.toString(count.getAndSet(0)));
        });
        assertThat(waitInBackground().get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(subscribedAtRead).as("read, subscribe, read again").containsExactly(false, true);
    }

    @Test
    void theReleaseMessageWakesEveryWaiterOfTheBatonOverOneSubscription() throws Exception {
        count.set(1);
        redis.answer(LatchCalls.COUNT, call -> List.of(Long.toString(count.get())));
        CompletableFuture<Boolean> first = waitInBackground();
        CompletableFuture<Boolean> second = waitInBackground();
        await().atMost(LONG).until(() -> redis.calls(LatchCalls.COUNT).size() == 4); // two reads each
        assertThat(redis.subscribed()).containsExactly(CHANNEL);

        count.set(0);
        redis.publish(CHANNEL, "all");
        assertThat(first.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await("unsubscribed after the linger").atMost(LONG).until(() -> redis.subscribed().isEmpty());
    }

    /**
     * A waiter on a thread of its own: not the common pool's, which may have a single thread (on a 2-core machine),
     * where a second waiter would not start before the first returned (CI's JDK 25 run timed out on it).
     */
    private CompletableFuture<Boolean> waitInBackground() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return latch.await(Duration.ofMinutes(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, task -> {
            Thread waiter = new Thread(task, "latch-waiter");
            waiter.setDaemon(true);
            waiter.start();
        });
    }

    /** Confirms the held subscription, once the waiter asked for it. */
    private boolean confirmed() {
        try {
            redis.confirmSubscription(CHANNEL);
            return true;
        } catch (AssertionError notYet) {
            return false;
        }
    }
}
