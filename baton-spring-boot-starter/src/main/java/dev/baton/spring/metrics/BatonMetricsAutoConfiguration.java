package dev.baton.spring.metrics;

import dev.baton.spring.BatonProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

/**
 * Records Baton's events as Micrometer meters ({@link MicrometerBatonListener}) when the application has Micrometer
 * and a {@link MeterRegistry} bean, unless {@code baton.metrics.enabled=false}. The listener is a bean like any
 * {@code BatonListener}, so the auto-configured Baton picks it up with the application's own listeners.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"},
        beforeName = "dev.baton.spring.autoconfigure.BatonAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "baton", name = {"enabled", "metrics.enabled"}, matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonMetricsAutoConfiguration {

    /** Creates the configuration; Spring instantiates it. */
    public BatonMetricsAutoConfiguration() {
    }

    /**
     * The listener that records Baton's meters.
     *
     * @param registry   where to record
     * @param properties {@code baton.metrics.max-names}
     * @return the listener
     */
    @Bean
    @ConditionalOnMissingBean
    public MicrometerBatonListener micrometerBatonListener(MeterRegistry registry, BatonProperties properties) {
        int maxNames = properties.getMetrics().getMaxNames();
        if (maxNames < 0) {
            throw new InvalidConfigurationPropertyValueException("baton.metrics.max-names", maxNames,
                    "must not be negative");
        }
        return new MicrometerBatonListener(registry, maxNames);
    }
}
