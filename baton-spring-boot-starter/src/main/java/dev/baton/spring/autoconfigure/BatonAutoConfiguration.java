package dev.baton.spring.autoconfigure;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.spring.BatonConfigCustomizer;
import dev.baton.spring.BatonProperties;
import io.lettuce.core.resource.ClientResources;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configures one {@link Baton} from the application's {@code spring.data.redis.*} and {@code baton.*}, unless the
 * application defines its own {@code Baton} bean or sets {@code baton.enabled=false}.
 *
 * <p>Where to connect comes from Boot's {@link DataRedisConnectionDetails} bean when there is one (what
 * {@code spring.data.redis.*} and service connections such as Testcontainers provide), else straight from
 * {@link DataRedisProperties}: one server, Sentinel or Cluster, credentials, TLS from an SSL bundle or the JVM's
 * trust store. {@code spring.data.redis.url} (unless a service connection replaces the properties) is read by Baton's
 * own parser, the one of {@code Baton.connect}, never by {@code java.net.URI}: a malformed url fails the start with
 * Baton's message, before Boot's Redis auto-configuration reads it. Baton shares the application's Lettuce
 * {@link ClientResources} when the context has exactly one, and never shuts them down. Every {@link BatonListener}
 * bean hears Baton's events (one that throws does not silence the others), and {@link BatonConfigCustomizer} beans
 * adjust the configuration last. Baton connects while the context starts, so an unreachable Redis or a refused
 * password fails the start with Baton's message; it is closed with the context.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(Baton.class)
@ConditionalOnProperty(prefix = "baton", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties({BatonProperties.class, DataRedisProperties.class})
public class BatonAutoConfiguration {

    /** Creates the configuration; Spring instantiates it. */
    public BatonAutoConfiguration() {
    }

    /**
     * Checks {@code spring.data.redis.url} with Baton's parser before Boot's own Redis auto-configuration reads it, so
     * that a malformed url fails the start with Baton's message, which never quotes a password (see
     * {@link RedisUrlCheck}).
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
     * @param baton             {@code baton.*}
     * @param redis             {@code spring.data.redis.*}
     * @param connectionDetails Boot's connection details, when defined
     * @param sslBundles        the application's SSL bundles, when defined
     * @param clientResources   the application's Lettuce resources, shared when there is exactly one
     * @param listeners         every listener bean, in order
     * @param customizers       every customizer bean, in order
     * @return the connected Baton
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Baton baton(BatonProperties baton, DataRedisProperties redis,
                       ObjectProvider<DataRedisConnectionDetails> connectionDetails,
                       ObjectProvider<SslBundles> sslBundles, ObjectProvider<ClientResources> clientResources,
                       ObjectProvider<BatonListener> listeners, ObjectProvider<BatonConfigCustomizer> customizers) {
        DataRedisConnectionDetails details = connectionDetails.getIfAvailable();
        boolean fromProperties = details == null || RedisUrlCheck.isBootsPropertiesDetails(details);
        // The url says where to connect only when the details come from spring.data.redis.* (not from a service
        // connection). Then Baton's own parser reads it, never Boot's details, which read it with java.net.URI.
        String url = fromProperties ? redis.getUrl() : null;
        if (fromProperties && (details == null || (url != null && !url.isBlank()))) {
            details = new PropertiesConnectionDetails(redis, sslBundles.getIfAvailable());
        }
        return Baton.connect(BatonConfigFactory.create(details, url, redis.getSsl().isEnabled(), redis, baton,
                clientResources.getIfUnique(), listeners.orderedStream().toList(),
                customizers.orderedStream().toList()));
    }
}
