package dev.baton.spring.aop;

import dev.baton.test.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts the test applications: each a whole Spring Boot context, as one instance of a service would be. */
final class TestApps {

    private TestApps() {
    }

    /**
     * @param app        the application's configuration
     * @param redis      the Redis its Baton connects to
     * @param properties further {@code key=value} properties
     * @return the started context; close it after the test
     */
    static ConfigurableApplicationContext start(Class<?> app, RedisServer redis, String... properties) {
        return start(List.of(app), redis, properties);
    }

    /**
     * @param sources    the application's configuration and further beans (each source class becomes a bean)
     * @param redis      the Redis its Baton connects to
     * @param properties further {@code key=value} properties
     * @return the started context; close it after the test
     */
    static ConfigurableApplicationContext start(List<Class<?>> sources, RedisServer redis, String... properties) {
        List<String> all = new ArrayList<>(List.of("test.redis.uri=" + redis.uri(), "spring.main.banner-mode=off"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }
}
