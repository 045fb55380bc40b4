package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;

/**
 * One contender alone under one concurrent shape for a while, on a redis-server of its own: a target for a profiler
 * (JFR, or any sampling profiler), which the interleaved cross-checks cannot be since they mix contenders. Prints
 * operations per second, the CPU per operation of this JVM and of Redis, and Redis' commands per operation.
 *
 * <pre>
 * java -XX:+FlightRecorder -XX:StartFlightRecording=filename=baton.jfr,settings=profile \
 *     -cp baton-bench/target/benchmarks.jar dev.baton.bench.LockLoad baton own8 20
 * jfr print --events jdk.ExecutionSample baton.jfr
 * </pre>
 *
 * Arguments: contender ({@code baton}, {@code writing-script-floor}, {@code setnx-floor}, ...), shape ({@code own8}
 * or {@code names16}), seconds measured (after 3 s of warm-up), and optionally the {@code redis://} URI of a running
 * server instead of starting one (CPU of Redis is then not measured).
 */
public final class LockLoad {
    private LockLoad() {
    }

    /** Bytes allocated so far by the live threads of this JVM (threads that ended meanwhile are not counted). */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LockLoad CONTENDER own8|names16 SECONDS [redis://host:port]");
            System.exit(2);
        }
        String kind = args[0];
        ConcurrentCrossCheck.Shape shape = switch (args[1]) {
            case "own8" -> ConcurrentCrossCheck.Shape.OWN_LOCK_8;
            case "names16" -> ConcurrentCrossCheck.Shape.NAMES_16;
            default -> throw new IllegalArgumentException("shape must be own8 or names16, not " + args[1]);
        };
        Duration measure = Duration.ofSeconds(Long.parseLong(args[2]));
        RedisServer server = args.length > 3 ? null : RedisServer.start(RedisBinary.locate(), List.of());
        String uri = server != null ? server.uri() : args[3];
        List<Long> pids = server != null ? List.of(server.pid()) : List.of();
        ExecutorService threads = Executors.newFixedThreadPool(shape.threads);
        try (Contender client = Contender.open(kind, uri); RedisAdmin admin = RedisAdmin.connect(uri)) {
            Lock[] locks = ConcurrentCrossCheck.locks(client, "bench:load:" + kind, shape);
            ConcurrentCrossCheck.slice(threads, shape, locks, Duration.ofSeconds(3));
            admin.resetStats();
            long allocated = allocatedBytes();
            ConcurrentCrossCheck.Measured m = ConcurrentCrossCheck.measure(threads, shape, locks, measure, pids);
            double bytesPerOp = (double) (allocatedBytes() - allocated) / m.ops();
            CommandStats stats = admin.commandStats();
            System.out.printf(Locale.ROOT, "%s %s: %,.0f ops/s, client CPU %.1f µs/op, Redis CPU %.1f µs/op, "
                            + "%,.0f bytes allocated/op, %.2f Redis cmds/op: %s%n", kind, shape.label,
                    m.opsPerSecond(), m.clientCpuMicros(), m.redisCpuMicros(), bytesPerOp, stats.perOp(m.ops()),
                    stats.breakdown(m.ops()));
        } finally {
            threads.shutdownNow();
            if (server != null) {
                server.close();
            }
        }
        System.exit(0);
    }
}
