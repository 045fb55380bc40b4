package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.RateLimit;
import dev.baton.RateLimitExceededException;
import dev.baton.RateLimiter;
import dev.baton.spring.Limit;
import dev.baton.spring.LockContext;
import dev.baton.spring.LockKind;
import dev.baton.spring.RateLimited;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.aop.AnnotationMisuseException;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * {@code baton.redlock.*} makes the auto-configured Baton a Redlock over independent masters, ignoring
 * {@code spring.data.redis.*}; {@code @DistributedLock} mutexes run on it, and what a quorum cannot run fails the start
 * naming the method. No message quotes the masters' password.
 */
class RedlockPropertiesIT {
    private static final String PASSWORD = "redlock-Secret-5";
    private static final List<RedisServer> masters = new ArrayList<>();
    private static RedisServer single;

    @BeforeAll
    static void startMasters() {
        for (int i = 0; i < 3; i++) {
            masters.add(RedisServer.start(List.of("--requirepass", PASSWORD)));
        }
        single = RedisServer.start();
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisServer::close);
        single.close();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** A mutex method, which a quorum runs: it reports its fencing token and how many masters hold that token. */
    public static class Orders {
        @dev.baton.spring.DistributedLock(key = "'order:' + #id")
        public long[] place(String id) {
            long token = LockContext.currentFencingToken();
            long holding = masters.stream().filter(m -> String.valueOf(token)
                    .equals(m.command("HGET", "baton:lock:{order:" + id + "}", "token"))).count();
            return new long[] {token, holding};
        }
    }

    public static class FairOrders {
        @dev.baton.spring.DistributedLock(key = "'order:' + #id", kind = LockKind.FAIR)
        public void place(String id) {
        }
    }

    public static class Limited {
        @RateLimited(key = "'buy:' + #user", limits = @Limit(permits = 5, period = "1m"))
        public void buy(String user) {
        }
    }

    /**
     * An application with its own registry, over a Baton on one Redis that is not a bean (so the Redlock Baton stays
     * the auto-configured one): {@code @RateLimited} runs there.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class AppWithOwnRegistry {
        @Bean // closed with the context, as an AutoCloseable
        OneServerRegistry rateLimiterRegistry() {
            return new OneServerRegistry(Baton.connect(single.uri()));
        }
    }

    static final class OneServerRegistry implements RateLimiterRegistry, AutoCloseable {
        private final Baton baton;

        OneServerRegistry(Baton baton) {
            this.baton = baton;
        }

        @Override
        public RateLimiter limiter(String name, List<RateLimit> limits) {
            return baton.rateLimiter(name, limits.toArray(RateLimit[]::new));
        }

        @Override
        public Optional<RateLimiter> find(String name) {
            return Optional.empty();
        }

        @Override
        public Set<String> names() {
            return Set.of();
        }

        @Override
        public void close() {
            baton.close();
        }
    }

    private static String node(RedisServer server) {
        return "redis://:" + PASSWORD + "@" + server.host() + ":" + server.port();
    }

    private static String nodes(List<RedisServer> servers) {
        return servers.stream().map(RedlockPropertiesIT::node).collect(Collectors.joining(","));
    }

    private static ConfigurableApplicationContext start(List<Class<?>> sources, String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.main.banner-mode=off",
                // Where spring.data.redis.* points is not where a Redlock Baton connects: nothing listens here.
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }

    private static Throwable startFailure(List<Class<?>> sources, String... properties) {
        try (ConfigurableApplicationContext started = start(sources, properties)) {
            throw new AssertionError("the application started: " + started);
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static String allMessages(Throwable thrown) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            all.append(t).append('\n');
        }
        return all.toString();
    }

    private static <T extends Throwable> T causeOf(Throwable thrown, Class<T> type) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the failure", thrown);
    }

    @Test
    void theNodesMakeTheAutoConfiguredBatonARedlock() {
        try (ConfigurableApplicationContext context = start(List.of(App.class, Orders.class),
                "baton.redlock.nodes=" + nodes(masters), "baton.redlock.drift-factor=0.02",
                "baton.redlock.max-lease=2m", "baton.watchdog-lease=20s")) {
            Baton baton = context.getBean(Baton.class);
            assertThat(baton.config().redlockMasters()).hasSize(3);
            assertThat(baton.config().redlockDriftFactor()).isEqualTo(0.02);
            assertThat(baton.config().redlockMaxLease()).isEqualTo(Duration.ofMinutes(2));
            assertThat(baton.health().topology()).isEqualTo("redlock");
            assertThat(baton.toString()).doesNotContain(PASSWORD);

            // The annotation's lock is held by a majority of the masters (the third may still be answering), under
            // one fencing token, and released afterwards.
            Orders orders = context.getBean(Orders.class);
            long[] first = orders.place("42");
            long[] second = orders.place("42");
            assertThat(first[0]).isPositive();
            assertThat(second[0]).isGreaterThan(first[0]);
            assertThat(first[1]).as("masters holding the first hold's token").isGreaterThanOrEqualTo(2);
            assertThat(second[1]).as("masters holding the second hold's token").isGreaterThanOrEqualTo(2);
            DistributedLock lock = baton.lock("order:42");
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void anEvenNumberOfNodesFailsTheStartWithoutQuotingThePassword() {
        Throwable failure = startFailure(List.of(App.class),
                "baton.redlock.nodes=" + nodes(masters.subList(0, 2)));
        assertThat(allMessages(failure)).contains("odd").doesNotContain(PASSWORD);
    }

    @Test
    void aBlankNodeFailsTheStartNamedByItsIndex() {
        Throwable failure = startFailure(List.of(App.class), "baton.redlock.nodes[0]=" + node(masters.get(0)),
                "baton.redlock.nodes[1]=", "baton.redlock.nodes[2]=" + node(masters.get(2)));
        assertThat(causeOf(failure, InvalidConfigurationPropertyValueException.class).getName())
                .isEqualTo("baton.redlock.nodes[1]");
        assertThat(allMessages(failure)).doesNotContain(PASSWORD);
    }

    @Test
    void redlockTuningWithoutNodesFailsTheStart() {
        Throwable failure = startFailure(List.of(App.class), "baton.redlock.drift-factor=0.02");
        assertThat(causeOf(failure, InvalidConfigurationPropertyValueException.class).getName())
                .isEqualTo("baton.redlock.drift-factor");
    }

    @Test
    void aFairLockMethodFailsTheStartOnARedlock() {
        Throwable failure = startFailure(List.of(App.class, FairOrders.class), "baton.redlock.nodes=" + nodes(masters));
        assertThat(causeOf(failure, AnnotationMisuseException.class).getMessage())
                .contains("kind = FAIR", FairOrders.class.getSimpleName(), "place", "3 Redlock masters")
                .doesNotContain(PASSWORD);
    }

    @Test
    void aRateLimitedMethodFailsTheStartOnARedlock() {
        Throwable failure = startFailure(List.of(App.class, Limited.class), "baton.redlock.nodes=" + nodes(masters));
        assertThat(causeOf(failure, AnnotationMisuseException.class).getMessage())
                .contains("@RateLimited", Limited.class.getSimpleName(), "buy", "quorum")
                .doesNotContain(PASSWORD);
    }

    @Test
    void aRateLimitedMethodStartsOnTheApplicationsOwnRegistry() {
        try (ConfigurableApplicationContext context = start(List.of(AppWithOwnRegistry.class, Limited.class),
                "baton.redlock.nodes=" + nodes(masters))) {
            assertThat(context.getBean(Baton.class).config().redlockMasters()).hasSize(3);
            Limited limited = context.getBean(Limited.class);
            for (int i = 0; i < 5; i++) {
                limited.buy("ann");
            }
            assertThatThrownBy(() -> limited.buy("ann")).isInstanceOf(RateLimitExceededException.class);
            assertThat(single.command("KEYS", "baton:rate:{buy:ann}*")).as("counted on the one server").isNotBlank();
        }
    }
}
