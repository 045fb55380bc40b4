package dev.baton.spring.autoconfigure;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.spring.BatonConfigCustomizer;
import dev.baton.spring.BatonProperties;
import io.lettuce.core.resource.ClientResources;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures one {@link Baton} from the application's {@code spring.data.redis.*} and {@code baton.*}, unless the
 * application defines its own {@code Baton} bean or sets {@code baton.enabled=false}.
 *
 * <p>The starter reads {@code spring.data.redis.*} itself: one server, Sentinel or Cluster, credentials, TLS from an
 * SSL bundle or the JVM's trust store. It does not need Boot's data-redis module (Spring Data Redis and its client),
 * so an application that only wants Baton opens only Baton's connection. When the application has that module, a
 * service connection's {@code DataRedisConnectionDetails} (Testcontainers {@code @ServiceConnection}, Docker Compose)
 * replaces the properties, as it does for Spring Data Redis. {@code spring.data.redis.url} (unless a service
 * connection replaces the properties) is read by Baton's own parser, the one of {@code Baton.connect}, never by
 * {@code java.net.URI}: a malformed url fails the start with Baton's message, before Boot's Redis auto-configuration
 * (when present) reads it. Baton shares the application's Lettuce {@link ClientResources} when the context has exactly
 * one, and never shuts them down. Every {@link BatonListener} bean hears Baton's events (one that throws does not
 * silence the others), and {@link BatonConfigCustomizer} beans adjust the configuration last. Baton connects while the
 * context starts, so an unreachable Redis or a refused password fails the start with Baton's message; it is closed with
 * the context.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(Baton.class)
@ConditionalOnProperty(prefix = "baton", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonAutoConfiguration {
    /** The service connections' type, in Boot's data-redis module, which the application may or may not have. */
    private static final String DATA_REDIS_CONNECTION_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    /** Creates the configuration; Spring instantiates it. */
    public BatonAutoConfiguration() {
    }

    /**
     * Checks {@code spring.data.redis.url} with Baton's parser before Boot's own Redis auto-configuration (when the
     * application has it) reads it, so that a malformed url fails the start with Baton's message, which never quotes a
     * password (see {@link RedisUrlCheck}).
     *
     * @param environment where the url is read
     * @return the check
     */
    @Bean
    @ConditionalOnMissingBean(Baton.class)
    static BeanPostProcessor batonRedisUrlCheck(Environment environment) {
        return new RedisUrlCheck(environment);
    }

    /**
     * The application's Baton, closed with the context (held locks then expire with their lease).
     *
     * @param baton           {@code baton.*}
     * @param environment     where {@code spring.data.redis.*} is read
     * @param beans           where a service connection's details are looked up
     * @param sslBundles      the application's SSL bundles, when defined
     * @param clientResources the application's Lettuce resources, shared when there is exactly one
     * @param listeners       every listener bean, in order
     * @param customizers     every customizer bean, in order
     * @return the connected Baton
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Baton baton(BatonProperties baton, Environment environment, ConfigurableListableBeanFactory beans,
                       ObjectProvider<SslBundles> sslBundles, ObjectProvider<ClientResources> clientResources,
                       ObjectProvider<BatonListener> listeners, ObjectProvider<BatonConfigCustomizer> customizers) {
        SpringDataRedisProperties redis = SpringDataRedisProperties.read(environment);
        // ServiceConnectionDetails names the module's types: it is only touched when the module is there.
        ConnectionSource details = ClassUtils.isPresent(DATA_REDIS_CONNECTION_DETAILS, beans.getBeanClassLoader())
                ? ServiceConnectionDetails.find(beans) : null;
        // The url says where to connect only when the properties do (a service connection replaces it, as in Boot).
        String url = details == null ? redis.url() : null;
        if (details == null) {
            details = new PropertiesConnectionDetails(redis, sslBundles.getIfAvailable());
        }
        return Baton.connect(BatonConfigFactory.create(details, url, redis.sslEnabled(), redis, baton,
                clientResources.getIfUnique(), listeners.orderedStream().toList(),
                customizers.orderedStream().toList()));
    }
}
