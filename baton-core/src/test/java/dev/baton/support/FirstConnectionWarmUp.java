package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.RateLimit;
import dev.baton.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the first Baton connection of a test JVM, a lock, a release and a rate-limit decision over it, with a patient timeout before any
 * test class starts, so that no test's short timeout pays for what only the first connection of a JVM costs: loading
 * Lettuce and Netty, starting their event loops, loading the engine and its scripts. On a loaded machine that took
 * longer than the 0.5 s of {@link TestBatons#TIMEOUT}, and tests about something else failed connecting.
 *
 * <p>Registered for every integration test of baton-core through JUnit's extension auto-detection (the failsafe
 * configuration of baton-core's POM enables it; {@code META-INF/services} names this class), so a new IT needs no
 * warm-up of its own. Runs once per JVM: the first class to start pays, on a Redis server of its own that it closes
 * again, so no test sees it.
 *
 * <p>Thread-safe: the warm-up runs under a lock, once, even if classes start in parallel.
 */
public final class FirstConnectionWarmUp implements BeforeAllCallback {
    /** Room for a machine loaded many times over its cores: only the first connection of the JVM waits this long. */
    private static final Duration PATIENT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(FirstConnectionWarmUp.class);

    /** Whether this JVM has warmed up; static, as Surefire may start a new JUnit launcher (root context) per class. */
    private static boolean warmedUp;

    /** Warms up on the first class of the JVM; does nothing for later ones. A failed warm-up is tried again. */
    @Override
    public void beforeAll(ExtensionContext context) {
        warmUpOnce();
    }

    private static synchronized void warmUpOnce() {
        if (!warmedUp) {
            warmUp();
            warmedUp = true;
        }
    }

    private static void warmUp() {
        long start = System.nanoTime();
        try (RedisServer server = RedisServer.start();
             Baton baton = Baton.connect(BatonConfig.builder().uri(server.uri()).commandTimeout(PATIENT)
                     .rateLimitTimeout(PATIENT).build())) {
            DistributedLock lock = baton.lock("first-connection-warm-up");
            lock.lock();
            lock.unlock();
            baton.rateLimiter("first-connection-warm-up", RateLimit.of(1, Duration.ofSeconds(1))).tryAcquire();
        }
        // Shows in every JVM's output that the warm-up ran, and what it cost on this machine.
        LOG.info("First connection of this JVM warmed up in {} ms", Measure.millisSince(start));
    }
}
