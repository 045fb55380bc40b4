package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonConfig;
import dev.baton.Lease;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release announced while a waiter's subscription connection was down is not heard; when the connection is back,
 * every waiter looks again at once instead of sleeping until its re-check. The engines here re-check once a minute,
 * so only that look can hand the lock on in time.
 */
class ReconnectWakeIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static BatonConfig config() {
        return BatonConfig.builder().uri(redis.server().uri()).recheckInterval(Duration.ofMinutes(1))
                .watchdogLease(Duration.ofMinutes(2)).build();
    }

    @Test
    void aWaiterLooksAgainWhenItsSubscriptionConnectionIsBack() throws Exception {
        try (TestEngine holder = TestEngine.start(config()); TestEngine waiter = TestEngine.start(config())) {
            Lease held = holder.lock("outage").acquire(Duration.ofSeconds(30));
            CompletableFuture<Lease> waiting = waiter.lock("outage").acquireAsync(Duration.ofMinutes(5));
            await().atMost(Duration.ofSeconds(30)).until(() -> waiter.bookkeeping().sleepingWaiters() == 1);

            // Drop every subscription connection and release at once: the release message most likely goes out
            // before the waiter's connection is back, and so reaches nobody.
            redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
            held.release();

            Lease next = waiting.get(30, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            next.release();
        }
    }
}
