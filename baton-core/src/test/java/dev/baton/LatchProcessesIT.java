package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.LatchWorker;
import dev.baton.support.Measure;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The latch across processes: eight waiters in two JVMs are released together by the last count-down of a third
 * process, through the latch's channel (their re-check is far too slow to explain it), and each JVM listens with one
 * subscription for all of its waiters.
 */
class LatchProcessesIT {
    private static final String CHANNEL = "baton:latch:{start}:released";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void waitersOfSeveralProcessesAreReleasedByTheLastCountDownOfAnother() throws Exception {
        String uri = redis.server().uri();
        List<ChildJvm> children = new ArrayList<>();
        try (Baton baton = Baton.connect(TestBatons.patientConfig(uri))) {
            DistributedCountDownLatch latch = baton.countDownLatch("start");
            assertThat(latch.trySetCount(2)).isTrue();
            for (int i = 0; i < 2; i++) {
                // A re-check every two minutes: a release within the test's bounds came by the notification.
                children.add(ChildJvm.start(LatchWorker.class, "wait", uri, "start", "4", "120000"));
            }
            for (ChildJvm child : children) {
                child.awaitLine("STARTED", 60);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> Measure.subscribers(redis.server(), CHANNEL) == 2);

            latch.countDown();
            assertThat(latch.count()).isEqualTo(1);
            latch.countDown();
            for (ChildJvm child : children) {
                for (int i = 0; i < 4; i++) {
                    assertThat(child.awaitLine("RELEASED", 30)).isEqualTo("RELEASED true");
                }
                assertThat(child.awaitExit(30)).isZero();
            }
            assertThat(latch.count()).isZero();
        } finally {
            children.forEach(ChildJvm::close);
        }
    }
}
