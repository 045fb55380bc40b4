package dev.baton.spring.actuate;

import dev.baton.Baton;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import dev.baton.spring.election.BatonElectionsAutoConfiguration;
import dev.baton.spring.election.ElectionCandidates;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support for Baton, when the application has a {@code Baton} bean: the {@code baton} health indicator
 * ({@code management.health.baton.enabled}) and the {@code baton} endpoint (exposed like any endpoint, e.g.
 * {@code management.endpoints.web.exposure.include=health,baton}).
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonElectionsAutoConfiguration.class})
@ConditionalOnBean(Baton.class)
public class BatonActuatorAutoConfiguration {

    /** Creates the configuration; Spring instantiates it. */
    public BatonActuatorAutoConfiguration() {
    }

    /** The health indicator, when Boot's health support is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("baton")
    static class HealthIndicatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "batonHealthIndicator")
        BatonHealthIndicator batonHealthIndicator(Baton baton) {
            return new BatonHealthIndicator(baton);
        }
    }

    /** The endpoint, when Actuator's endpoint support is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
    @ConditionalOnAvailableEndpoint(BatonEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BatonEndpoint batonEndpoint(Baton baton, ObjectProvider<RateLimiterRegistry> limiters,
                                    ObjectProvider<ElectionCandidates> elections) {
            return new BatonEndpoint(baton, limiters, elections);
        }
    }
}
