package dev.baton.bench.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A running {@link BenchApplication} on a given Redis: what one benchmark trial starts in its setup and closes in
 * its teardown. Not thread-safe to start or close; the beans it hands out are.
 */
final class BenchApp implements AutoCloseable {
    private final ConfigurableApplicationContext context;

    private BenchApp(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * Starts the application, without a web server and without a banner.
     *
     * @param redisUri {@code redis://host:port} of the server every contender uses
     * @return the running application
     */
    static BenchApp start(String redisUri) {
        Objects.requireNonNull(redisUri, "redisUri");
        return new BenchApp(new SpringApplicationBuilder(BenchApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties(redisUri))
                .run());
    }

    /** The configuration: one Redis for all, and the limit of Bucket4j's starter (see {@link BenchLimits}). */
    static Map<String, Object> properties(String redisUri) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("spring.data.redis.url", redisUri);
        // Jedis is on the class path for Bucket4j's starter; Boot's own connection stays on Lettuce, Boot's default.
        p.put("spring.data.redis.client-type", "lettuce");
        p.put("bucket4j.enabled", "true");
        p.put("bucket4j.cache-to-use", "redis-jedis");
        String method = "bucket4j.methods[0].";
        p.put(method + "name", Bucket4jStarterCalls.METHOD_NAME);
        p.put(method + "cache-name", "bench-buckets");
        String bandwidth = method + "rate-limit.bandwidths[0].";
        p.put(bandwidth + "capacity", Long.toString(BenchLimits.PERMITS_PER_SECOND));
        p.put(bandwidth + "time", "1");
        p.put(bandwidth + "unit", "seconds");
        p.put(bandwidth + "refill-speed", "greedy");
        return p;
    }

    /**
     * A bean of the application.
     *
     * @param type its type
     * @param <T>  its type
     * @return the one bean of that type
     */
    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /**
     * A bean of the application by name, where several share a type.
     *
     * @param name the bean's name
     * @param type its type
     * @param <T>  its type
     * @return the bean
     */
    <T> T bean(String name, Class<T> type) {
        return context.getBean(name, type);
    }

    @Override
    public void close() {
        context.close();
    }
}
