package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Checks {@code spring.data.redis.url} with Baton's parser ({@link RedisUrl}) as soon as Boot's Redis
 * auto-configuration makes its connection details from the properties, before Boot's own connection factory reads the
 * url with {@code java.net.URI}: that reading takes part of a password with an unencoded {@code /}, {@code ?} or
 * {@code #} for the host or the database, and its errors quote the url or a piece of the password. So where the
 * auto-configured Baton connects through the url, a malformed one fails the start with Baton's message, whether Boot's
 * Redis auto-configuration is in the application or not. Not applied with {@code baton.redlock.nodes}, where the url
 * does not say where Baton connects. Boot's data-redis module is optional: this class names none of its types, so it
 * loads without the module, and then has nothing to check (nothing but the auto-configured Baton reads the url, with
 * the same parser). Stateless; thread-safe.
 */
final class RedisUrlCheck implements BeanPostProcessor {
    /** Boot's connection details made from {@code spring.data.redis.*}: package-private in Boot, so known by name. */
    private static final String BOOTS_PROPERTIES_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

    private final Environment environment;

    /** @param environment where {@code spring.data.redis.url} and {@code baton.redlock.nodes} are read */
    RedisUrlCheck(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (isBootsPropertiesDetails(bean)) {
            Binder binder = Binder.get(environment);
            if (binder.bind("baton.redlock.nodes", Bindable.listOf(String.class)).orElse(List.of()).isEmpty()) {
                RedisUrl.of(binder.bind("spring.data.redis.url", String.class).orElse(null));
            }
        }
        return bean;
    }

    /**
     * Whether the bean is the connection details Boot's Redis auto-configuration makes from
     * {@code spring.data.redis.*}, as opposed to a service connection's, which ignores the url.
     *
     * @param bean any bean
     * @return whether it is Boot's details read from {@code spring.data.redis.*}
     */
    static boolean isBootsPropertiesDetails(Object bean) {
        return bean.getClass().getName().equals(BOOTS_PROPERTIES_DETAILS);
    }
}
