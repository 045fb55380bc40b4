package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonUnavailableException;
import dev.baton.test.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @RateLimited} while Redis is down: a fail-open method goes ahead, one that does not fail open fails with
 * {@link BatonUnavailableException}; the default comes from {@code baton.rate-limit.fail-open}. A class of its own,
 * since it stops its Redis.
 */
class RateLimitedOutageIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void failOpenLetsCallsThroughWhenRedisIsDownAndOtherwiseTheyFail() {
        try (ConfigurableApplicationContext context = TestApps.start(RateLimitedIT.LimitApp.class, redis.server())) {
            LimitedService service = context.getBean(LimitedService.class);
            assertThat(service.open()).isEqualTo("ok");
            assertThat(service.closed()).isEqualTo("ok");

            redis.server().stop();

            assertThat(service.open()).isEqualTo("ok");
            assertThatThrownBy(service::closed).isInstanceOf(BatonUnavailableException.class);
        }
    }

    @Test
    void theDefaultComesFromTheProperty() {
        try (ConfigurableApplicationContext context = TestApps.start(RateLimitedIT.LimitApp.class, redis.server(),
                "test.fail-open=", "baton.rate-limit.fail-open=true")) {
            LimitedService service = context.getBean(LimitedService.class);
            redis.server().stop();

            assertThat(service.closed()).isEqualTo("ok");
        }
    }
}
