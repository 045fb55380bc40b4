package dev.baton.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * Baton against the two lock floors with many threads on one client, in alternating slices in one JVM (rotating who
 * goes first), so that outside load hits all of them alike:
 * <ul>
 *   <li>{@link Shape#OWN_LOCK_8}: 8 threads, each locks and unlocks a lock of its own (scenario (b));</li>
 *   <li>{@link Shape#NAMES_16}: 16 threads pick one of 1000 names at random, one {@code tryLock(0)}, then
 *       {@code unlock()} if it acquired (scenario (d)).</li>
 * </ul>
 * The floors are {@value Contender#WRITING_SCRIPT_FLOOR} (the two writes of a lock made of two scripts, and nothing
 * else) and {@value Contender#SETNX_FLOOR} (a plain {@code SET NX PX} and a compare-and-delete script);
 * {@value Contender#BATON_SCRIPTS} sends Baton's own two scripts by hand, which splits a gap into what Baton's
 * protocol costs (Redis, and encoding its arguments) and what its engine adds. Besides
 * operations per second, every slice measures the CPU an operation costs the benchmark's JVM (all its threads) and
 * the Redis server (user + system, from /proc), which tells where a gap comes from.
 */
final class ConcurrentCrossCheck {
    static final List<String> CONTENDERS = List.of(Contender.WRITING_SCRIPT_FLOOR, Contender.SETNX_FLOOR,
            Contender.BATON_SCRIPTS, Contender.BATON);
    /** Linux reports a process's CPU time in /proc in ticks of 1/100 s (USER_HZ). */
    private static final long NANOS_PER_TICK = 10_000_000;

    /** What the threads do. */
    enum Shape {
        OWN_LOCK_8("(b') 8 threads, own lock each", 8, 0),
        NAMES_16("(d') 16 threads, 1000 names, tryLock(0)", 16, 1000);

        final String label;
        final int threads;
        /** 0: each thread has a lock of its own, locked with lock(); else this many names, tried with tryLock(0). */
        final int names;

        Shape(String label, int threads, int names) {
            this.label = label;
            this.threads = threads;
            this.names = names;
        }
    }

    /** One contender's slices in one shape. */
    record Slices(List<Double> opsPerSecond, List<Double> clientCpuMicros, List<Double> redisCpuMicros) {
        Slices() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        double medianOps() {
            return RateLimiterCrossCheck.median(opsPerSecond);
        }
    }

    private ConcurrentCrossCheck() {
    }

    /**
     * Runs every shape for every contender: {@code slices} slices of {@code slice} each, after {@code warmup} per
     * contender; {@code redisPids} are the processes whose CPU counts as Redis' (none: not measured).
     *
     * @return shape label, then contender, then its slices
     */
    static Map<String, Map<String, Slices>> run(String uri, List<Long> redisPids, List<String> contenders,
                                                 int slices, Duration warmup, Duration slice) throws Exception {
        Map<String, Map<String, Slices>> out = new LinkedHashMap<>();
        for (Shape shape : Shape.values()) {
            out.put(shape.label, run(shape, uri, redisPids, contenders, slices, warmup, slice));
        }
        return out;
    }

    static Map<String, Slices> run(Shape shape, String uri, List<Long> redisPids, List<String> contenders,
                                   int slices, Duration warmup, Duration slice) throws Exception {
        Map<String, Contender> clients = new LinkedHashMap<>();
        Map<String, Lock[]> locks = new LinkedHashMap<>();
        Map<String, Slices> results = new LinkedHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(shape.threads);
        try {
            for (String kind : contenders) {
                Contender client = Contender.open(kind, uri);
                clients.put(kind, client);
                locks.put(kind, locks(client, "bench:x-" + shape.name().toLowerCase(Locale.ROOT) + ":" + kind, shape));
                results.put(kind, new Slices());
            }
            for (String kind : contenders) {
                slice(threads, shape, locks.get(kind), warmup);
            }
            for (int s = 0; s < slices; s++) {
                for (int k = 0; k < contenders.size(); k++) {
                    String kind = contenders.get((s + k) % contenders.size());
                    Slices r = results.get(kind);
                    Measured m = measure(threads, shape, locks.get(kind), slice, redisPids);
                    r.opsPerSecond().add(m.opsPerSecond());
                    r.clientCpuMicros().add(m.clientCpuMicros());
                    r.redisCpuMicros().add(m.redisCpuMicros());
                }
            }
            return results;
        } finally {
            threads.shutdownNow();
            for (Contender client : clients.values()) {
                client.close();
            }
        }
    }

    /** One timed slice: operations per second, and µs of CPU per operation in this JVM and in Redis. */
    record Measured(long ops, double opsPerSecond, double clientCpuMicros, double redisCpuMicros) {
    }

    static Measured measure(ExecutorService threads, Shape shape, Lock[] locks, Duration duration,
                            List<Long> redisPids) throws Exception {
        return measure(() -> slice(threads, shape, locks, duration), redisPids);
    }

    /** Times {@code work}, which returns the operations it completed; {@code redisPids} as for {@link #run}. */
    static Measured measure(Callable<Long> work, List<Long> redisPids) throws Exception {
        long client = clientCpuNanos();
        long redis = redisCpuNanos(redisPids);
        long start = System.nanoTime();
        long ops = work.call();
        double seconds = (System.nanoTime() - start) / 1e9;
        long redisAfter = redisCpuNanos(redisPids);
        return new Measured(ops, ops / seconds, (clientCpuNanos() - client) / 1000.0 / ops,
                redis < 0 || redisAfter < 0 ? Double.NaN : (redisAfter - redis) / 1000.0 / ops);
    }

    /** The locks one shape works on: one per thread, or the pool of names. */
    static Lock[] locks(Contender client, String prefix, Shape shape) {
        Lock[] locks = new Lock[shape.names == 0 ? shape.threads : shape.names];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = client.lock(prefix + ":" + i);
        }
        return locks;
    }

    /** The threads of the shape work for {@code duration}; returns the operations completed. */
    static long slice(ExecutorService threads, Shape shape, Lock[] locks, Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < shape.threads; t++) {
            int own = t;
            counts.add(threads.submit(() -> {
                long n = 0;
                if (shape.names == 0) {
                    Lock lock = locks[own];
                    while (System.nanoTime() < end) {
                        lock.lock();
                        lock.unlock();
                        n++;
                    }
                } else {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        Lock lock = locks[random.nextInt(locks.length)];
                        if (lock.tryLock(0, TimeUnit.MILLISECONDS)) {
                            lock.unlock();
                        }
                        n++;
                    }
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> count : counts) {
            total += count.get();
        }
        return total;
    }

    static long clientCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** User plus system CPU time of these processes so far, or -1 where /proc is not there (not Linux). */
    static long redisCpuNanos(List<Long> pids) {
        if (pids.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                sum += (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
        return sum;
    }
}
