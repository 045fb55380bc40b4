package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;

/**
 * Baton and Redisson on the three topologies Baton runs on, side by side on the same servers: a standalone server, a
 * Sentinel group (1 master, 2 replicas, 3 sentinels) and a Cluster (3 masters with a replica each), all started by
 * the test kit and all running at once. Each client is configured for its topology the way its library documents
 * ({@link RedisTarget}); everything else is default. Workloads:
 * <ul>
 *   <li>{@link Workload#LOCK_1}: 1 thread, one lock, {@code lock(); unlock();} (every operation timed);</li>
 *   <li>{@link Workload#LOCK_8}: 8 threads on one client, each with its own lock;</li>
 *   <li>{@link Workload#RATE_8}: 8 threads on one client, each decision on one of 1,000 limiters of 100 per second
 *       (burst 100) picked at random, so nearly all are granted: scenario (r2) on fewer names.</li>
 * </ul>
 * Within a workload, every (topology, contender) pair runs in short slices in turn, rotating who goes first, so
 * that outside load hits all of them alike. Besides operations per second, each slice measures the CPU an operation
 * costs all the redis-server processes of the topology (replicas and sentinels included), from /proc.
 */
final class TopologyComparison {
    /** The contenders on every topology and workload. */
    static final List<String> CONTENDERS = List.of(Contender.BATON, Contender.REDISSON);
    /**
     * Baton variants measured only where they apply: replica-acknowledged locks behind Sentinel (Baton refuses them
     * on a Cluster, and a standalone server has no replica to wait for). Another variant goes here and in
     * {@link Contender#open(String, RedisTarget)}.
     */
    static final List<String> SENTINEL_LOCK_VARIANTS = List.of(Contender.BATON_ACKED);

    /** Who runs a workload on a topology. */
    static List<String> contenders(Workload w, String topology) {
        if (w != Workload.RATE_8 && topology.equals(RedisTarget.SENTINEL)) {
            List<String> all = new ArrayList<>(CONTENDERS);
            all.addAll(SENTINEL_LOCK_VARIANTS);
            return all;
        }
        return CONTENDERS;
    }
    static final int RATE_LIMITERS = 1_000;
    private static final Duration IDLE_MEASURE = Duration.ofSeconds(3);

    enum Workload {
        LOCK_1("lock+unlock, 1 thread", 1),
        LOCK_8("lock+unlock, 8 threads, own lock each", 8),
        RATE_8("rate-limit decisions, 8 threads, 1,000 limiters", 8);

        final String label;
        final int threads;

        Workload(String label, int threads) {
            this.label = label;
            this.threads = threads;
        }
    }

    /** One (topology, contender) pair's slices in one workload. */
    static final class Slices {
        final List<Double> opsPerSecond = new ArrayList<>();
        final List<Double> redisCpuMicros = new ArrayList<>();
        /** Per-operation times, 1-thread workload only. */
        final List<long[]> latencies = new ArrayList<>();

        double medianOps() {
            return RateLimiterCrossCheck.median(opsPerSecond);
        }
    }

    /** What a run found: workload, then topology, then contender. */
    static final class Result {
        final Map<Workload, Map<String, Map<String, Slices>>> slices = new LinkedHashMap<>();
        /** Topology -> what it runs on, for the report. */
        final Map<String, String> servers = new LinkedHashMap<>();
        String redisVersion = "?";
        /** Topology -> CPU its processes use while no client works (replication, sentinels, cluster bus), ns/s. */
        final Map<String, Double> idleCpuNanosPerSecond = new LinkedHashMap<>();

        Slices of(Workload w, String topology, String contender) {
            return slices.computeIfAbsent(w, k -> new LinkedHashMap<>()).computeIfAbsent(topology,
                    k -> new LinkedHashMap<>()).computeIfAbsent(contender, k -> new Slices());
        }
    }

    private TopologyComparison() {
    }

    /** Starts the three topologies, measures every workload, and stops them. */
    static Result run(RedisBinary binary, int slices, Duration warmup, Duration slice) throws Exception {
        Result result = new Result();
        BenchMain.log("starting a standalone server, a Sentinel group and a Cluster");
        try (RedisServer standalone = RedisServer.start(binary, List.of());
             RedisSentinelGroup sentinel = RedisSentinelGroup.start(binary);
             RedisCluster cluster = RedisCluster.start(binary)) {
            List<RedisTarget> targets = List.of(RedisTarget.of(standalone), RedisTarget.of(sentinel),
                    RedisTarget.of(cluster));
            result.redisVersion = BenchMain.infoField(standalone.command("INFO", "server"), "redis_version")
                    + " (" + binary.source() + ": " + binary.path() + ")";
            result.servers.put(RedisTarget.STANDALONE, "1 redis-server");
            result.servers.put(RedisTarget.SENTINEL, "1 master, 2 replicas, 3 sentinels (quorum 2)");
            result.servers.put(RedisTarget.CLUSTER, "3 masters, 1 replica each");
            idleCpu(targets, result);
            locks(targets, result, slices, warmup, slice);
            rateLimits(targets, result, slices, warmup, slice);
        }
        return result;
    }

    /**
     * What the topologies cost while nobody works: replicas' and sentinels' pings, the cluster bus. Subtracted from
     * every slice's Redis CPU, so that the figures per operation are the operations' own.
     */
    private static void idleCpu(List<RedisTarget> targets, Result result) throws InterruptedException {
        long[] before = new long[targets.size()];
        for (int i = 0; i < before.length; i++) {
            before[i] = ConcurrentCrossCheck.redisCpuNanos(targets.get(i).redisPids());
        }
        long start = System.nanoTime();
        Thread.sleep(IDLE_MEASURE.toMillis());
        double seconds = (System.nanoTime() - start) / 1e9;
        for (int i = 0; i < before.length; i++) {
            long after = ConcurrentCrossCheck.redisCpuNanos(targets.get(i).redisPids());
            result.idleCpuNanosPerSecond.put(targets.get(i).topology(),
                    before[i] < 0 || after < 0 ? 0.0 : (after - before[i]) / seconds);
        }
    }

    private static void locks(List<RedisTarget> targets, Result result, int slices, Duration warmup,
                              Duration slice) throws Exception {
        Map<String, Contender> clients = new LinkedHashMap<>();
        try {
            Map<String, Lock[]> locks = new LinkedHashMap<>();
            for (RedisTarget target : targets) {
                for (String kind : contenders(Workload.LOCK_8, target.topology())) {
                    Contender client = Contender.open(kind, target);
                    clients.put(key(target, kind), client);
                    Lock[] own = new Lock[Workload.LOCK_8.threads];
                    for (int i = 0; i < own.length; i++) {
                        own[i] = client.lock("bench:topo:" + target.topology() + ":" + kind + ":" + i);
                    }
                    locks.put(key(target, kind), own);
                }
            }
            for (Workload w : List.of(Workload.LOCK_1, Workload.LOCK_8)) {
                BenchMain.log("topologies: " + w.label);
                interleave(w, targets, result, slices, warmup, slice, (k, t) -> {
                    Lock lock = locks.get(k)[t];
                    return () -> {
                        lock.lock();
                        lock.unlock();
                    };
                });
            }
        } finally {
            clients.values().forEach(Contender::close);
        }
    }

    private static void rateLimits(List<RedisTarget> targets, Result result, int slices, Duration warmup,
                                   Duration slice) throws Exception {
        Map<String, RateLimiterContender> clients = new LinkedHashMap<>();
        try {
            Map<String, RateLimiterContender.Limiter[]> limiters = new LinkedHashMap<>();
            for (RedisTarget target : targets) {
                for (String kind : CONTENDERS) {
                    RateLimiterContender client = RateLimiterContender.open(kind, target);
                    clients.put(key(target, kind), client);
                    RateLimiterContender.Limiter[] own = new RateLimiterContender.Limiter[RATE_LIMITERS];
                    for (int i = 0; i < own.length; i++) {
                        own[i] = client.limiter("bench:topo-rate:" + target.topology() + ":" + kind + ":" + i,
                                RateLimiterContender.Rate.PER_KEY);
                    }
                    limiters.put(key(target, kind), own);
                }
            }
            BenchMain.log("topologies: " + Workload.RATE_8.label);
            interleave(Workload.RATE_8, targets, result, slices, warmup, slice, (k, t) -> {
                RateLimiterContender.Limiter[] own = limiters.get(k);
                return () -> own[ThreadLocalRandom.current().nextInt(own.length)].tryAcquire();
            });
        } finally {
            clients.values().forEach(RateLimiterContender::close);
        }
    }

    /** The operation thread {@code t} repeats for the pair {@code key}. */
    @FunctionalInterface
    private interface Operations {
        Runnable of(String key, int thread);
    }

    private static void interleave(Workload w, List<RedisTarget> targets, Result result, int slices,
                                   Duration warmup, Duration slice, Operations operations) throws Exception {
        List<RedisTarget> pairTargets = new ArrayList<>();
        List<String> pairKinds = new ArrayList<>();
        for (RedisTarget target : targets) {
            for (String kind : contenders(w, target.topology())) {
                pairTargets.add(target);
                pairKinds.add(kind);
            }
        }
        ExecutorService threads = Executors.newFixedThreadPool(w.threads);
        try {
            long[] buffer = new long[1 << 21];
            for (int p = 0; p < pairTargets.size(); p++) {
                runSlice(threads, w, operations, key(pairTargets.get(p), pairKinds.get(p)), warmup, buffer);
            }
            for (int s = 0; s < slices; s++) {
                for (int i = 0; i < pairTargets.size(); i++) {
                    int p = (s + i) % pairTargets.size();
                    RedisTarget target = pairTargets.get(p);
                    String kind = pairKinds.get(p);
                    long redis = ConcurrentCrossCheck.redisCpuNanos(target.redisPids());
                    long start = System.nanoTime();
                    long ops = runSlice(threads, w, operations, key(target, kind), slice, buffer);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    long redisAfter = ConcurrentCrossCheck.redisCpuNanos(target.redisPids());
                    Slices r = result.of(w, target.topology(), kind);
                    r.opsPerSecond.add(ops / seconds);
                    double idle = result.idleCpuNanosPerSecond.getOrDefault(target.topology(), 0.0) * seconds;
                    r.redisCpuMicros.add(redis < 0 || redisAfter < 0 ? Double.NaN
                            : Math.max(0, redisAfter - redis - idle) / 1000.0 / ops);
                    if (w.threads == 1) {
                        r.latencies.add(Arrays.copyOf(buffer, (int) Math.min(ops, buffer.length)));
                    }
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Runs the workload's threads for {@code duration}; with one thread, each operation's time goes to nanos. */
    private static long runSlice(ExecutorService threads, Workload w, Operations operations, String key,
                                 Duration duration, long[] nanos) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < w.threads; t++) {
            Runnable op = operations.of(key, t);
            boolean timed = w.threads == 1;
            counts.add(threads.submit(() -> {
                long n = 0;
                while (true) {
                    long t0 = System.nanoTime();
                    op.run();
                    long t1 = System.nanoTime();
                    if (timed && n < nanos.length) {
                        nanos[(int) n] = t1 - t0;
                    }
                    n++;
                    if (t1 >= end) {
                        return n;
                    }
                }
            }));
        }
        long total = 0;
        for (Future<Long> count : counts) {
            total += count.get();
        }
        return total;
    }

    private static String key(RedisTarget target, String kind) {
        return target.topology() + "/" + kind;
    }
}
