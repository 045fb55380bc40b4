package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The other process in the read-write lock's multi-process tests. Modes:
 * <ul>
 *   <li>{@code hold URI LOCK read|write LEASE_MS}: acquires that side as a watchdog lease (renewed every third of
 *       {@code LEASE_MS}), prints {@code TOKEN t}, and releases it on the stdin line {@code RELEASE}
 *       ({@code RELEASED}).</li>
 *   <li>{@code stream URI LOCK THREADS}: that many threads take read leases again and again, each taking its next
 *       lease before it releases the one it holds (unless a writer waits), so that without writer priority the read
 *       lock would never be free; prints {@code STREAMING} once they run, and on the stdin line {@code STOP} prints
 *       {@code DONE reads}.</li>
 *   <li>{@code mixed URI LOCK N}: N acquisitions, every fourth a write, each checked by {@link SharedChecker};
 *       prints {@code DONE N}.</li>
 * </ul>
 */
public final class ReadWriteWorker {
    private ReadWriteWorker() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String uri = args[1];
        String name = args[2];
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            SharedChecker checker = new SharedChecker(connection.sync(), name);
            switch (mode) {
                case "hold" -> hold(uri, name, args[3].equals("write"), Long.parseLong(args[4]));
                case "stream" -> stream(uri, name, Integer.parseInt(args[3]), checker);
                default -> mixed(uri, name, Integer.parseInt(args[3]), checker);
            }
        } finally {
            client.shutdown();
        }
    }

    private static Baton patient(String uri) {
        return Baton.connect(BatonConfig.builder().uri(uri).watchdogLease(Duration.ofSeconds(20))
                .commandTimeout(Duration.ofSeconds(5)).recheckInterval(Duration.ofMillis(300)).build());
    }

    private static void hold(String uri, String name, boolean write, long leaseMillis) throws Exception {
        BatonConfig config = BatonConfig.builder().uri(uri).watchdogLease(Duration.ofMillis(leaseMillis))
                .commandTimeout(Duration.ofMillis(Math.min(1000, leaseMillis / 2))).build();
        try (Baton baton = Baton.connect(config)) {
            DistributedReadWriteLock rw = baton.readWriteLock(name);
            Lease lease = (write ? rw.writeLock() : rw.readLock()).acquire(Duration.ofSeconds(60));
            System.out.println("TOKEN " + lease.fencingToken());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                if (command.equals("RELEASE")) {
                    lease.release();
                    System.out.println("RELEASED");
                }
            }
        }
    }

    private static void stream(String uri, String name, int threads, SharedChecker checker) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        try (Baton baton = patient(uri)) {
            DistributedLock read = baton.readWriteLock(name).readLock();
            List<Future<?>> readers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                readers.add(pool.submit(() -> {
                    Lease held = read.acquire(Duration.ofSeconds(60));
                    try {
                        while (!stop.get()) {
                            checker.read(held.fencingToken(), 5);
                            if (reads.incrementAndGet() == 10L * threads) {
                                System.out.println("STREAMING");
                            }
                            held = next(read, held);
                        }
                    } finally {
                        held.close();
                    }
                    return null;
                }));
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null && !command.equals("STOP")) {
                // wait for STOP
            }
            stop.set(true);
            for (Future<?> r : readers) {
                r.get(60, TimeUnit.SECONDS);
            }
            System.out.println("DONE " + reads.get());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The next read lease: taken before {@code current} is released, unless a writer waits (then after). */
    private static Lease next(DistributedLock read, Lease current) throws InterruptedException {
        try {
            Lease next = read.acquire(Duration.ofMillis(100));
            current.release();
            return next;
        } catch (LockTimeoutException queuedBehindAWriter) {
            current.release();
            return read.acquire(Duration.ofSeconds(60));
        }
    }

    private static void mixed(String uri, String name, int n, SharedChecker checker) throws Exception {
        try (Baton baton = patient(uri)) {
            DistributedReadWriteLock rw = baton.readWriteLock(name);
            for (int i = 0; i < n; i++) {
                DistributedLock side = i % 4 == 0 ? rw.writeLock() : rw.readLock();
                side.lock();
                try {
                    if (side == rw.writeLock()) {
                        checker.write(side.fencingToken());
                    } else {
                        checker.read(side.fencingToken(), 0);
                    }
                } finally {
                    side.unlock();
                }
            }
            System.out.println("DONE " + n);
        }
    }

    /**
     * What a resource protected by the read-write lock sees, kept in Redis so that every process shares it: how many
     * readers and writers are inside ({@code test:rw:<lock>:readers}, {@code :writers}), the fencing token of the
     * last write (a {@link FencedResource}), and the violations seen ({@code :violations}, with the first one's
     * description in {@code :violation}). A writer must be alone, and its write accepted; a reader must see no
     * writer, and a token above the last write's (that write happened before the reader got in).
     */
    static final class SharedChecker {
        private final RedisCommands<String, String> redis;
        private final String prefix;
        private final String lastWriteKey;
        private final FencedResource resource;

        /** @param redis a connection that threads may share (Lettuce's are) */
        SharedChecker(RedisCommands<String, String> redis, String name) {
            this.redis = redis;
            this.prefix = "test:rw:" + name;
            this.lastWriteKey = "resource:" + name + ":token"; // where FencedResource keeps the last accepted token
            this.resource = new FencedResource(redis, name);
        }

        void read(long token, long workMillis) {
            redis.incr(prefix + ":readers");
            try {
                check(!"1".equals(redis.get(prefix + ":writers")), "a reader saw a writer inside");
                String lastWrite = redis.get(lastWriteKey);
                check(lastWrite == null || token > Long.parseLong(lastWrite),
                        "reader token " + token + " is not above the last write " + lastWrite);
                if (workMillis > 0) {
                    pause(workMillis);
                }
            } finally {
                redis.decr(prefix + ":readers");
            }
        }

        void write(long token) {
            long writers = redis.incr(prefix + ":writers");
            try {
                check(writers == 1, "two writers inside");
                String readers = redis.get(prefix + ":readers");
                check(readers == null || readers.equals("0"), "a writer saw readers inside");
                check(resource.write(token, "written with " + token), "write with token " + token + " rejected");
            } finally {
                redis.decr(prefix + ":writers");
            }
        }

        private void check(boolean ok, String violation) {
            if (!ok && redis.incr(prefix + ":violations") == 1) {
                redis.set(prefix + ":violation", violation);
            }
        }

        private static void pause(long millis) {
            try {
                Thread.sleep(millis); // work done under the lock, not a wait for a condition
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
