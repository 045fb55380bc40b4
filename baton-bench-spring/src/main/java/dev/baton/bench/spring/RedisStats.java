package dev.baton.bench.spring;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads what Redis has done, on a connection of its own: the commands it ran, by name, from {@code INFO
 * commandstats} (what a trial's calls cost Redis, and the proof that they reached it at all: an annotation that no
 * interceptor applies sends nothing; commands run inside scripts count too), and the CPU time it used, from
 * {@code INFO cpu}. Not thread-safe; close it.
 */
final class RedisStats implements AutoCloseable {
    /** This class's own commands, and connection set-up, which no contender's call sends. */
    private static final Set<String> OWN = Set.of("info", "hello", "client|setinfo", "client|setname", "ping");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RedisStats(String redisUri) {
        client = RedisClient.create(redisUri);
        connection = client.connect();
    }

    /**
     * The commands run since the server started, by name, leaving out {@link #OWN}.
     *
     * @return calls by command name
     */
    Map<String, Long> commands() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : connection.sync().info("commandstats").split("\\R")) {
            // cmdstat_evalsha:calls=10,usec=50,...
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            int start = line.indexOf("calls=", colon) + "calls=".length();
            int end = line.indexOf(',', start);
            if (!OWN.contains(name)) {
                calls.put(name, Long.parseLong(line.substring(start, end < 0 ? line.length() : end)));
            }
        }
        return calls;
    }

    /**
     * The CPU time the server has used since it started, user and system, main thread and others.
     *
     * @return seconds
     */
    double cpuSeconds() {
        double seconds = 0;
        for (String line : connection.sync().info("cpu").split("\\R")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return seconds;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
