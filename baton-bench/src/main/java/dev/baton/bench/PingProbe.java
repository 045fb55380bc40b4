package dev.baton.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.Arrays;

/**
 * One PING round trip on a Lettuce sync connection of its own (the client type Baton uses), timed one by one: the
 * yardstick of the handoff target. {@link #measure} times it on an idle server; {@link #during} while a scenario
 * runs, so that the handoff is compared with a round trip that waits behind the same load (Redis's one thread, and
 * on a small machine the same CPUs), which an idle PING does not.
 */
final class PingProbe {
    private PingProbe() {
    }

    /** PINGs timed one after the other on a thread of their own until {@link #stop}; one use. */
    static final class During {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final Thread thread;
        private volatile boolean stopping;
        private long[] samples = new long[1 << 16];
        private int count;

        private During(String uri) {
            this.client = RedisClient.create(uri);
            this.connection = client.connect(StringCodec.UTF8);
            RedisCommands<String, String> sync = connection.sync();
            this.thread = new Thread(() -> {
                while (!stopping) {
                    long t0 = System.nanoTime();
                    sync.ping();
                    long t1 = System.nanoTime();
                    if (count == samples.length && count < MAX_SAMPLES) {
                        samples = Arrays.copyOf(samples, 2 * count);
                    }
                    if (count < samples.length) {
                        samples[count++] = t1 - t0;
                    }
                }
            }, "ping-under-load");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops the thread and closes its connection; returns the round trips timed, in ns. */
        long[] stop() {
            stopping = true;
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            return thread.isAlive() ? new long[0] : Arrays.copyOf(samples, count);
        }
    }

    private static final int MAX_SAMPLES = 1 << 22;

    /** Starts timing PINGs against {@code uri} on a thread and connection of their own, until stopped. */
    static During during(String uri) {
        return new During(uri);
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
