package dev.baton.bench;

/**
 * What {@link BenchMain} hands to the JMH fork JVMs: system properties naming the shared Redis and the file where
 * each benchmark trial appends its command accounting.
 */
final class BenchEnv {
    /** {@code redis://127.0.0.1:port} of the one redis-server of the run. */
    static final String REDIS_URI = "baton.bench.redis";
    /** File that {@link CommandAccounting} appends one line per trial to. */
    static final String STATS_FILE = "baton.bench.stats";

    private BenchEnv() {
    }

    static String redisUri() {
        String uri = System.getProperty(REDIS_URI);
        if (uri == null || uri.isBlank()) {
            throw new IllegalStateException("-D" + REDIS_URI + "=redis://host:port is not set: run the benchmarks"
                    + " through BenchMain (java -jar baton-bench/target/benchmarks.jar), which starts redis-server");
        }
        return uri;
    }

    static String statsFile() {
        return System.getProperty(STATS_FILE);
    }
}
