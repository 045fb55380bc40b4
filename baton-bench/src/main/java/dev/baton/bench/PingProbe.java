package dev.baton.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.Arrays;

/**
 * One PING round trip on an idle Lettuce sync connection (the client type Baton uses), timed one by one: the
 * yardstick of the handoff target "p50 under 2x one PING round trip".
 */
final class PingProbe {
    private PingProbe() {
    }

    static long[] measure(String uri, Duration warmup, Duration measure) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8)) {
            RedisCommands<String, String> sync = connection.sync();
            long warmEnd = System.nanoTime() + warmup.toNanos();
            while (System.nanoTime() < warmEnd) {
                sync.ping();
            }
            long[] samples = new long[1 << 20];
            int n = 0;
            long end = System.nanoTime() + measure.toNanos();
            while (n < samples.length) {
                long t0 = System.nanoTime();
                sync.ping();
                long t1 = System.nanoTime();
                samples[n++] = t1 - t0;
                if (t1 >= end) {
                    break;
                }
            }
            return Arrays.copyOf(samples, n);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
