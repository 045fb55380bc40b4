package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockOptions;
import dev.baton.ReplicaAcknowledgementException;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What replica-acknowledged locks buy across a Sentinel failover, measured: acquire locks, SIGKILL the master at once,
 * let Sentinel promote a replica, then ask, with a second client through Sentinel, for every lock the first client
 * was given. A second client that gets one is double ownership: the acquisition was lost in the failover.
 *
 * <p>Replication on loopback takes microseconds, so a master killed after its acquisitions have returned has almost
 * always passed them on. To measure the case that matters (a replica that has not yet received the write when the
 * master dies), replicas are made to lag reproducibly: frozen with SIGSTOP, then the master writes {@code --lag-mb}
 * (default 64) MB of filler values, which fill the socket buffers between master and frozen replica (freezing alone
 * is not enough: the kernel keeps receiving for a stopped process, and the replica would read the acquisitions after
 * SIGCONT), so that the acquisitions that follow stay in the master's replication buffer, behind the filler. The
 * master is then killed, and only then are the replicas continued. One replica is given
 * {@code replica-priority 0} (Sentinel never promotes it), which makes the other one the replica that Sentinel
 * promotes; that lets a cell freeze exactly the replica that will be promoted. Cells:
 * <ul>
 *   <li>{@code healthy}: nothing frozen; the master is killed right after the last acquisition returned;</li>
 *   <li>{@code promotable-lags}: the replica Sentinel will promote is frozen, the other one (priority 0) is not;</li>
 *   <li>{@code both-lag}: both replicas are frozen;</li>
 * </ul>
 * each without the mode and with {@code replicaAcknowledged(N, timeout)} for the N that matter. After each trial the
 * killed master rejoins as a replica ({@link RedisSentinelGroup#rejoin}) and the next trial starts from a whole group.
 *
 * <p>Run: {@code java -cp baton-bench/target/benchmarks.jar dev.baton.bench.ReplicaAckFailover [--trials N]
 * [--locks K] [--timeout-ms T] [--lag-mb M] [--out FILE]} (or {@code java -jar baton-bench/target/benchmarks.jar
 * --replica-ack-failover ...}).
 */
public final class ReplicaAckFailover {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration GROUP_TIMEOUT = Duration.ofSeconds(60);

    /** Which replicas are frozen while the locks are acquired and the master is killed. */
    enum Lag {
        HEALTHY("healthy", "none"),
        PROMOTABLE_LAGS("promotable-lags", "the replica Sentinel will promote"),
        BOTH_LAG("both-lag", "both replicas");

        final String label;
        final String frozen;

        Lag(String label, String frozen) {
            this.label = label;
            this.frozen = frozen;
        }
    }

    /** One cell of the experiment: a lag and a mode (0 replicas: the mode is off). */
    record Cell(Lag lag, int replicas) {
        String mode() {
            return replicas == 0 ? "off" : "N=" + replicas;
        }
    }

    /** Totals of one cell over its trials. */
    static final class Tally {
        int trials;
        int attempted;
        /** Acquisitions the first client was told it had. */
        int granted;
        /** Acquisitions refused with ReplicaAcknowledgementException (undone). */
        int refused;
        /** Other failures of an acquisition (none expected). */
        int failed;
        /** Granted acquisitions that a second client could acquire after the failover: double ownership. */
        int lost;
        /** Refused (undone) acquisitions still present on the new master: they block others until their lease ends. */
        int undoneSurvived;
        final List<String> notes = new ArrayList<>();
    }

    /** What the mode costs on a healthy group: sequential acquisitions (then releases), by mode. */
    record Cost(String mode, Percentiles acquire) {
    }

    private final RedisSentinelGroup group;
    private final RedisServer neverPromoted;
    private final int locks;
    private final Duration timeout;
    private final int lagMegabytes;
    private final String filler = "x".repeat(FILLER_VALUE_BYTES);
    private int trialNumber;

    private static final int FILLER_VALUE_BYTES = 1 << 20;

    private ReplicaAckFailover(RedisSentinelGroup group, RedisServer neverPromoted, int locks, Duration timeout,
                               int lagMegabytes) {
        this.group = group;
        this.neverPromoted = neverPromoted;
        this.locks = locks;
        this.timeout = timeout;
        this.lagMegabytes = lagMegabytes;
    }

    public static void main(String[] args) throws Exception {
        int trials = 5;
        int locks = 20;
        Duration timeout = Duration.ofMillis(200);
        int lagMegabytes = 64;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trials" -> trials = Integer.parseInt(value(args, ++i, "--trials"));
                case "--locks" -> locks = Integer.parseInt(value(args, ++i, "--locks"));
                case "--timeout-ms" -> timeout = Duration.ofMillis(Long.parseLong(value(args, ++i, "--timeout-ms")));
                case "--lag-mb" -> lagMegabytes = Integer.parseInt(value(args, ++i, "--lag-mb"));
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "-h", "--help" -> {
                    System.out.println("usage: ReplicaAckFailover [--trials N] [--locks K] [--timeout-ms T] "
                            + "[--lag-mb M] [--out FILE]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        List<Cell> cells = List.of(new Cell(Lag.HEALTHY, 0), new Cell(Lag.HEALTHY, 1),
                new Cell(Lag.PROMOTABLE_LAGS, 0), new Cell(Lag.PROMOTABLE_LAGS, 1), new Cell(Lag.PROMOTABLE_LAGS, 2),
                new Cell(Lag.BOTH_LAG, 0), new Cell(Lag.BOTH_LAG, 1));
        long started = System.nanoTime();
        List<Cost> costs = new ArrayList<>();
        Map<Cell, Tally> results = run(cells, trials, locks, timeout, lagMegabytes, costs);
        String report = markdown(results, costs, trials, locks, timeout, lagMegabytes,
                (System.nanoTime() - started) / 60e9);
        System.out.println();
        System.out.println(report);
        if (out != null) {
            Files.writeString(out, report, StandardCharsets.UTF_8);
            log("report written to " + out.toAbsolutePath());
        }
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /**
     * Runs every cell {@code trials} times on one Sentinel group, the cells interleaved trial by trial (so that a
     * slow phase of the machine does not hit one cell only).
     */
    static Map<Cell, Tally> run(List<Cell> cells, int trials, int locks, Duration timeout, int lagMegabytes,
                                List<Cost> costs) {
        Map<Cell, Tally> results = new LinkedHashMap<>();
        cells.forEach(c -> results.put(c, new Tally()));
        RedisBinary binary = RedisBinary.locate();
        log("starting a Sentinel group (1 master, 2 replicas, 3 sentinels) on " + binary.path());
        try (RedisSentinelGroup group = RedisSentinelGroup.start(binary)) {
            for (int replicas = 0; replicas <= 2; replicas++) {
                costs.add(cost(group, replicas, timeout));
            }
            RedisServer neverPromoted = group.dataNodes().get(2);
            neverPromoted.command("CONFIG", "SET", "replica-priority", "0");
            awaitPriorityZeroSeen(group, neverPromoted);
            ReplicaAckFailover experiment = new ReplicaAckFailover(group, neverPromoted, locks, timeout,
                    lagMegabytes);
            for (int t = 0; t < trials; t++) {
                for (Cell cell : cells) {
                    experiment.trial(cell, results.get(cell));
                }
            }
        }
        return results;
    }

    /** One trial: acquire, kill the master, let Sentinel promote, count what a second client can take. */
    private void trial(Cell cell, Tally tally) {
        int trial = ++trialNumber;
        RedisServer master = group.awaitMaster(GROUP_TIMEOUT);
        RedisServer promotable = group.dataNodes().stream()
                .filter(n -> !n.equals(master) && !n.equals(neverPromoted)).findFirst().orElseThrow();
        List<RedisServer> frozen = switch (cell.lag()) {
            case HEALTHY -> List.of();
            case PROMOTABLE_LAGS -> List.of(promotable);
            case BOTH_LAG -> List.of(promotable, neverPromoted);
        };
        log("trial " + trial + ": " + cell.lag().label + ", mode " + cell.mode() + ", master :" + master.port()
                + ", frozen " + frozen.stream().map(s -> ":" + s.port()).toList());
        Map<String, Long> granted = new LinkedHashMap<>();
        List<String> refused = new ArrayList<>();
        BatonConfig.Builder config = BatonConfig.builder().uri(group.sentinelUri())
                .commandTimeout(Duration.ofSeconds(2)).namespace("exp");
        if (cell.replicas() > 0) {
            config.replicaAcknowledged(cell.replicas(), timeout);
        }
        Baton first = Baton.connect(config.build());
        try {
            first.lock("warm-up-" + trial, LockOptions.unacknowledged()).forceUnlock();
            frozen.forEach(RedisServer::pause);
            if (!frozen.isEmpty()) {
                for (int i = 0; i < lagMegabytes; i++) {
                    master.command("SET", "exp:filler:" + i, filler);
                }
            }
            acquireAll(first, trial, granted, refused, tally);
            master.kill(); // right after the last acquisition returned, before the frozen replicas see anything
        } finally {
            frozen.forEach(RedisServer::resume);
            first.close(); // releases nothing: the holds stay in Redis, as if this client had gone on working
        }
        RedisServer promoted = group.awaitMaster(GROUP_TIMEOUT);
        if (promoted.equals(master)) {
            throw new IllegalStateException("no failover happened in trial " + trial);
        }
        tally.trials++;
        try (Baton second = Baton.connect(BatonConfig.builder().uri(group.sentinelUri())
                .commandTimeout(Duration.ofSeconds(2)).namespace("exp").build())) {
            for (String name : granted.keySet()) {
                Optional<Lease> taken = tryTake(second, name);
                if (taken.isPresent()) {
                    tally.lost++; // two clients now believe they hold it
                }
            }
        }
        for (String name : refused) {
            if ("1".equals(promoted.command("EXISTS", "exp:lock:{" + name + "}"))) {
                tally.undoneSurvived++;
            }
        }
        log("trial " + trial + ": granted " + granted.size() + ", refused " + refused.size() + ", promoted :"
                + promoted.port() + ", lost " + tally.lost + " so far in this cell");
        promoted.command("FLUSHALL"); // the filler (and this trial's locks, already counted) go before the next trial
        group.rejoin(master);
    }

    private void acquireAll(Baton baton, int trial, Map<String, Long> granted, List<String> refused, Tally tally) {
        ExecutorService pool = Executors.newFixedThreadPool(locks);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                String name = "t" + trial + "-" + i;
                results.add(pool.submit(() -> {
                    try {
                        Optional<Lease> lease = baton.lock(name).tryAcquire(Duration.ZERO, LEASE);
                        return lease.<Object>map(Lease::fencingToken).orElse("busy");
                    } catch (ReplicaAcknowledgementException e) {
                        return e;
                    }
                }));
            }
            for (int i = 0; i < locks; i++) {
                String name = "t" + trial + "-" + i;
                tally.attempted++;
                Object result;
                try {
                    result = results.get(i).get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    tally.failed++;
                    tally.notes.add("trial " + trial + ", " + name + ": " + e);
                    continue;
                }
                if (result instanceof Long token) {
                    granted.put(name, token);
                    tally.granted++;
                } else if (result instanceof ReplicaAcknowledgementException) {
                    refused.add(name);
                    tally.refused++;
                } else {
                    tally.failed++;
                    tally.notes.add("trial " + trial + ", " + name + ": " + result);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A second client's try; Redis may still be settling after the failover, so a failure is retried briefly. */
    private static Optional<Lease> tryTake(Baton second, String name) {
        long deadline = System.nanoTime() + GROUP_TIMEOUT.toNanos();
        while (true) {
            try {
                return second.lock(name).tryAcquire(Duration.ZERO, LEASE);
            } catch (RuntimeException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Sequential acquisitions and releases through Sentinel on the healthy group: the latency of an acquisition. */
    private static Cost cost(RedisSentinelGroup group, int replicas, Duration timeout) {
        BatonConfig.Builder config = BatonConfig.builder().uri(group.sentinelUri()).namespace("cost");
        if (replicas > 0) {
            config.replicaAcknowledged(replicas, timeout);
        }
        int warmUp = 200;
        int measured = 1_000;
        long[] nanos = new long[measured];
        try (Baton baton = Baton.connect(config.build())) {
            DistributedLock lock = baton.lock("cost");
            for (int i = 0; i < warmUp + measured; i++) {
                long start = System.nanoTime();
                Lease lease = lock.tryAcquire(Duration.ZERO, LEASE).orElseThrow();
                long took = System.nanoTime() - start;
                lease.release();
                if (i >= warmUp) {
                    nanos[i - warmUp] = took;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String mode = replicas == 0 ? "off" : "N=" + replicas;
        log("cost of an acquisition, mode " + mode + ": " + nanos.length + " samples");
        return new Cost(mode, new Percentiles(nanos, nanos.length));
    }

    /** Sentinel reads a replica's priority from its INFO, every 10 s: wait until every sentinel has seen it. */
    private static void awaitPriorityZeroSeen(RedisSentinelGroup group, RedisServer replica) {
        long deadline = System.nanoTime() + GROUP_TIMEOUT.toNanos();
        while (true) {
            boolean allSeen = true;
            for (RedisServer sentinel : group.sentinels()) {
                String priority = replicaField(sentinel, replica, "slave-priority");
                allSeen &= "0".equals(priority);
            }
            if (allSeen) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the sentinels did not learn replica-priority 0 of " + replica);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }

    /** A field of one replica in a sentinel's {@code SENTINEL REPLICAS} reply (rendered by the kit as lines). */
    private static String replicaField(RedisServer sentinel, RedisServer replica, String field) {
        String[] lines = sentinel.command("SENTINEL", "REPLICAS", RedisSentinelGroup.MASTER_NAME).split("\n");
        Map<String, String> current = new HashMap<>();
        List<Map<String, String>> replicas = new ArrayList<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            if (lines[i].equals("name")) {
                current = new HashMap<>();
                replicas.add(current);
            }
            current.put(lines[i], lines[i + 1]);
        }
        return replicas.stream().filter(r -> Integer.toString(replica.port()).equals(r.get("port")))
                .map(r -> r.get(field)).findFirst().orElse(null);
    }

    static String markdown(Map<Cell, Tally> results, List<Cost> costs, int trials, int locks, Duration timeout,
                           int lagMegabytes, double minutes) {
        StringBuilder md = new StringBuilder();
        md.append("## Replica-acknowledged locks across a Sentinel failover\n\n");
        md.append(String.format(Locale.ROOT, "%d trials per cell, %d locks acquired concurrently per trial, WAIT "
                + "timeout %d ms, frozen replicas behind %d MB of filler, SIGKILL of the master right after the last "
                + "acquisition returned; %.1f minutes.%n%n", trials, locks, timeout.toMillis(), lagMegabytes,
                minutes));
        md.append("| frozen replicas | mode | trials | acquisitions | granted | refused (undone) | lost (second "
                + "client got it) | undone but on new master |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Map.Entry<Cell, Tally> e : results.entrySet()) {
            Tally t = e.getValue();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d | %d |%n",
                    e.getKey().lag().frozen, e.getKey().mode(), t.trials, t.attempted, t.granted, t.refused, t.lost,
                    t.undoneSurvived));
        }
        md.append("\nCost on the healthy group (through Sentinel, one thread, acquire then release, ")
                .append(costs.isEmpty() ? 0 : costs.get(0).acquire().count()).append(" acquisitions each):\n\n");
        md.append("| mode | acquisition p50 µs | p99 µs |\n| --- | --- | --- |\n");
        for (Cost c : costs) {
            md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f |%n", c.mode(), c.acquire().micros(50),
                    c.acquire().micros(99)));
        }
        for (Map.Entry<Cell, Tally> e : results.entrySet()) {
            Tally t = e.getValue();
            if (t.failed > 0) {
                md.append("\n").append(e.getKey().lag().label).append(" / ").append(e.getKey().mode()).append(": ")
                        .append(t.failed).append(" acquisitions failed otherwise: ").append(t.notes).append("\n");
            }
        }
        return md.toString();
    }

    private static void log(String line) {
        BenchMain.log(line);
    }
}
