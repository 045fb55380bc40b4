package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.RateLimitExceededException;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@code @RateLimited} on real Redis: refusals, cost, several limits, reactive and future methods. */
class RateLimitedIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ConfigurableApplicationContext context;
    private static LimitedService service;
    private static RateLimiterRegistry registry;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(TestBatonConfiguration.class)
    static class LimitApp {
        @Bean
        LimitedService limitedService() {
            return new LimitedService();
        }
    }

    @BeforeAll
    static void start() {
        context = TestApps.start(LimitApp.class, redis.server(), "baton.rate-limit.max-limiters=3");
        service = context.getBean(LimitedService.class);
        registry = context.getBean(RateLimiterRegistry.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @BeforeEach
    void resetCount() {
        service.ran().set(0);
    }

    @Test
    void callsBeyondTheLimitAreRefusedWithTheDecisionAndDoNotRun() {
        for (int i = 0; i < 3; i++) {
            assertThat(service.call("alice")).isEqualTo("ok");
        }
        assertThatThrownBy(() -> service.call("alice")).isInstanceOfSatisfying(RateLimitExceededException.class,
                e -> {
                    assertThat(e.decision().allowed()).isFalse();
                    assertThat(e.decision().limit().permits()).isEqualTo(3);
                    assertThat(e.decision().retryAfter()).isPositive();
                    assertThat(e).hasMessageContaining("rate limiter 'user:alice' refused a call of "
                            + LimitedService.class.getName() + ".call(String)");
                });
        assertThat(service.ran()).hasValue(3);
        assertThat(service.call("bob")).as("another key, another limiter").isEqualTo("ok");
    }

    @Test
    void aCallTakesItsCost() {
        assertThat(service.costly("c")).isEqualTo("ok");
        assertThat(service.costly("c")).isEqualTo("ok");
        assertThatThrownBy(() -> service.costly("c")).isInstanceOfSatisfying(RateLimitExceededException.class,
                e -> assertThat(e.decision().remaining()).isEqualTo(1));
    }

    @Test
    void everyLimitMustAllowTheCall() {
        assertThat(service.multi("m")).isEqualTo("ok");
        assertThat(service.multi("m")).isEqualTo("ok");
        assertThatThrownBy(() -> service.multi("m")).isInstanceOfSatisfying(RateLimitExceededException.class,
                e -> assertThat(e.decision().limit().permits()).isEqualTo(2));
    }

    @Test
    void aMonoIsChargedWhenSubscribedAndARefusalIsItsError() {
        Mono<String> first = service.mono("u");
        Mono<String> second = service.mono("u");
        assertThat(registry.find("mono:u").orElseThrow().peek().allowed()).as("nothing charged yet").isTrue();

        assertThat(first.block(PATIENCE)).isEqualTo("ok");
        assertThatThrownBy(() -> second.block(PATIENCE)).isInstanceOf(RateLimitExceededException.class);
        assertThat(service.ran()).as("the refused publisher's work never ran").hasValue(1);
    }

    @Test
    void aFluxIsChargedWhenSubscribed() {
        Flux<String> first = service.flux("u");
        Flux<String> second = service.flux("u");
        assertThat(service.ran()).as("the method runs only once its charge is allowed").hasValue(0);

        assertThat(first.collectList().block(PATIENCE)).containsExactly("a", "b");
        assertThatThrownBy(() -> second.collectList().block(PATIENCE))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(service.ran()).hasValue(1);
    }

    @Test
    void aFutureCompletesWithTheRefusal() throws Exception {
        assertThat(service.future("u").get(30, TimeUnit.SECONDS)).isEqualTo("ok");
        CompletableFuture<String> refused = service.future("u");
        assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(RateLimitExceededException.class);
        assertThat(service.ran()).hasValue(1);
    }

    @Test
    void theRegistryKeepsTheMostRecentlyUsedLimiters() {
        service.call("r1");
        service.call("r2");
        service.call("r3");
        service.call("r1");
        service.call("r4");

        assertThat(registry.names()).containsExactlyInAnyOrder("user:r1", "user:r3", "user:r4");
        assertThat(registry.find("user:r2")).isEmpty();
    }
}
