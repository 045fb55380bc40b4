package dev.baton.spring.autoconfigure;

import dev.baton.BatonConfig;
import dev.baton.BatonListener;
import dev.baton.spring.BatonConfigCustomizer;
import dev.baton.spring.BatonProperties;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/**
 * Assembles the {@link BatonConfig} of the auto-configured Baton, in this order: the connection
 * ({@link RedisConnectionSettings}), the command timeout ({@code baton.command-timeout}, else
 * {@code spring.data.redis.timeout}), every other {@code baton.*} property, the application's Lettuce
 * {@link ClientResources}, its listeners, and last its {@link BatonConfigCustomizer}s. A property Baton would reject
 * fails here, named by its property (never quoting a secret); what only {@link BatonConfig.Builder#build()} can judge
 * fails with the builder's message, which never quotes a secret either. Stateless.
 */
final class BatonConfigFactory {
    /** {@link BatonConfig#commandTimeout()}'s documented default, which also bounds a TLS handshake from a bundle. */
    private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);

    private BatonConfigFactory() {
    }

    /**
     * Builds the configuration.
     *
     * @param details          where to connect
     * @param tlsWithoutBundle whether {@code spring.data.redis.*} asks for TLS without an SSL bundle
     * @param redis            {@code spring.data.redis.*}, for the client timeout
     * @param baton            {@code baton.*}
     * @param resources        the application's Lettuce resources, or null
     * @param listeners        the application's listeners, in order (may be empty)
     * @param customizers      the application's customizers, in order (may be empty)
     * @return the checked configuration
     * @throws InvalidConfigurationPropertyValueException if a property has a value Baton cannot use
     * @throws IllegalStateException                      if the settings contradict each other
     */
    static BatonConfig create(DataRedisConnectionDetails details, boolean tlsWithoutBundle, DataRedisProperties redis,
                              BatonProperties baton, ClientResources resources, List<BatonListener> listeners,
                              List<BatonConfigCustomizer> customizers) {
        BatonConfig.Builder builder = BatonConfig.builder();
        Duration commandTimeout = commandTimeout(baton, redis);
        RedisConnectionSettings.apply(details, tlsWithoutBundle,
                commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT, builder);
        if (commandTimeout != null) {
            builder.commandTimeout(commandTimeout);
        }
        applyBatonProperties(baton, builder);
        if (resources != null) {
            builder.clientResources(resources);
        }
        if (!listeners.isEmpty()) {
            builder.listener(new CompositeBatonListener(listeners));
        }
        customizers.forEach(customizer -> customizer.customize(builder));
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Baton cannot start with these settings (baton.*, spring.data.redis.* "
                    + "and any BatonConfigCustomizer): " + e.getMessage(), e);
        }
    }

    private static Duration commandTimeout(BatonProperties baton, DataRedisProperties redis) {
        if (baton.getCommandTimeout() != null) {
            return positive("baton.command-timeout", baton.getCommandTimeout());
        }
        Duration clientTimeout = redis.getTimeout();
        return clientTimeout == null ? null : positive("spring.data.redis.timeout", clientTimeout);
    }

    private static void applyBatonProperties(BatonProperties baton, BatonConfig.Builder builder) {
        if (baton.getNamespace() != null) {
            String namespace = baton.getNamespace();
            if (namespace.isBlank() || namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
                throw new InvalidConfigurationPropertyValueException("baton.namespace", namespace,
                        "the namespace must be non-blank and contain no braces (they would break Cluster hash tags)");
            }
            builder.namespace(namespace);
        }
        set("baton.watchdog-lease", baton.getWatchdogLease(), builder::watchdogLease);
        set("baton.recheck-interval", baton.getRecheckInterval(), builder::recheckInterval);
        set("baton.fencing-token-retention", baton.getFencingTokenRetention(), builder::fencingTokenRetention);
        set("baton.rate-limit.timeout", baton.getRateLimit().getTimeout(), builder::rateLimitTimeout);
        if (baton.getLocalHandoffLimit() != null) {
            if (baton.getLocalHandoffLimit() < 0) {
                throw new InvalidConfigurationPropertyValueException("baton.local-handoff-limit",
                        baton.getLocalHandoffLimit(), "must not be negative (0 turns local handoffs off)");
            }
            builder.localHandoffLimit(baton.getLocalHandoffLimit());
        }
        Duration fairness = baton.getFairnessThreshold();
        if (fairness != null) {
            if (fairness.isNegative() || (!fairness.isZero() && fairness.compareTo(Duration.ofMillis(1)) < 0)) {
                throw new InvalidConfigurationPropertyValueException("baton.fairness-threshold", fairness,
                        "must be 0 (off) or at least 1ms");
            }
            builder.fairnessThreshold(fairness);
        }
    }

    private static void set(String property, Duration value, Consumer<Duration> setter) {
        if (value != null) {
            setter.accept(positive(property, value));
        }
    }

    private static Duration positive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be positive");
        }
        return value;
    }
}
