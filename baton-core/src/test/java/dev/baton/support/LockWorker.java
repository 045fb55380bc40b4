package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The other process in multi-process tests. Modes:
 * <ul>
 *   <li>{@code count TARGET LOCK N [CHECKER]}: N times lock, non-atomic read-modify-write of a counter, record the
 *       fencing token in acquisition order, unlock; prints {@code DONE N}.</li>
 *   <li>{@code hold TARGET LOCK LEASE_MS [CHECKER]}: acquires a watchdog lease, prints {@code TOKEN t}, then obeys
 *       stdin: {@code WRITE} (fenced write with its token), {@code AWAIT-LOST}, {@code RELEASE}.</li>
 * </ul>
 * TARGET is a Redis URI, or {@code redlock:URI,URI,...} for a Redlock over those masters. The counter, the token
 * list and the fenced resource live on CHECKER, a Redis URI, which defaults to TARGET for a single Redis.
 */
public final class LockWorker {
    private LockWorker() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String uri = args[1];
        String lockName = args[2];
        RedisClient client = RedisClient.create(args.length > 4 ? args[4] : uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            if (mode.equals("count")) {
                count(uri, lockName, Integer.parseInt(args[3]), redis);
            } else {
                hold(uri, lockName, Long.parseLong(args[3]), redis);
            }
        } finally {
            client.shutdown();
        }
    }

    /** A single Redis, or {@code redlock:URI,URI,...}: a Redlock over those masters. */
    public static BatonConfig.Builder target(String target) {
        return target.startsWith("redlock:")
                ? BatonConfig.builder().redlock(target.substring("redlock:".length()).split(","))
                : BatonConfig.builder().uri(target);
    }

    private static void count(String uri, String lockName, int n, RedisCommands<String, String> redis) {
        try (Baton baton = Baton.connect(target(uri).build())) {
            DistributedLock lock = baton.lock(lockName);
            for (int i = 0; i < n; i++) {
                lock.lock();
                try {
                    String value = redis.get("test:counter");
                    Thread.yield(); // widen the window in which a second holder would lose an update
                    redis.set("test:counter", Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                    redis.rpush("test:tokens", Long.toString(lock.fencingToken()));
                } finally {
                    try {
                        lock.unlock();
                    } catch (BatonException | IllegalMonitorStateException e) {
                        // As an application would: the work is done, and a hold whose majority of Redlock masters
                        // died meanwhile cannot be confirmed released (or was lost); it expires with its lease.
                        // Mutual exclusion is what the counter checks.
                        System.err.println("UNLOCK-FAILED " + e);
                    }
                }
            }
            System.out.println("DONE " + n);
        }
    }

    private static void hold(String uri, String lockName, long leaseMillis, RedisCommands<String, String> redis)
            throws Exception {
        BatonConfig config = target(uri).watchdogLease(Duration.ofMillis(leaseMillis))
                .commandTimeout(Duration.ofMillis(Math.min(750, leaseMillis / 2))).build();
        try (Baton baton = Baton.connect(config)) {
            Lease lease = baton.lock(lockName).acquire(Duration.ofSeconds(30));
            System.out.println("TOKEN " + lease.fencingToken());
            FencedResource resource = new FencedResource(redis, lockName);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                switch (command) {
                    case "WRITE" -> System.out.println(
                            resource.write(lease.fencingToken(), "child") ? "WRITE ACCEPTED" : "WRITE REJECTED");
                    case "AWAIT-LOST" -> {
                        try {
                            lease.lost().get(10, TimeUnit.SECONDS);
                            System.out.println("LOST valid=" + lease.isValid());
                        } catch (java.util.concurrent.TimeoutException e) {
                            System.out.println("NOT-LOST");
                        }
                    }
                    case "RELEASE" -> {
                        try {
                            lease.release();
                            System.out.println("RELEASED");
                        } catch (IllegalMonitorStateException e) {
                            System.out.println("RELEASE-FAILED " + e.getMessage());
                        }
                    }
                    default -> System.out.println("UNKNOWN " + command);
                }
            }
        }
    }
}
