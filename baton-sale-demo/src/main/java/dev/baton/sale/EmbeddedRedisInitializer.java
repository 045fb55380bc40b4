package dev.baton.sale;

import dev.baton.test.RedisServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.List;
import java.util.Map;

/**
 * Makes the service runnable with one command: when no Redis is configured, starts a redis-server of its own
 * (through Baton's test kit: the {@code redis-server} on {@code PATH}, or the one shipped in the embedded-redis jar)
 * before any bean needs Redis, and points {@code spring.data.redis.host} and {@code port} at it.
 *
 * <p>Redis counts as configured when any of {@code spring.data.redis.url}, {@code host}, {@code port},
 * {@code sentinel.nodes} or {@code cluster.nodes} is set, in any property source (command line, environment
 * variables such as {@code SPRING_DATA_REDIS_URL}, application properties); then this does nothing.
 *
 * <p>The embedded server lives as long as the application context: it is stopped after every bean that uses it has
 * been destroyed, so that Baton and the Redis connections close against a live server. Registered in
 * {@code META-INF/spring.factories}; a failure to start the server fails the application's start.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisInitializer.class);

    /** Name of the property source that points Spring Data Redis at the embedded server. */
    static final String PROPERTY_SOURCE = "saleEmbeddedRedis";

    private static final List<String> CONNECTION_PROPERTIES = List.of("spring.data.redis.url",
            "spring.data.redis.host", "spring.data.redis.port", "spring.data.redis.sentinel.nodes",
            "spring.data.redis.cluster.nodes");

    /** Creates the initializer; Spring instantiates it from {@code spring.factories}. */
    public EmbeddedRedisInitializer() {
    }

    /**
     * Starts the embedded redis-server unless Redis is configured.
     *
     * @param context the context about to be refreshed
     * @throws IllegalStateException if the redis-server cannot be started
     */
    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (CONNECTION_PROPERTIES.stream().anyMatch(environment::containsProperty)) {
            return;
        }
        RedisServer server = RedisServer.start();
        environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, Map.of(
                "spring.data.redis.host", server.host(),
                "spring.data.redis.port", server.port())));
        stopWithContext(context, server);
        log.info("No Redis configured (spring.data.redis.url or host): started an embedded redis-server at {}"
                + " (pid {}); pass --spring.data.redis.url=redis://host:port to use your own", server.uri(),
                server.pid());
    }

    private static void stopWithContext(ConfigurableApplicationContext context, RedisServer server) {
        Runnable stop = () -> {
            server.close();
            log.info("Stopped the embedded redis-server at {}", server.uri());
        };
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
            // Disposable beans are destroyed in the reverse order of their registration, and this one is registered
            // before the context creates any bean: so the server goes last, after Baton and the connection factory.
            registry.registerDisposableBean(PROPERTY_SOURCE, stop::run);
        } else {
            context.addApplicationListener(event -> {
                if (event instanceof ContextClosedEvent) {
                    stop.run();
                }
            });
        }
    }
}
