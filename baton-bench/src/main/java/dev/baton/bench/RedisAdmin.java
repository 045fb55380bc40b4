package dev.baton.bench;

import dev.baton.test.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;

/**
 * The harness' own line to Redis, for {@code CONFIG RESETSTAT} and {@code INFO commandstats} only. In the JVM that
 * started the server it goes through {@link RedisServer#command}; in a JMH fork, which only knows the URI, through a
 * Lettuce connection of its own (opened before any measured phase).
 */
interface RedisAdmin extends AutoCloseable {

    void resetStats();

    CommandStats commandStats();

    @Override
    void close();

    static RedisAdmin over(RedisServer server) {
        return new RedisAdmin() {
            @Override
            public void resetStats() {
                server.command("CONFIG", "RESETSTAT");
            }

            @Override
            public CommandStats commandStats() {
                return CommandStats.parse(server.command("INFO", "commandstats"));
            }

            @Override
            public void close() {
                // the server belongs to the caller
            }
        };
    }

    static RedisAdmin connect(String uri) {
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        return new RedisAdmin() {
            @Override
            public void resetStats() {
                connection.sync().configResetstat();
            }

            @Override
            public CommandStats commandStats() {
                return CommandStats.parse(connection.sync().info("commandstats"));
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        };
    }
}
