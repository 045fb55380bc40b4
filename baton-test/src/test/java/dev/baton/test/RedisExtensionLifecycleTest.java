package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs fixture classes through the Jupiter engine and checks what the extension leaves behind. The fixtures are
 * static nested classes, which Surefire does not pick up on its own.
 */
class RedisExtensionLifecycleTest {

    /** Servers seen by the fixture currently running; the engine runs them on this thread, one at a time. */
    static final List<RedisServer> SEEN = new CopyOnWriteArrayList<>();

    /** Fixtures only run when driven from here; an explicit -Dtest filter could otherwise select them directly. */
    private static volatile boolean drivingFixtures;

    static boolean drivingFixtures() {
        return drivingFixtures;
    }

    private static Events run(Class<?> fixture) {
        SEEN.clear();
        drivingFixtures = true;
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectClass(fixture)).execute().testEvents();
        } finally {
            drivingFixtures = false;
        }
    }

    private static void assertAllClosedAndDead() {
        assertThat(SEEN).isNotEmpty().allSatisfy(server -> {
            assertThat(server.isClosed()).as("closed: %s", server).isTrue();
            assertThat(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        });
    }

    @Test
    void closesTheServerEvenWhenTestsFail() {
        run(FailingFixture.class).assertStatistics(stats -> stats.started(2).failed(2));

        assertThat(SEEN).hasSize(2).allSatisfy(server -> assertThat(server).isSameAs(SEEN.get(0)));
        assertAllClosedAndDead();
    }

    @Test
    void staticRegisterExtensionExposesTheServer() {
        run(StaticFieldFixture.class).assertStatistics(stats -> stats.started(1).succeeded(1));

        assertAllClosedAndDead();
    }

    @Test
    void instanceFieldRegistrationStillStartsAndClosesTheServer() {
        run(InstanceFieldFixture.class).assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(SEEN).hasSize(2);
        assertThat(SEEN.get(1)).isSameAs(SEEN.get(0));
        assertAllClosedAndDead();
    }

    @Test
    void nestedClassesShareTheEnclosingServer() {
        run(NestedFixture.class).assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(SEEN).hasSize(2);
        assertThat(SEEN.get(1)).isSameAs(SEEN.get(0));
        assertAllClosedAndDead();
    }

    @Test
    void perClassLifecycleResolvesTheConstructorBeforeBeforeAll() {
        run(PerClassFixture.class).assertStatistics(stats -> stats.started(1).succeeded(1));

        assertAllClosedAndDead();
    }

    @EnabledIf("dev.baton.test.RedisExtensionLifecycleTest#drivingFixtures")
    @ExtendWith(RedisExtension.class)
    static class FailingFixture {
        @Test
        void failsAfterWriting(RedisServer server) {
            SEEN.add(server);
            server.command("SET", "k", "v");
            throw new AssertionError("deliberate failure");
        }

        @Test
        void failsWhilePaused(RedisServer server) {
            SEEN.add(server);
            server.pause(); // close() must cope with a frozen process
            throw new AssertionError("deliberate failure");
        }
    }

    @EnabledIf("dev.baton.test.RedisExtensionLifecycleTest#drivingFixtures")
    static class StaticFieldFixture {
        @RegisterExtension
        static final RedisExtension REDIS = new RedisExtension();

        @Test
        void usesServerAccessor() {
            SEEN.add(REDIS.server());
            assertThat(REDIS.server().command("PING")).isEqualTo("PONG");
        }
    }

    @EnabledIf("dev.baton.test.RedisExtensionLifecycleTest#drivingFixtures")
    static class InstanceFieldFixture {
        // JUnit calls no beforeAll/afterAll for instance-field extensions; the context store must clean up instead.
        @RegisterExtension
        final RedisExtension redis = new RedisExtension();

        @Test
        void first() {
            SEEN.add(redis.server());
            redis.server().command("SET", "k", "v");
        }

        @Test
        void second() {
            SEEN.add(redis.server());
            assertThat(redis.server().command("DBSIZE")).isEqualTo("0");
        }
    }

    @EnabledIf("dev.baton.test.RedisExtensionLifecycleTest#drivingFixtures")
    @ExtendWith(RedisExtension.class)
    static class NestedFixture {
        @Test
        void outer(RedisServer server) {
            SEEN.add(server);
        }

        @Nested
        class Inner {
            @Test
            void inner(RedisServer server) {
                SEEN.add(server);
                assertThat(server.isRunning()).isTrue();
            }

            @AfterAll
            static void innerAfterAll() {
                // The enclosing class' server must survive the nested class' afterAll.
                assertThat(SEEN.get(0).isRunning()).isTrue();
            }
        }
    }

    @EnabledIf("dev.baton.test.RedisExtensionLifecycleTest#drivingFixtures")
    @ExtendWith(RedisExtension.class)
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class PerClassFixture {
        private final RedisServer fromConstructor;

        PerClassFixture(RedisServer server) {
            this.fromConstructor = server;
        }

        @BeforeEach
        void record(RedisServer server) {
            assertThat(server).isSameAs(fromConstructor);
        }

        @Test
        void works() {
            SEEN.add(fromConstructor);
            assertThat(fromConstructor.command("PING")).isEqualTo("PONG");
        }
    }
}
