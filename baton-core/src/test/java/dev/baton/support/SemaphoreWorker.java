package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The other process in the semaphore's multi-process tests. Modes (all on semaphore NAME with TOTAL permits):
 * <ul>
 *   <li>{@code churn URI NAME TOTAL THREADS N}: THREADS threads, each N times: acquire 1 or 2 permits, report them
 *       to the {@link #checker shared checker} in Redis while held, record the fencing token, release; prints
 *       {@code DONE n} with the number of acquisitions.</li>
 *   <li>{@code hold URI NAME TOTAL PERMITS LEASE_MS}: acquires PERMITS with a watchdog lease of LEASE_MS, prints
 *       {@code TOKEN t}, then waits (to be killed) until stdin closes.</li>
 *   <li>{@code wait URI NAME TOTAL PERMITS TIMEOUT_MS}: with a command timeout of TIMEOUT_MS, starts waiting for
 *       PERMITS, prints {@code WAITING}, and {@code ACQUIRED} if it gets them; runs until stdin closes.</li>
 * </ul>
 */
public final class SemaphoreWorker {
    /**
     * The shared checker, one atomic step: KEYS[1] = permits held right now, as the holders report them; KEYS[2] =
     * the most ever held at once. ARGV[1] = permits taken (negative: given back).
     */
    private static final String CHECK = """
            local held = redis.call('INCRBY', KEYS[1], ARGV[1])
            if held > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], held) end
            return held
            """;

    private SemaphoreWorker() {
    }

    /** The key of the checker's count of permits held right now. */
    public static String heldKey(String name) {
        return "test:" + name + ":held";
    }

    /** The key of the most permits the checker ever saw held at once. */
    public static String mostKey(String name) {
        return "test:" + name + ":most";
    }

    /** The list of fencing tokens the holders recorded. */
    public static String tokensKey(String name) {
        return "test:" + name + ":tokens";
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String uri = args[1];
        String name = args[2];
        int total = Integer.parseInt(args[3]);
        switch (mode) {
            case "churn" -> churn(uri, name, total, Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            case "hold" -> hold(uri, name, total, Integer.parseInt(args[4]), Long.parseLong(args[5]));
            case "wait" -> waitFor(uri, name, total, Integer.parseInt(args[4]), Long.parseLong(args[5]));
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static void churn(String uri, String name, int total, int threads, int n) throws Exception {
        RedisClient client = RedisClient.create(uri);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (StatefulRedisConnection<String, String> connection = client.connect();
             Baton baton = Baton.connect(TestBatons.patientConfig(uri))) {
            RedisCommands<String, String> redis = connection.sync();
            DistributedSemaphore semaphore = baton.semaphore(name, total);
            List<Future<Integer>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < n; i++) {
                        int permits = 1 + ThreadLocalRandom.current().nextInt(2);
                        try (Lease lease = semaphore.acquire(permits, Duration.ofMinutes(2))) {
                            checker(redis, name, permits);
                            synchronized (redis) {
                                redis.rpush(tokensKey(name), Long.toString(lease.fencingToken()));
                            }
                            Thread.yield(); // widen the window in which too many holders would overlap
                            checker(redis, name, -permits);
                        }
                    }
                    return n;
                }));
            }
            int done = 0;
            for (Future<Integer> w : workers) {
                done += w.get(5, TimeUnit.MINUTES);
            }
            System.out.println("DONE " + done);
        } finally {
            pool.shutdownNow();
            client.shutdown();
        }
    }

    private static void checker(RedisCommands<String, String> redis, String name, int permits) {
        synchronized (redis) { // one connection, shared by the threads
            redis.eval(CHECK, ScriptOutputType.INTEGER, new String[] {heldKey(name), mostKey(name)},
                    Integer.toString(permits));
        }
    }

    private static void hold(String uri, String name, int total, int permits, long leaseMillis) throws Exception {
        BatonConfig config = BatonConfig.builder().uri(uri).watchdogLease(Duration.ofMillis(leaseMillis))
                .commandTimeout(Duration.ofMillis(Math.min(1000, leaseMillis / 2))).build();
        try (Baton baton = Baton.connect(config)) {
            Lease lease = baton.semaphore(name, total).acquire(permits, Duration.ofSeconds(60));
            System.out.println("TOKEN " + lease.fencingToken());
            awaitStdinClosed();
        }
    }

    private static void waitFor(String uri, String name, int total, int permits, long timeoutMillis)
            throws Exception {
        BatonConfig config = BatonConfig.builder().uri(uri).commandTimeout(Duration.ofMillis(timeoutMillis))
                .recheckInterval(TestBatons.RECHECK).build();
        try (Baton baton = Baton.connect(config)) {
            CompletableFuture<Lease> lease = baton.semaphore(name, total).acquireAsync(permits, Duration.ofMinutes(5));
            System.out.println("WAITING");
            lease.thenAccept(l -> System.out.println("ACQUIRED " + l.fencingToken()));
            awaitStdinClosed();
        }
    }

    private static void awaitStdinClosed() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // commands are not needed: the tests kill this process
        }
    }
}
