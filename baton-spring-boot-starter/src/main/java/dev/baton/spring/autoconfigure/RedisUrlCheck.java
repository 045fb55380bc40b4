package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.core.env.Environment;

/**
 * Checks {@code spring.data.redis.url} with Baton's parser ({@link RedisUrl}) as soon as Boot's Redis
 * auto-configuration makes its connection details from the properties, before Boot's own connection factory reads the
 * url with {@code java.net.URI}: that reading takes part of a password with an unencoded {@code /}, {@code ?} or
 * {@code #} for the host or the database, and its errors quote the url or a piece of the password. So where the
 * auto-configured Baton connects through the url, a malformed one fails the start with Baton's message, whether Boot's
 * Redis auto-configuration is in the application or not. Not applied with {@code baton.redlock.nodes}, where the url
 * does not say where Baton connects. Stateless; thread-safe.
 */
final class RedisUrlCheck implements BeanPostProcessor {
    private final Environment environment;

    /** @param environment where {@code spring.data.redis.url} and {@code baton.redlock.nodes} are read */
    RedisUrlCheck(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof DataRedisConnectionDetails details && isBootsPropertiesDetails(details)) {
            Binder binder = Binder.get(environment);
            if (binder.bind("baton.redlock.nodes", Bindable.listOf(String.class)).orElse(List.of()).isEmpty()) {
                RedisUrl.of(binder.bind("spring.data.redis.url", String.class).orElse(null));
            }
        }
        return bean;
    }

    /**
     * Whether the details are the bean Boot's Redis auto-configuration makes from {@code spring.data.redis.*} (a
     * package-private class of Boot's, so known by name), as opposed to a service connection's, which ignores the url.
     *
     * @param details connection details
     * @return whether they are read from {@code spring.data.redis.*}
     */
    static boolean isBootsPropertiesDetails(DataRedisConnectionDetails details) {
        return details.getClass().getName().equals(DataRedisConnectionDetails.class.getPackageName()
                + ".PropertiesDataRedisConnectionDetails");
    }
}
