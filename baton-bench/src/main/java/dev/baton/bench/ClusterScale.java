package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * What sharded pub/sub buys Baton on a Redis Cluster, and what adding masters does to lock throughput. On a Cluster of
 * Redis 7 or later Baton announces a release with {@code SPUBLISH} on the node that owns the lock's slot, which the
 * cluster bus copies only to that shard's replicas; classic {@code PUBLISH} is copied to every node of the cluster.
 *
 * <p>For each cluster size (masters with one replica each, started by the test kit on the {@code redis-server} it
 * finds, which must be 7 or later), each workload and each announcement mode, two Baton clients run
 * {@code lock(); unlock();} on a thread pool for a fixed span, and the bench reads, summed over every node:
 * {@code CLUSTER INFO}'s {@code cluster_stats_messages_publish_sent}, {@code _publishshard_sent} and
 * {@code cluster_stats_messages_sent} (all bus messages), and from {@code INFO commandstats} how many releases were
 * announced (calls of {@code PUBLISH} and {@code SPUBLISH}, counted inside the release scripts) and the commands
 * per operation, summed over the masters. Bus messages that
 * are not pub/sub (gossip pings and pongs) are shown after subtracting the idle rate measured on the same cluster.
 *
 * <p>The classic mode uses no switch inside Baton: Baton chooses sharded pub/sub from {@code INFO server}, and a
 * user whose ACL refuses {@code INFO} gets classic pub/sub (as documented in the transport). The bench creates such a
 * user on every node and connects the classic clients as that user; the counts of {@code PUBLISH} against
 * {@code SPUBLISH} calls confirm which mode each run used.
 *
 * <p>Workloads: {@code contended}, every thread on one lock, so nearly every release has a waiter to wake;
 * {@code spread}, each operation on one of many names picked at random, so the load spreads over every master.
 *
 * <p>Run: {@code java -cp baton-bench/target/benchmarks.jar dev.baton.bench.ClusterScale [--masters 3,6]
 * [--seconds 10] [--threads 8] [--names 1000]}; prints a Markdown table.
 */
final class ClusterScale {
    private static final String CLASSIC_USER = "bench-classic";
    private static final String CLASSIC_PASSWORD = "bench-classic-password";
    private static final Duration IDLE_SPAN = Duration.ofSeconds(5);
    /** Held so that its level stays set: Lettuce's warnings about closing connections twice are noise here. */
    private static final java.util.logging.Logger LETTUCE_LOG = java.util.logging.Logger.getLogger("io.lettuce");

    private ClusterScale() {
    }

    /** Whether releases are announced sharded (Baton's default on Redis 7+) or classic (no INFO permission). */
    enum Mode {
        SHARDED, CLASSIC
    }

    /** The lock names the threads use. */
    enum Workload {
        CONTENDED, SPREAD
    }

    /** One run's figures. */
    record Row(int masters, Workload workload, Mode mode, double opsPerSecond, long ops, long publish,
            long spublish, long busPublish, long busShard, double busOther, long commands, String breakdown) {
        long announced() {
            return publish + spublish;
        }
    }

    public static void main(String[] args) throws Exception {
        LETTUCE_LOG.setLevel(java.util.logging.Level.SEVERE);
        Map<String, String> options = options(args);
        int[] sizes = Arrays.stream(options.getOrDefault("masters", "3,6").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        Duration span = Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "10")));
        int threads = Integer.parseInt(options.getOrDefault("threads", "8"));
        int names = Integer.parseInt(options.getOrDefault("names", "1000"));
        RedisBinary binary = RedisBinary.locate();
        System.out.printf(Locale.ROOT, "redis-server %s, %d threads over 2 clients, %d s per run, load %s%n",
                binary.version(), threads, span.toSeconds(), load());
        List<Row> rows = new ArrayList<>();
        Map<Integer, Double> idle = new HashMap<>();
        for (int masters : sizes) {
            try (RedisCluster cluster = RedisCluster.start(binary, masters)) {
                if (cluster.nodes().get(0).command("INFO", "server").contains("redis_version:6.")) {
                    throw new IllegalStateException("sharded pub/sub needs Redis 7 or later; found " + binary);
                }
                addClassicUser(cluster);
                idle.put(masters, idleBusRate(cluster));
                for (Workload workload : Workload.values()) {
                    for (Mode mode : Mode.values()) {
                        Row row = run(cluster, masters, workload, mode, span, threads, names, idle.get(masters));
                        check(row);
                        rows.add(row);
                        System.out.println(describe(row));
                    }
                }
            }
        }
        System.out.println();
        System.out.println(table(rows, idle));
        System.out.printf(Locale.ROOT, "load after: %s%n", load());
    }

    /** Refuses to report a run whose announcements did not go the way its mode says. */
    private static void check(Row row) {
        boolean right = row.mode() == Mode.SHARDED ? row.publish() == 0 : row.spublish() == 0;
        if (!right) {
            throw new IllegalStateException("the " + row.mode() + " run announced with the other mode: " + row);
        }
    }

    /** An ACL user like the default one but without INFO: Baton then falls back to classic pub/sub. */
    private static void addClassicUser(RedisCluster cluster) {
        for (RedisServer node : cluster.nodes()) {
            node.command("ACL", "SETUSER", CLASSIC_USER, "on", ">" + CLASSIC_PASSWORD, "~*", "&*", "+@all", "-info");
        }
    }

    private static Baton connect(RedisCluster cluster, Mode mode) {
        BatonConfig.Builder config = BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(5));
        if (mode == Mode.CLASSIC) {
            config.username(CLASSIC_USER).password(CLASSIC_PASSWORD.toCharArray());
        }
        return Baton.connect(config.build());
    }

    /** Cluster-bus messages per second, summed over every node, while no client does anything. */
    private static double idleBusRate(RedisCluster cluster) throws InterruptedException {
        Map<String, Long> before = busCounters(cluster);
        long start = System.nanoTime();
        Thread.sleep(IDLE_SPAN.toMillis()); // measuring a quiet span, not waiting for a condition
        Map<String, Long> after = busCounters(cluster);
        double seconds = (System.nanoTime() - start) / 1e9;
        return (after.get("cluster_stats_messages_sent") - before.get("cluster_stats_messages_sent")) / seconds;
    }

    private static Row run(RedisCluster cluster, int masters, Workload workload, Mode mode, Duration span,
            int threads, int names, double idleRate) throws Exception {
        try (Baton a = connect(cluster, mode); Baton b = connect(cluster, mode)) {
            String prefix = "scale-" + mode.name().toLowerCase(Locale.ROOT) + "-" + workload.name().toLowerCase(
                    Locale.ROOT) + "-";
            // Warm up: every client has scripts loaded and connections to every master before counting starts.
            for (Baton baton : List.of(a, b)) {
                for (int i = 0; i < Math.min(names, 200); i++) {
                    DistributedLock lock = baton.lock(prefix + i);
                    lock.lock();
                    lock.unlock();
                }
            }
            for (RedisServer node : cluster.nodes()) {
                node.command("CONFIG", "RESETSTAT");
            }
            Map<String, Long> before = busCounters(cluster);
            LongAdder ops = new LongAdder();
            long deadline = System.nanoTime() + span.toNanos();
            List<Thread> workers = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                Baton baton = t % 2 == 0 ? a : b;
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < deadline) {
                        String name = workload == Workload.CONTENDED ? prefix + "one" : prefix + random.nextInt(names);
                        DistributedLock lock = baton.lock(name);
                        lock.lock();
                        lock.unlock();
                        ops.increment();
                    }
                }, "cluster-scale-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, Long> after = busCounters(cluster);
            // Masters only: a replica's commandstats count the effects of every script it is sent again.
            CommandStats stats = CommandStats.empty();
            for (RedisServer node : cluster.masters()) {
                stats = stats.plus(CommandStats.parse(node.command("INFO", "commandstats")));
            }
            long busPublish = delta(before, after, "cluster_stats_messages_publish_sent");
            long busShard = delta(before, after, "cluster_stats_messages_publishshard_sent");
            double busOther = delta(before, after, "cluster_stats_messages_sent") - busPublish - busShard
                    - idleRate * seconds;
            return new Row(masters, workload, mode, ops.sum() / seconds, ops.sum(),
                    stats.calls().getOrDefault("publish", 0L), stats.calls().getOrDefault("spublish", 0L),
                    busPublish, busShard, busOther, stats.total(), stats.breakdown(ops.sum()));
        }
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String field) {
        return after.getOrDefault(field, 0L) - before.getOrDefault(field, 0L);
    }

    /** {@code CLUSTER INFO}'s message counters, summed over every node. */
    private static Map<String, Long> busCounters(RedisCluster cluster) {
        Map<String, Long> sum = new HashMap<>();
        for (RedisServer node : cluster.nodes()) {
            for (String line : node.command("CLUSTER", "INFO").split("\\R")) {
                int colon = line.indexOf(':');
                if (line.startsWith("cluster_stats_messages_") && colon > 0) {
                    sum.merge(line.substring(0, colon), Long.parseLong(line.substring(colon + 1).trim()), Long::sum);
                }
            }
        }
        return sum;
    }

    private static String describe(Row r) {
        return String.format(Locale.ROOT, "%d masters %-9s %-7s %,10.0f ops/s  %,d ops  %,d PUBLISH  %,d SPUBLISH  "
                + "bus: %,d publish, %,d publishshard, %,.0f other above idle  %,d commands per op: %s", r.masters(),
                r.workload(), r.mode(), r.opsPerSecond(), r.ops(), r.publish(), r.spublish(), r.busPublish(),
                r.busShard(), r.busOther(), r.commands(), r.breakdown());
    }

    /** The Markdown table of every run. */
    static String table(List<Row> rows, Map<Integer, Double> idle) {
        StringBuilder out = new StringBuilder();
        out.append("| masters (nodes) | workload | announced by | lock+unlock/s | releases announced per op"
                + " | bus pub/sub messages per announced release | other bus messages per op (above idle)"
                + " | Redis commands per op |\n");
        out.append("|---|---|---|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            out.append(String.format(Locale.ROOT, "| %d (%d) | %s | %s | %,.0f | %.2f | %.2f | %.2f | %.2f |%n",
                    r.masters(), 2 * r.masters(), r.workload().name().toLowerCase(Locale.ROOT),
                    r.mode() == Mode.SHARDED ? "SPUBLISH" : "PUBLISH", r.opsPerSecond(), per(r.announced(), r.ops()),
                    per(r.busPublish() + r.busShard(), r.announced()), r.busOther() / Math.max(1, r.ops()),
                    per(r.commands(), r.ops())));
        }
        idle.forEach((masters, rate) -> out.append(String.format(Locale.ROOT,
                "%nIdle cluster bus, %d masters: %.0f messages/s over all nodes (pings and pongs).", masters, rate)));
        return out.toString();
    }

    private static double per(long count, long of) {
        return of == 0 ? Double.NaN : (double) count / of;
    }

    /** The 1, 5 and 15 minute load averages. */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** {@code --key value} pairs. */
    static Map<String, String> options(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got " + String.join(" ", args));
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }
}
