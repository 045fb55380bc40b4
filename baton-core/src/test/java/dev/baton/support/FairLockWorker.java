package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A process with waiters for a fair lock, for multi-process fair-lock tests. Arguments: {@code URI LOCK LEASE_MS
 * RECHECK_MS COMMAND_TIMEOUT_MS} (the Baton's watchdog lease, re-check interval and command timeout, which make a
 * waiter's entry lifetime). Obeys stdin, one command per line:
 * <ul>
 *   <li>{@code WAIT label}: a new thread locks the fair lock (watchdog lease), appends {@code "label token"} to the
 *       Redis list {@code test:fair:order} while holding it, prints {@code ACQUIRED label token}, and unlocks.</li>
 *   <li>{@code HOLD label}: the same, but keeps the lock (until the process is killed).</li>
 * </ul>
 * Prints {@code READY} once connected.
 */
public final class FairLockWorker {
    /** The list every acquisition is appended to, in the order the lock was held. */
    public static final String ORDER = "test:fair:order";

    private FairLockWorker() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String lockName = args[1];
        BatonConfig config = BatonConfig.builder().uri(uri).watchdogLease(Duration.ofMillis(Long.parseLong(args[2])))
                .recheckInterval(Duration.ofMillis(Long.parseLong(args[3]))).commandTimeout(Duration.ofMillis(Long.parseLong(args[4])))
                .build();
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect();
             Baton baton = Baton.connect(config)) {
            RedisCommands<String, String> redis = connection.sync();
            DistributedLock lock = baton.fairLock(lockName);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                String[] parts = command.split(" ", 2);
                boolean keep = parts[0].equals("HOLD");
                Thread waiter = new Thread(() -> {
                    lock.lock();
                    long token = lock.fencingToken();
                    synchronized (redis) {
                        redis.rpush(ORDER, parts[1] + " " + token);
                    }
                    System.out.println("ACQUIRED " + parts[1] + " " + token);
                    if (!keep) {
                        lock.unlock();
                        return;
                    }
                    // Kept until the process is killed: the owning thread stays alive, since Baton releases a
                    // watchdog lock whose owning thread ended (docs/lock-protocol.md, "A thread that ends holding a
                    // lock"), which would end the hold long before the kill this worker stands in for.
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "waiter-" + parts[1]);
                waiter.setDaemon(true);
                waiter.start();
            }
        } finally {
            client.shutdown();
        }
    }
}
