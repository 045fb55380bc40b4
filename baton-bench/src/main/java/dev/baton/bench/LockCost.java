package dev.baton.bench;

import com.sun.management.ThreadMXBean;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * What one lock operation costs, counted rather than timed, so that it can be taken on a loaded machine: Redis
 * commands and their {@code usec} per operation ({@code INFO commandstats}), the client's CPU and the bytes all its
 * threads allocated per operation, and, if the server runs under {@code valgrind --tool=callgrind}, one callgrind
 * dump per contender (its instruction counts are what this exists for: they do not depend on the load).
 *
 * <pre>
 * java -cp baton-bench/target/benchmarks.jar dev.baton.bench.LockCost URI plain OPS [contender...]
 * java -cp baton-bench/target/benchmarks.jar dev.baton.bench.LockCost URI fair OPS
 * java -cp baton-bench/target/benchmarks.jar dev.baton.bench.LockCost URI handoff SECONDS [baton redisson]
 * </pre>
 *
 * <ul>
 *   <li>{@code plain}: the shape of scenario (d), {@link LockManyNamesTryLockBenchmark}: 16 threads on one client
 *       over 1,000 names, one operation = {@code tryLock(0)} and, if it acquired, {@code unlock()}. Contenders as in
 *       {@link Contender} (default: setnx-floor, baton, baton-scripts), one after the other, each warmed up with the
 *       same number of operations first.</li>
 *   <li>{@code fair}: the shape of workload (f), {@link FairLockScenario}: one fair lock, 4 Batons with 2 threads
 *       each, {@code lock(); unlock();}; one operation = one acquisition.</li>
 *   <li>{@code handoff}: workload (f) timed (not counted): the handoff from {@code unlock()} called against an idle
 *       PING and against PINGs timed during the round, for Baton's fair lock and Redisson's {@code RFairLock}.</li>
 * </ul>
 *
 * System property {@code cost.callgrind=<pid>}: runs {@code callgrind_control -z} before and {@code -d <label>}
 * after each measured phase. Redis CPU is the server's own account ({@code INFO cpu}, all its threads).
 * Not thread-safe; a tool, run once per JVM.
 */
public final class LockCost {
    private static final int THREADS = 16;
    private static final int NAMES = 1_000;
    private static final String WORKER = "lock-cost-worker";
    /** The connection that reads {@code INFO cpu}. */
    private static RedisCommands<String, String> cpuInfo;
    /** Bytes the workers of the current phase allocated, each added as its thread finishes. */
    private static final AtomicLong WORKER_BYTES = new AtomicLong();

    private LockCost() {
    }

    /**
     * Runs the measurement named by the arguments and prints one Markdown table row per contender.
     *
     * @param args Redis URI, {@code plain} or {@code fair}, operations per phase, then contenders ({@code plain})
     * @throws Exception if a phase fails or is interrupted
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LockCost <redis-uri> plain|fair <ops> [contender...]");
            System.exit(2);
        }
        String uri = args[0];
        String mode = args[1];
        long ops = Long.parseLong(args[2]);
        List<String> contenders = args.length > 3 ? List.of(args).subList(3, args.length)
                : List.of(Contender.SETNX_FLOOR, Contender.BATON, Contender.BATON_SCRIPTS);
        System.out.println("| mode | contender | ops | Redis cmds/op | Redis CPU µs/op (INFO cpu)"
                + " | client CPU µs/op | client bytes/op | commands per op (commandstats) |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---|");
        RedisClient infoClient = RedisClient.create(uri);
        try (RedisAdmin admin = RedisAdmin.connect(uri);
             StatefulRedisConnection<String, String> info = infoClient.connect(StringCodec.UTF8)) {
            cpuInfo = info.sync();
            if (mode.equals("handoff")) {
                handoff(uri, admin, ops, args.length > 3 ? contenders : List.of(Contender.BATON, Contender.REDISSON));
            } else if (mode.equals("fair")) {
                measureFair(uri, admin, ops);
            } else {
                for (String contender : contenders) {
                    measurePlain(uri, admin, contender, ops);
                }
            }
        } finally {
            infoClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static void measurePlain(String uri, RedisAdmin admin, String kind, long ops) throws Exception {
        try (Contender client = Contender.open(kind, uri)) {
            Lock[] locks = new Lock[NAMES];
            for (int i = 0; i < NAMES; i++) {
                locks[i] = client.lock("bench:cost:" + kind + ":" + i);
            }
            Runnable op = () -> {
                Lock lock = locks[ThreadLocalRandom.current().nextInt(NAMES)];
                try {
                    if (lock.tryLock(0, TimeUnit.MILLISECONDS)) {
                        lock.unlock();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            List<Runnable> perThread = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                perThread.add(op);
            }
            phase(perThread, ops); // warm-up
            measured("plain", kind, admin, perThread, ops);
        }
    }

    private static void measureFair(String uri, RedisAdmin admin, long ops) throws Exception {
        List<FamilyContender> clients = new ArrayList<>();
        try {
            List<Runnable> perThread = new ArrayList<>();
            for (int c = 0; c < FairLockScenario.CLIENTS; c++) {
                clients.add(FamilyContender.open(Contender.BATON, RedisTarget.standalone(uri)));
            }
            for (int t = 0; t < FairLockScenario.CLIENTS * HandoffScenario.THREADS_PER_CLIENT; t++) {
                Lock lock = clients.get(t / HandoffScenario.THREADS_PER_CLIENT).fairLock("bench:cost:fair");
                perThread.add(() -> {
                    lock.lock();
                    lock.unlock();
                });
            }
            phase(perThread, ops);
            measured("fair", Contender.BATON, admin, perThread, ops);
        } finally {
            for (FamilyContender client : clients) {
                client.close();
            }
        }
    }

    /**
     * Workload (f) timed, {@code seconds} measured per contender after 2 s of warm-up: the handoff from unlock()
     * called against one idle PING (before the round) and against PINGs timed during the round on their own
     * connection (the same contention).
     */
    private static void handoff(String uri, RedisAdmin admin, long seconds, List<String> kinds) {
        System.out.println();
        System.out.println("| contender | acquisitions/s | handoff from unlock() called p50 µs | idle PING p50 µs"
                + " | PING under the same contention p50 µs (p99) | handoff / idle PING | handoff / loaded PING |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (String kind : kinds) {
            long[] idle = PingProbe.measure(uri, Duration.ofMillis(300), Duration.ofSeconds(1));
            List<FamilyContender> clients = new ArrayList<>();
            try {
                List<Lock> locks = new ArrayList<>();
                for (int c = 0; c < FairLockScenario.CLIENTS; c++) {
                    clients.add(FamilyContender.open(kind, RedisTarget.standalone(uri)));
                }
                for (int t = 0; t < FairLockScenario.CLIENTS * HandoffScenario.THREADS_PER_CLIENT; t++) {
                    locks.add(clients.get(t / HandoffScenario.THREADS_PER_CLIENT).fairLock("bench:cost:handoff:" + kind));
                }
                HandoffScenario.Round r = HandoffScenario.measure(kind, locks, Duration.ofSeconds(2),
                        Duration.ofSeconds(seconds), admin, List.of(), uri);
                double handoff = Percentiles.pooled(List.of(r.handoffFromCallNanos)).micros(50);
                double idlePing = Percentiles.pooled(List.of(idle)).micros(50);
                Percentiles loaded = Percentiles.pooled(List.of(r.pingUnderLoadNanos));
                System.out.printf(Locale.ROOT, "| %s | %,.0f | %.1f | %.1f | %.1f (%.1f) | %.2fx | %.2fx |%n", kind,
                        r.perSecond(), handoff, idlePing, loaded.micros(50), loaded.micros(99), handoff / idlePing,
                        handoff / loaded.micros(50));
            } finally {
                for (FamilyContender client : clients) {
                    client.close();
                }
            }
        }
    }

    private static void measured(String mode, String kind, RedisAdmin admin, List<Runnable> perThread, long ops)
            throws Exception {
        String callgrind = System.getProperty("cost.callgrind");
        if (callgrind != null) {
            run("callgrind_control", "-z", callgrind);
        }
        admin.resetStats();
        double redisCpu = serverCpuSeconds();
        long cpu = ConcurrentCrossCheck.clientCpuNanos();
        long bytes = allocatedBytes();
        WORKER_BYTES.set(0);
        long done = phase(perThread, ops);
        long bytesAfter = allocatedBytes() + WORKER_BYTES.get();
        long cpuAfter = ConcurrentCrossCheck.clientCpuNanos();
        double redisCpuAfter = serverCpuSeconds();
        if (callgrind != null) {
            run("callgrind_control", "-d", mode + "-" + kind, callgrind);
        }
        CommandStats stats = admin.commandStats();
        System.out.printf(Locale.ROOT, "| %s | %s | %,d | %.2f | %.1f | %.1f | %,d | %s |%n", mode, kind, done,
                stats.perOp(done), (redisCpuAfter - redisCpu) * 1e6 / done,
                (cpuAfter - cpu) / 1000.0 / done, (bytesAfter - bytes) / done, stats.breakdown(done));
    }

    /** Runs every runnable on its own thread until {@code ops} operations are done in all; returns how many were. */
    private static long phase(List<Runnable> perThread, long ops) throws InterruptedException {
        AtomicLong left = new AtomicLong(ops);
        AtomicLong done = new AtomicLong();
        CountDownLatch finished = new CountDownLatch(perThread.size());
        for (Runnable op : perThread) {
            Thread t = new Thread(() -> {
                try {
                    while (left.getAndDecrement() > 0) {
                        op.run();
                        done.incrementAndGet();
                    }
                } finally {
                    WORKER_BYTES.addAndGet(((ThreadMXBean) ManagementFactory.getThreadMXBean())
                            .getCurrentThreadAllocatedBytes());
                    finished.countDown();
                }
            }, WORKER);
            t.setDaemon(true);
            t.start();
        }
        if (!finished.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("a phase of " + ops + " operations did not finish in 10 minutes");
        }
        return done.get();
    }

    /**
     * Bytes allocated so far by every live thread of this JVM but the phase workers, which report their own share
     * into {@link #WORKER_BYTES} as they finish (a thread that ended can no longer be asked).
     */
    private static long allocatedBytes() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && !info.getThreadName().equals(WORKER)) {
                long b = threads.getThreadAllocatedBytes(info.getThreadId());
                sum += Math.max(0, b);
            }
        }
        return sum;
    }

    /** The server's user plus system CPU so far ({@code INFO cpu}), in seconds. */
    private static double serverCpuSeconds() {
        double sum = 0;
        for (String line : cpuInfo.info("cpu").split("\\R")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                sum += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return sum;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("failed: " + String.join(" ", command));
        }
    }

}
