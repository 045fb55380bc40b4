package dev.baton.bench.spring;

import java.nio.file.Path;

/**
 * What {@link SpringBenchMain} hands to the JMH fork JVMs: system properties naming the redis-server of the run and
 * the file where trials append their command counts.
 */
final class SpringBenchEnv {
    /** {@code redis://127.0.0.1:port} of the one redis-server every contender uses. */
    static final String REDIS_URI = "baton.bench.spring.redis";

    /** File that each trial appends its Redis commands per call to (see {@link TrialCheck}). */
    static final String STATS_FILE = "baton.bench.spring.stats";

    private SpringBenchEnv() {
    }

    static String redisUri() {
        String uri = System.getProperty(REDIS_URI);
        if (uri == null || uri.isBlank()) {
            throw new IllegalStateException("-D" + REDIS_URI + "=redis://host:port is not set: run the benchmarks"
                    + " through SpringBenchMain (java -jar baton-bench-spring/target/benchmarks.jar), which starts"
                    + " redis-server");
        }
        return uri;
    }

    static Path statsFile() {
        String file = System.getProperty(STATS_FILE);
        return file == null || file.isBlank() ? null : Path.of(file);
    }
}
