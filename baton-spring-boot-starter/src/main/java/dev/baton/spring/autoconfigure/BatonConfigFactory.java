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

/**
 * Assembles the {@link BatonConfig} of the auto-configured Baton, in this order: the connection (the
 * {@code baton.redlock.*} masters when {@code baton.redlock.nodes} names some, else {@link RedisConnectionSettings}),
 * the command timeout ({@code baton.command-timeout}, else
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
     * @param details          where to connect, unless {@code baton.redlock.nodes} names masters
     * @param url              {@code spring.data.redis.url} when it says where to connect (read by Baton's parser
     *                         when needed, so a Redlock ignores it as it ignores the other properties), else null
     * @param tlsWithoutBundle whether {@code spring.data.redis.ssl.enabled} asks for TLS without an SSL bundle
     * @param redis            {@code spring.data.redis.*}, for the client timeout
     * @param baton            {@code baton.*}
     * @param resources        the application's Lettuce resources, or null
     * @param listeners        the application's listeners, in order (may be empty)
     * @param customizers      the application's customizers, in order (may be empty)
     * @return the checked configuration
     * @throws InvalidConfigurationPropertyValueException if a property has a value Baton cannot use
     * @throws IllegalStateException                      if the settings contradict each other, or the url is malformed
     */
    static BatonConfig create(ConnectionSource details, String url, boolean tlsWithoutBundle,
                              SpringDataRedisProperties redis,
                              BatonProperties baton, ClientResources resources, List<BatonListener> listeners,
                              List<BatonConfigCustomizer> customizers) {
        BatonConfig.Builder builder = BatonConfig.builder();
        Duration commandTimeout = commandTimeout(baton, redis);
        if (!applyRedlock(baton.getRedlock(), builder)) {
            RedisConnectionSettings.apply(details, RedisUrl.of(url), tlsWithoutBundle,
                    commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT, builder);
        }
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

    /**
     * Sets the Redlock masters, drift factor and longest lease when {@code baton.redlock.nodes} names masters.
     *
     * @return whether the Baton is a Redlock (then {@code spring.data.redis.*} does not say where to connect)
     */
    private static boolean applyRedlock(BatonProperties.Redlock redlock, BatonConfig.Builder builder) {
        List<String> nodes = redlock.getNodes();
        if (nodes == null || nodes.isEmpty()) {
            // Tuning for a Redlock that is not configured is a mistake worth a failed start, not a silent no-op.
            if (redlock.getDriftFactor() != null) {
                throw new InvalidConfigurationPropertyValueException("baton.redlock.drift-factor",
                        redlock.getDriftFactor(), "only applies with baton.redlock.nodes, which is empty");
            }
            if (redlock.getMaxLease() != null) {
                throw new InvalidConfigurationPropertyValueException("baton.redlock.max-lease",
                        redlock.getMaxLease(), "only applies with baton.redlock.nodes, which is empty");
            }
            return false;
        }
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            if (node == null || node.isBlank()) {
                // The value is blank, so quoting it quotes no secret.
                throw new InvalidConfigurationPropertyValueException("baton.redlock.nodes[" + i + "]", node,
                        "a master's URI must not be blank");
            }
        }
        // The URIs themselves (count, scheme, credentials, duplicates) are judged by BatonConfig.Builder#build, whose
        // messages never quote a password; an InvalidConfigurationPropertyValueException here would quote the value.
        builder.redlock(nodes.stream().map(String::trim).toArray(String[]::new));
        if (redlock.getDriftFactor() != null) {
            builder.redlockDriftFactor(redlock.getDriftFactor());
        }
        if (redlock.getMaxLease() != null) {
            builder.redlockMaxLease(positive("baton.redlock.max-lease", redlock.getMaxLease()));
        }
        return true;
    }

    private static Duration commandTimeout(BatonProperties baton, SpringDataRedisProperties redis) {
        if (baton.getCommandTimeout() != null) {
            return positive("baton.command-timeout", baton.getCommandTimeout());
        }
        Duration clientTimeout = redis.timeout();
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
