package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Measure;
import dev.baton.support.Secrets;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Sentinels that require a password of their own, distinct from the data nodes': Baton gives each side its own
 * ({@code sentinelPassword(...)} to the sentinels, the uri's or {@code password(...)} to the master) and follows a
 * failover; when a side refuses, or the master name is unknown, the message says which side and what to change,
 * within the timeout, and never shows a password. One group for the class; the failover runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelPasswordsIT {
    private static final String DATA_PASSWORD = "data-Pa55-secret";
    private static final String SENTINEL_PASSWORD = "sentinel-Pa55-secret";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /**
     * Generous: the point is that a refusal is told at once rather than after retries or Lettuce's 60 s default, and
     * the machine may be loaded (closing the failed client alone may take a few seconds then).
     */
    private static final long BOUND_MILLIS = TIMEOUT.toMillis() + 8_000;

    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.startWithPasswords(DATA_PASSWORD, SENTINEL_PASSWORD);
        // Loads and warms up what the first connection of a JVM needs, so that no time bound below measures it.
        Baton.connect(builder().password(DATA_PASSWORD.toCharArray()).sentinelPassword(SENTINEL_PASSWORD.toCharArray())
                .build()).close();
    }

    @AfterAll
    static void stopGroup() {
        group.close();
    }

    private static BatonConfig.Builder builder() {
        return BatonConfig.builder().uri(group.sentinelUri()).commandTimeout(TIMEOUT)
                .watchdogLease(Duration.ofSeconds(6)).recheckInterval(TestBatons.RECHECK);
    }

    /** Connecting fails within the bound, with a {@link BatonException} whose causes show neither password. */
    private static Throwable refused(UnaryOperator<BatonConfig.Builder> settings) {
        long start = System.nanoTime();
        Throwable failure = Measure.thrownBy(() -> Baton.connect(settings.apply(builder()).build()).close());
        assertThat(Measure.millisSince(start)).as("told within the timeout").isLessThan(BOUND_MILLIS);
        assertThat(failure).isInstanceOf(BatonException.class);
        Secrets.assertNotShown(failure, DATA_PASSWORD, SENTINEL_PASSWORD, "wr0ng");
        return failure;
    }

    @Test
    @Order(1)
    void aWrongSentinelPasswordIsTheSentinelsRefusal() {
        assertThat(refused(b -> b.password(DATA_PASSWORD.toCharArray())
                .sentinelPassword(("wr0ng-" + SENTINEL_PASSWORD).toCharArray())))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageStartingWith("The sentinels at 127.0.0.1:")
                .hasMessageContaining("refused the credentials given for the sentinels: wrong sentinelPassword");
    }

    @Test
    @Order(2)
    void noSentinelPasswordSaysTheSentinelsRequireOne() {
        assertThat(refused(b -> b.password(DATA_PASSWORD.toCharArray())))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("require authentication, and no password was given for them")
                .hasMessageContaining("BatonConfig.Builder.sentinelPassword");
    }

    @Test
    @Order(3)
    void aWrongDataNodePasswordIsTheMastersRefusal() {
        String uri = group.sentinelUri().replace("redis-sentinel://", "redis-sentinel://:wr0ng-" + DATA_PASSWORD + "@");
        assertThat(refused(b -> b.uri(uri).sentinelPassword(SENTINEL_PASSWORD.toCharArray())))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageStartingWith("The master '" + RedisSentinelGroup.MASTER_NAME + "' that the sentinels at")
                .hasMessageContaining("refused the credentials given for the data nodes");
    }

    @Test
    @Order(4)
    void anUnknownMasterNameIsNamed() {
        String uri = group.sentinelUri().replace("#" + RedisSentinelGroup.MASTER_NAME, "#no-such-master");
        assertThat(refused(b -> b.uri(uri).password(DATA_PASSWORD.toCharArray())
                .sentinelPassword(SENTINEL_PASSWORD.toCharArray())))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("The sentinels at " + group.sentinels().get(0).host() + ":"
                        + group.sentinels().get(0).port())
                .hasMessageContaining("know no master named 'no-such-master'");
    }

    @Test
    @Order(5)
    void withBothPasswordsBatonLocksAndFollowsAFailover() {
        BatonConfig config = builder().password(DATA_PASSWORD.toCharArray())
                .sentinelPassword(SENTINEL_PASSWORD.toCharArray()).build();
        try (Baton baton = Baton.connect(config)) {
            RedisServer master = group.master();
            DistributedLock lock = baton.lock("two-passwords");
            lock.lock();
            long before = lock.fencingToken();
            lock.unlock();
            assertThat(master.command("EXISTS", "baton:lock:{two-passwords}:token")).isEqualTo("1");

            RedisServer promoted = group.failover();
            assertThat(promoted).isNotSameAs(master);

            AtomicLong after = new AtomicLong();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock again = baton.lock("two-passwords");
                if (!again.tryLock()) {
                    return false;
                }
                after.set(again.fencingToken());
                again.unlock();
                return true;
            });
            assertThat(after.get()).as("tokens keep increasing across the failover").isGreaterThan(before);
            assertThat(promoted.command("EXISTS", "baton:lock:{two-passwords}:token")).isEqualTo("1");
        }
    }
}
