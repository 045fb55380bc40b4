package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application's own Baton (so the auto-configured one backs off), on the test kit's Redis named by
 * {@code test.redis.uri}. The watchdog lease is {@code test.watchdog-lease} (30 s unless a test is about the
 * watchdog), and the command timeout generous, so that a loaded machine cannot fail a test that is not about timing.
 */
@Configuration(proxyBeanMethods = false)
public class TestBatonConfiguration {

    @Bean(destroyMethod = "close")
    Baton baton(@Value("${test.redis.uri}") String uri,
                @Value("${test.watchdog-lease:30s}") Duration watchdogLease) {
        return Baton.connect(BatonConfig.builder().uri(uri).watchdogLease(watchdogLease)
                .commandTimeout(Duration.ofSeconds(5)).rateLimitTimeout(Duration.ofSeconds(1))
                .recheckInterval(Duration.ofMillis(200)).build());
    }
}
