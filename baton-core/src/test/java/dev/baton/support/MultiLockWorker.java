package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * The other process in multi-lock tests. Modes:
 * <ul>
 *   <li>{@code count URI N SET...}: N rounds; round i takes the multi-lock over {@code SET[i % sets]} (names separated
 *       by commas, in the order given), then, for each name, a non-atomic read-modify-write of the counter
 *       {@code test:count:<name>}, and a fenced write to the resource of the set (its names sorted) with the
 *       multi-lock's fencing token; then unlocks. Prints {@code DONE N REJECTED r}, r being the fenced writes
 *       refused.</li>
 *   <li>{@code hold URI LEASE_MS SET}: acquires a lease on the multi-lock with a watchdog lease of LEASE_MS, prints
 *       {@code TOKEN t}, then waits until stdin closes (or the process is killed).</li>
 * </ul>
 */
public final class MultiLockWorker {
    private MultiLockWorker() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[1];
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            if (args[0].equals("count")) {
                count(uri, Integer.parseInt(args[2]), Arrays.copyOfRange(args, 3, args.length), connection.sync());
            } else {
                hold(uri, Long.parseLong(args[2]), args[3].split(","));
            }
        } finally {
            client.shutdown();
        }
    }

    private static void count(String uri, int rounds, String[] sets, RedisCommands<String, String> redis) {
        // Patient settings: the test is about exclusion, not about timeouts a loaded machine might reach.
        BatonConfig config = BatonConfig.builder().uri(uri).commandTimeout(Duration.ofSeconds(5))
                .recheckInterval(Duration.ofMillis(300)).build();
        int rejected = 0;
        try (Baton baton = Baton.connect(config)) {
            for (int i = 0; i < rounds; i++) {
                String[] names = sets[i % sets.length].split(",");
                DistributedLock lock = baton.multiLock(names);
                lock.lock();
                try {
                    for (String name : names) {
                        String value = redis.get("test:count:" + name);
                        Thread.yield(); // widen the window in which a second holder would lose an update
                        redis.set("test:count:" + name, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                    }
                    String[] sorted = names.clone();
                    Arrays.sort(sorted);
                    if (!new FencedResource(redis, String.join(",", sorted)).write(lock.fencingToken(), "w")) {
                        rejected++;
                    }
                } finally {
                    lock.unlock();
                }
            }
        }
        System.out.println("DONE " + rounds + " REJECTED " + rejected);
    }

    private static void hold(String uri, long leaseMillis, String[] names) throws Exception {
        BatonConfig config = BatonConfig.builder().uri(uri).watchdogLease(Duration.ofMillis(leaseMillis))
                .commandTimeout(Duration.ofMillis(Math.min(500, leaseMillis / 2))).build();
        try (Baton baton = Baton.connect(config)) {
            Lease lease = baton.multiLock(names).acquire(Duration.ofSeconds(30));
            System.out.println("TOKEN " + lease.fencingToken());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                System.out.println("HOLDING valid=" + lease.isValid());
            }
        }
    }
}
