package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Does the Redis work of one semaphore acquisition grow with the number of holders? For each holder count n, a
 * semaphore of n + 4 permits gets n holders (fixed leases of {@value #HOLD_MINUTES} minutes, so no renewal runs
 * meanwhile), then one more client acquires one permit and releases it {@code ops} times in a row. Measured over that
 * loop alone: Redis commands per acquisition ({@code INFO commandstats}, commands inside scripts counted one by
 * one), the script time Redis reports per acquisition, the redis-server process's CPU (user + system, /proc) per
 * acquisition, and acquisitions per second of the one client. Baton's {@code DistributedSemaphore} and Redisson's
 * {@code RPermitExpirableSemaphore} run side by side on the same freshly started server (one per library and holder
 * count, so that neither sees the other's keys).
 *
 * <p>Run: {@code java -cp baton-bench/target/benchmarks.jar dev.baton.bench.SemaphoreScaling [ops] [n ...]}
 * (defaults: 5,000 acquisitions; 4, 64 and 1,024 holders). Prints a Markdown table.
 */
public final class SemaphoreScaling {
    private static final long HOLD_MINUTES = 10;
    private static final int SPARE = 4;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private SemaphoreScaling() {
    }

    /** One library at one holder count. */
    record Row(String library, int holders, int ops, double commandsPerOp, String breakdown, double scriptUsecPerOp,
               double redisCpuUsecPerOp, double opsPerSecond) {
    }

    /** What one library does: hold n permits, then acquire and release one, timed by the caller. */
    interface Subject extends AutoCloseable {
        void hold(int n);

        void cycle() throws Exception;

        @Override
        void close();
    }

    /**
     * Entry point.
     *
     * @param args optional: the number of acquisitions per measurement, then the holder counts
     * @throws Exception if a server cannot be started or an acquisition fails
     */
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        List<Integer> counts = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            counts.add(Integer.parseInt(args[i]));
        }
        if (counts.isEmpty()) {
            counts = List.of(4, 64, 1_024);
        }
        List<Row> rows = new ArrayList<>();
        for (int n : counts) {
            rows.add(measure("Baton", n, ops));
            rows.add(measure("Redisson", n, ops));
        }
        System.out.println(table(rows, ops));
    }

    static Row measure(String library, int n, int ops) throws Exception {
        try (RedisServer server = RedisServer.start(RedisBinary.locate(), List.of());
             RedisAdmin admin = RedisAdmin.over(server);
             Subject subject = library.equals("Baton") ? baton(server.uri(), n) : redisson(server.uri(), n)) {
            subject.hold(n);
            for (int i = 0; i < Math.min(ops, 500); i++) {
                subject.cycle(); // warm-up: scripts loaded, JIT, connections
            }
            admin.resetStats();
            List<Long> pids = List.of(server.pid());
            long cpuBefore = ConcurrentCrossCheck.redisCpuNanos(pids);
            long start = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                subject.cycle();
            }
            long elapsed = System.nanoTime() - start;
            long cpu = ConcurrentCrossCheck.redisCpuNanos(pids) - cpuBefore;
            CommandStats stats = admin.commandStats();
            return new Row(library, n, ops, stats.perOp(ops), stats.breakdown(ops),
                    (double) stats.scriptUsec() / ops, cpu / 1_000.0 / ops, ops * 1e9 / elapsed);
        }
    }

    private static Subject baton(String uri, int n) {
        Baton baton = Baton.connect(RedisTarget.standalone(uri).baton());
        DistributedSemaphore semaphore = baton.semaphore("scaling", n + SPARE);
        return new Subject() {
            @Override
            public void hold(int count) {
                for (int i = 0; i < count; i++) {
                    try {
                        semaphore.tryAcquire(1, Duration.ZERO, Duration.ofMinutes(HOLD_MINUTES)).orElseThrow();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }

            @Override
            public void cycle() throws Exception {
                Lease lease = semaphore.acquire(1, WAIT);
                lease.release();
            }

            @Override
            public void close() {
                baton.close();
            }
        };
    }

    private static Subject redisson(String uri, int n) {
        RedissonClient redisson = Redisson.create(RedisTarget.standalone(uri).redisson());
        RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore("scaling");
        semaphore.trySetPermits(n + SPARE);
        return new Subject() {
            @Override
            public void hold(int count) {
                for (int i = 0; i < count; i++) {
                    try {
                        semaphore.acquire(TimeUnit.MINUTES.toMillis(HOLD_MINUTES), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }

            @Override
            public void cycle() throws Exception {
                String id = semaphore.acquire(FamilyContender.SEMAPHORE_LEASE.toMillis(), TimeUnit.MILLISECONDS);
                semaphore.release(id);
            }

            @Override
            public void close() {
                redisson.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    static String table(List<Row> rows, int ops) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "One client, %,d acquire+release cycles per row, n holders holding a"
                + " permit each (semaphore of n + %d permits).%n%n", ops, SPARE));
        out.append("| library | holders n | Redis commands / acquisition | script time in Redis / acquisition (µs)"
                + " | redis-server CPU / acquisition (µs) | acquisitions/s (one client) | commands |\n");
        out.append("|---|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            out.append(String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f | %,.0f | %s |%n", r.library(),
                    r.holders(), r.commandsPerOp(), r.scriptUsecPerOp(), r.redisCpuUsecPerOp(), r.opsPerSecond(),
                    r.breakdown()));
        }
        return out.toString();
    }
}
