package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.internal.redlock.RedlockStatistics;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Baton's Redlock ({@code BatonConfig.builder().redlock(...)}) over 3 and 5 independent masters, against Baton's
 * single-node lock and against Redisson's {@code RedissonRedLock} over the same masters, all on
 * {@value #MASTERS} redis-servers started by the test kit ({@link RedisServers}). A contender over {@code n} masters
 * uses the first {@code n} of them; the single-node contenders use the first. Every client has its library's defaults
 * otherwise (Baton: watchdog lease; Redisson: one {@code RedissonClient} per master, as {@code RedissonRedLock}
 * requires, and {@code lock()} with the watchdog). The two Baton Redlocks have namespaces of their own, so that
 * neither finds the other's admission markers on the shared masters.
 *
 * <p>Three measurements:
 * <ol>
 *   <li><b>Uncontended</b> ({@link #UNCONTENDED}): 1 thread, one lock, {@code lock(); unlock();}, every operation
 *       timed; every contender and the round-trip floors in alternating slices (rotating who goes first), so that
 *       outside load hits all of them alike. Each slice also counts the Redis commands of the operation summed over
 *       the contender's masters ({@code CONFIG RESETSTAT} before, {@code INFO commandstats} after), the CPU it costs
 *       this JVM and the contender's redis-server processes. The floors ({@link QuorumPingFloor}) send one
 *       {@code PING} to each of {@code n} masters at once per "lock" and per "unlock" and go on once a majority
 *       answered: two parallel rounds, nothing else, which is what any Redlock's lock+unlock costs at least.
 *       {@value #PING_3_ON_1} fans out the same way over 3 connections to one server, which tells the cost of
 *       fanning out from the cost of 3 server processes sharing the machine's cores.</li>
 *   <li><b>Contended</b> ({@link #CONTENDED}): scenario (c)'s shape ({@link HandoffScenario}): 4 clients of a
 *       contender, 2 threads each, one lock name, {@code lock(); unlock();}; rounds alternating between contenders,
 *       each on fresh clients after a warm-up; acquisitions per second, handoff latency, commands per acquisition
 *       over all masters, CPU.</li>
 *   <li><b>First acquisition</b>: a fresh client's first lock+unlock (and its second), with its commands: what a new
 *       Baton pays to calibrate its token proposals, and, for a Redlock in a namespace nobody used, to admit the
 *       masters.</li>
 * </ol>
 */
final class RedlockComparison {
    static final int MASTERS = 5;
    static final String UNCONTENDED = "lock+unlock, 1 thread";
    static final String CONTENDED = "lock+unlock, 8 threads / 4 clients, one lock";

    static final String BATON = Contender.BATON;
    static final String BATON_3 = "baton-redlock-3";
    static final String BATON_5 = "baton-redlock-5";
    static final String REDISSON = Contender.REDISSON;
    static final String REDISSON_3 = "redisson-redlock-3";
    static final String REDISSON_5 = "redisson-redlock-5";
    static final String PING_1 = "ping-floor";
    static final String PING_3 = "ping-floor-3";
    static final String PING_5 = "ping-floor-5";
    /** ping-floor-3's fan-out over 3 connections to one server: the fan-out without 3 server processes. */
    static final String PING_3_ON_1 = "ping-floor-3-on-1";
    /** The locks compared, in the order of the report. */
    static final List<String> LOCKS = List.of(BATON, BATON_3, BATON_5, REDISSON, REDISSON_3, REDISSON_5);
    /** The round-trip floors: 1, 3 and 5 masters, and 3 connections to 1 master. */
    static final List<String> FLOORS = List.of(PING_1, PING_3, PING_5, PING_3_ON_1);
    private static final int CAPACITY = 1 << 20;

    /**
     * How long each part runs: uncontended slices per contender, their warm-up and length; contended rounds per
     * contender, their warm-up and measured length; fresh clients probed per contender for the first acquisition.
     */
    record Plan(int slices, Duration warmup, Duration slice, int rounds, Duration roundWarmup,
                Duration roundMeasure, int firstProbes) {
        static Plan full() {
            return new Plan(5, Duration.ofSeconds(1), Duration.ofSeconds(2), 3, Duration.ofSeconds(1),
                    Duration.ofSeconds(3), 3);
        }

        static Plan quick() {
            return new Plan(1, Duration.ofMillis(300), Duration.ofMillis(500), 1, Duration.ofMillis(300),
                    Duration.ofSeconds(1), 1);
        }
    }

    /** One contender's uncontended slices. */
    static final class Slices {
        final List<Double> opsPerSecond = new ArrayList<>();
        final List<long[]> latencies = new ArrayList<>();
        final List<Double> clientCpuMicros = new ArrayList<>();
        final List<Double> redisCpuMicros = new ArrayList<>();
        /** Commands summed over the contender's masters and over every slice, and the operations of those slices. */
        CommandStats stats = CommandStats.empty();
        long ops;

        double medianOps() {
            return RateLimiterCrossCheck.median(opsPerSecond);
        }

        /** The p-th percentile of one slice's latencies, in µs. */
        double sliceMicros(int slice, double p) {
            long[] l = latencies.get(slice);
            return new Percentiles(l, l.length).micros(p);
        }
    }

    /** A fresh client's first operations. */
    record First(String contender, boolean freshNamespace, long firstNanos, long secondNanos, CommandStats stats) {
    }

    /** What a run found. */
    static final class Result {
        final Plan plan;
        String redisVersion = "?";
        final Map<String, Slices> uncontended = new LinkedHashMap<>();
        /** Contender -> its contended rounds, in the order run. */
        final Map<String, List<HandoffScenario.Round>> contended = new LinkedHashMap<>();
        /**
         * Baton Redlock contender -> what {@link RedlockStatistics} counted over each of its contended rounds
         * (warm-up included: only the contender's own clients run then).
         */
        final Map<String, List<RedlockStatistics.Counts>> redlockCounts = new LinkedHashMap<>();
        final List<First> first = new ArrayList<>();
        /** Per master, the CPU it uses while the uncontended clients are connected but idle, ns/s. */
        final List<Double> idleCpuNanosPerSecond = new ArrayList<>();
        final List<String> anomalies = new ArrayList<>();

        Result(Plan plan) {
            this.plan = plan;
        }
    }

    private RedlockComparison() {
    }

    /** How many masters a contender uses. */
    static int masters(String kind) {
        return switch (kind) {
            case BATON_3, REDISSON_3, PING_3 -> 3;
            case BATON_5, REDISSON_5, PING_5 -> 5;
            default -> 1;
        };
    }

    /** Starts the masters, runs the three parts, stops the masters. */
    static Result run(RedisBinary binary, Plan plan) throws Exception {
        Result result = new Result(plan);
        BenchMain.log("starting " + MASTERS + " independent redis-servers");
        try (RedisServers servers = RedisServers.start(binary, MASTERS)) {
            List<RedisServer> all = servers.servers();
            result.redisVersion = BenchMain.infoField(all.get(0).command("INFO", "server"), "redis_version")
                    + " (" + binary.source() + ": " + binary.path() + ")";
            try {
                uncontended(all, plan, result);
            } catch (Exception | Error e) {
                result.anomalies.add("uncontended part failed:\n" + HandoffScenario.stackTrace(e));
            }
            try {
                contended(all, plan, result);
            } catch (Exception | Error e) {
                result.anomalies.add("contended part failed:\n" + HandoffScenario.stackTrace(e));
            }
            try {
                firstAcquisitions(all, plan.firstProbes(), result);
            } catch (Exception | Error e) {
                result.anomalies.add("first-acquisition part failed:\n" + HandoffScenario.stackTrace(e));
            }
        }
        return result;
    }

    // ---- uncontended ----

    private static void uncontended(List<RedisServer> all, Plan plan, Result result) throws Exception {
        List<String> kinds = new ArrayList<>(LOCKS);
        kinds.addAll(FLOORS);
        Map<String, Contender> clients = new LinkedHashMap<>();
        try {
            Map<String, Lock> locks = new LinkedHashMap<>();
            for (String kind : kinds) {
                Contender client = open(kind, all, "bench-r");
                clients.put(kind, client);
                locks.put(kind, client.lock("bench:redlock:a:" + kind));
                result.uncontended.put(kind, new Slices());
            }
            BenchMain.log("redlock: " + UNCONTENDED + ", warm-up");
            long[] buffer = new long[CAPACITY];
            for (String kind : kinds) {
                UncontendedCrossCheck.measure(locks.get(kind), plan.warmup(), buffer);
            }
            idleCpu(all, result);
            BenchMain.log("redlock: " + UNCONTENDED + ", " + plan.slices() + " x " + kinds.size() + " slices of "
                    + plan.slice().toMillis() + " ms");
            RedisAdmin admin = overAll(all);
            for (int s = 0; s < plan.slices(); s++) {
                for (int k = 0; k < kinds.size(); k++) {
                    String kind = kinds.get((s + k) % kinds.size());
                    List<RedisServer> masters = all.subList(0, masters(kind));
                    List<Long> pids = masters.stream().map(RedisServer::pid).toList();
                    admin.resetStats();
                    long client = ConcurrentCrossCheck.clientCpuNanos();
                    long redis = ConcurrentCrossCheck.redisCpuNanos(pids);
                    long start = System.nanoTime();
                    int n = UncontendedCrossCheck.measure(locks.get(kind), plan.slice(), buffer);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    long redisAfter = ConcurrentCrossCheck.redisCpuNanos(pids);
                    long clientAfter = ConcurrentCrossCheck.clientCpuNanos();
                    CommandStats stats = overAll(masters).commandStats();
                    Slices r = result.uncontended.get(kind);
                    r.opsPerSecond.add(n / seconds);
                    r.latencies.add(Arrays.copyOf(buffer, Math.min(n, buffer.length)));
                    r.clientCpuMicros.add((clientAfter - client) / 1000.0 / n);
                    double idle = 0;
                    for (int m = 0; m < masters.size(); m++) {
                        idle += result.idleCpuNanosPerSecond.get(m) * seconds;
                    }
                    r.redisCpuMicros.add(redis < 0 || redisAfter < 0 ? Double.NaN
                            : Math.max(0, redisAfter - redis - idle) / 1000.0 / n);
                    r.stats = r.stats.plus(stats);
                    r.ops += n;
                }
            }
        } finally {
            clients.values().forEach(RedlockComparison::closeQuietly);
        }
    }

    /** What each master costs while the clients are connected and idle (pings, timers), over 2 s. */
    private static void idleCpu(List<RedisServer> all, Result result) throws InterruptedException {
        long[] before = new long[all.size()];
        for (int i = 0; i < before.length; i++) {
            before[i] = ConcurrentCrossCheck.redisCpuNanos(List.of(all.get(i).pid()));
        }
        long start = System.nanoTime();
        Thread.sleep(2_000);
        double seconds = (System.nanoTime() - start) / 1e9;
        for (int i = 0; i < before.length; i++) {
            long after = ConcurrentCrossCheck.redisCpuNanos(List.of(all.get(i).pid()));
            result.idleCpuNanosPerSecond.add(before[i] < 0 || after < 0 ? 0.0 : (after - before[i]) / seconds);
        }
    }

    // ---- contended ----

    private static void contended(List<RedisServer> all, Plan plan, Result result) {
        for (int round = 0; round < plan.rounds(); round++) {
            for (int k = 0; k < LOCKS.size(); k++) {
                String kind = LOCKS.get((round + k) % LOCKS.size());
                List<RedisServer> masters = all.subList(0, masters(kind));
                BenchMain.log("redlock: " + CONTENDED + ", " + kind + ", round " + (round + 1) + ": "
                        + plan.roundMeasure().toMillis() + " ms");
                List<Contender> clients = new ArrayList<>();
                try {
                    for (int c = 0; c < HandoffScenario.CLIENTS; c++) {
                        clients.add(open(kind, all, "bench-r"));
                    }
                    String name = "bench:redlock:c:" + kind + ":" + round;
                    List<Lock> locks = new ArrayList<>();
                    for (int t = 0; t < HandoffScenario.CLIENTS * HandoffScenario.THREADS_PER_CLIENT; t++) {
                        locks.add(clients.get(t / HandoffScenario.THREADS_PER_CLIENT).lock(name));
                    }
                    RedlockStatistics.Counts before = RedlockStatistics.snapshot();
                    HandoffScenario.Round r = HandoffScenario.measure(kind, locks, plan.roundWarmup(),
                            plan.roundMeasure(), overAll(masters), masters.stream().map(RedisServer::pid).toList());
                    result.contended.computeIfAbsent(kind, x -> new ArrayList<>()).add(r);
                    if (kind.equals(BATON_3) || kind.equals(BATON_5)) {
                        result.redlockCounts.computeIfAbsent(kind, x -> new ArrayList<>())
                                .add(RedlockStatistics.snapshot().minus(before));
                    }
                    BenchMain.log(String.format("  %.0f acquisitions/s", r.perSecond()));
                } catch (Exception | Error e) {
                    result.anomalies.add(CONTENDED + " with " + kind + " failed:\n" + HandoffScenario.stackTrace(e));
                } finally {
                    clients.forEach(RedlockComparison::closeQuietly);
                }
            }
        }
    }

    // ---- first acquisitions ----

    private static void firstAcquisitions(List<RedisServer> all, int probes, Result result) {
        BenchMain.log("redlock: first lock+unlock of fresh clients");
        for (int probe = 0; probe < probes; probe++) {
            for (String kind : LOCKS) {
                result.first.add(first(kind, all, "bench-r", false, probe));
                if (kind.equals(BATON_3) || kind.equals(BATON_5)) {
                    result.first.add(first(kind, all, "bench-new" + probe, true, probe));
                }
            }
        }
    }

    private static First first(String kind, List<RedisServer> all, String namespace, boolean freshNamespace,
                               int probe) {
        RedisAdmin admin = overAll(all.subList(0, masters(kind)));
        try (Contender client = open(kind, all, namespace)) {
            Lock lock = client.lock("bench:redlock:first:" + kind + ":" + probe + (freshNamespace ? ":new" : ""));
            admin.resetStats();
            long t0 = System.nanoTime();
            lock.lock();
            lock.unlock();
            long t1 = System.nanoTime();
            CommandStats stats = admin.commandStats();
            lock.lock();
            lock.unlock();
            long t2 = System.nanoTime();
            return new First(kind, freshNamespace, t1 - t0, t2 - t1, stats);
        }
    }

    // ---- clients ----

    /**
     * Opens a contender over the first {@link #masters(String)} servers; {@code namespace} is the prefix of the Baton
     * Redlocks' namespaces (the 3- and 5-master ones get one each).
     */
    static Contender open(String kind, List<RedisServer> all, String namespace) {
        String[] uris = all.subList(0, masters(kind)).stream().map(RedisServer::uri).toArray(String[]::new);
        return switch (kind) {
            case BATON, REDISSON -> Contender.open(kind, uris[0]);
            case BATON_3, BATON_5 -> Contender.baton(BatonConfig.builder().redlock(uris)
                    .namespace(namespace + uris.length).build());
            case REDISSON_3, REDISSON_5 -> new RedissonRedlock(uris);
            case PING_1, PING_3, PING_5 -> new QuorumPingFloor(uris);
            case PING_3_ON_1 -> new QuorumPingFloor(new String[] {uris[0], uris[0], uris[0]});
            default -> throw new IllegalArgumentException("unknown Redlock contender '" + kind + "'");
        };
    }

    /** A {@link RedisAdmin} over several servers: resets each, and sums their command statistics. */
    static RedisAdmin overAll(List<RedisServer> servers) {
        return new RedisAdmin() {
            @Override
            public void resetStats() {
                servers.forEach(s -> s.command("CONFIG", "RESETSTAT"));
            }

            @Override
            public CommandStats commandStats() {
                CommandStats sum = CommandStats.empty();
                for (RedisServer s : servers) {
                    sum = sum.plus(CommandStats.parse(s.command("INFO", "commandstats")));
                }
                return sum;
            }

            @Override
            public void close() {
                // the servers belong to the caller
            }
        };
    }

    private static void closeQuietly(Contender client) {
        try {
            client.close();
        } catch (RuntimeException e) {
            // best effort: a client stuck in close must not cost the rest of the run
        }
    }

    /** {@code RedissonRedLock} over one {@code RedissonClient} per master, each with Redisson's defaults. */
    private static final class RedissonRedlock extends Contender {
        private final List<RedissonClient> clients = new ArrayList<>();

        RedissonRedlock(String[] uris) {
            try {
                for (String uri : uris) {
                    Config config = new Config();
                    config.useSingleServer().setAddress(uri);
                    clients.add(Redisson.create(config));
                }
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        @Override
        @SuppressWarnings("deprecation") // RedissonRedLock is deprecated in Redisson 4 but still shipped
        Lock lock(String name) {
            return new RedissonRedLock(clients.stream().map(c -> c.getLock(name)).toArray(RLock[]::new));
        }

        @Override
        public void close() {
            for (RedissonClient c : clients) {
                try {
                    c.shutdown(0, 2, TimeUnit.SECONDS);
                } catch (RuntimeException e) {
                    // best effort
                }
            }
        }
    }

    /**
     * The round-trip floor of a Redlock over {@code n} masters: one async Lettuce connection per master on one set of
     * client resources (as Baton's Redlock has), and each "lock" and each "unlock" sends a {@code PING} to every
     * master at once and returns once a majority answered. With one master, two plain PING round trips.
     */
    private static final class QuorumPingFloor extends Contender {
        private final ClientResources resources = DefaultClientResources.create();
        private final List<RedisClient> clients = new ArrayList<>();
        private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        private final int quorum;

        QuorumPingFloor(String[] uris) {
            for (String uri : uris) {
                RedisClient client = RedisClient.create(resources, uri);
                clients.add(client);
                connections.add(client.connect(StringCodec.UTF8));
            }
            this.quorum = uris.length / 2 + 1;
        }

        private void round() {
            CompletableFuture<Void> done = new CompletableFuture<>();
            AtomicInteger answered = new AtomicInteger();
            for (StatefulRedisConnection<String, String> c : connections) {
                c.async().ping().whenComplete((pong, e) -> {
                    if (e != null) {
                        done.completeExceptionally(e);
                    } else if (answered.incrementAndGet() == quorum) {
                        done.complete(null);
                    }
                });
            }
            done.join();
        }

        @Override
        Lock lock(String name) {
            return new Lock() {
                @Override
                public void lock() {
                    round();
                }

                @Override
                public void lockInterruptibly() {
                    round();
                }

                @Override
                public boolean tryLock() {
                    round();
                    return true;
                }

                @Override
                public boolean tryLock(long time, TimeUnit unit) {
                    round();
                    return true;
                }

                @Override
                public void unlock() {
                    round();
                }

                @Override
                public Condition newCondition() {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public void close() {
            connections.forEach(StatefulRedisConnection::close);
            clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
