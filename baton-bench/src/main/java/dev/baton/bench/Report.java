package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.LongStream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Statistics;

/** Collects what the run measured and renders it as Markdown: environment, table, targets, details, anomalies. */
final class Report {
    private static final String A = "(a) uncontended, 1 thread";
    private static final String B = "(b) 8 threads, own lock each";
    private static final String C = "(c) 8 threads / 4 clients, one lock";
    private static final String D = "(d) 16 threads, 1000 names, tryLock(0)";
    private static final Map<String, String> SCENARIO_OF = Map.of(
            LockUncontendedBenchmark.class.getSimpleName(), A,
            LockPerThreadBenchmark.class.getSimpleName(), B,
            LockManyNamesTryLockBenchmark.class.getSimpleName(), D);
    private static final List<String> JMH_CONTENDERS = List.of(Contender.PING_FLOOR, Contender.WRITING_SCRIPT_FLOOR,
            Contender.SETNX_FLOOR, Contender.BATON, Contender.REDISSON);
    /** Contenders per JMH benchmark class: the lock floors only run where threads are many. */
    private static final Map<String, List<String>> JMH_CONTENDERS_OF = Map.of(
            LockUncontendedBenchmark.class.getSimpleName(),
            List.of(Contender.PING_FLOOR, Contender.BATON, Contender.REDISSON),
            LockPerThreadBenchmark.class.getSimpleName(), JMH_CONTENDERS,
            LockManyNamesTryLockBenchmark.class.getSimpleName(), JMH_CONTENDERS);
    static final String R1 = "(r1) 8 threads, one limiter";
    static final String R2 = "(r2) 8 threads, 10,000 limiters";
    private static final Map<String, String> RATE_SCENARIO_OF = Map.of(
            RateLimiterOneKeyBenchmark.class.getSimpleName(), R1,
            RateLimiterManyKeysBenchmark.class.getSimpleName(), R2);

    /** One scenario x contender line of the JMH part. */
    static final class JmhRow {
        double opsMedian = Double.NaN;
        double opsMin = Double.NaN;
        double opsMax = Double.NaN;
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        long samples;
        long ops;
        long acquired;
        CommandStats stats;
    }

    final BenchMain.Settings settings;
    String redisVersion = "?";
    String libraries = "?";
    double minutes;
    final List<long[]> pingSamples = new ArrayList<>();
    Percentiles ping;
    Map<String, UncontendedCrossCheck.Result> crossCheck;
    /** The lock-family benchmarks (--family, --family-only), or null. */
    FamilyRun.Result family;
    /** The --topologies comparison, or null. */
    TopologyComparison.Result topologies;
    /** The --redlock comparison, or null. */
    RedlockComparison.Result redlock;
    /** Shape label -> contender -> slices of the concurrent cross-check. */
    Map<String, Map<String, ConcurrentCrossCheck.Slices>> concurrentCheck;
    private final List<String> loadAverages = new ArrayList<>();
    final List<ProtocolTrace.Trace> traces = new ArrayList<>();
    final List<HandoffScenario.Round> rounds = new ArrayList<>();
    final List<String> anomalies = new ArrayList<>();
    /** scenario -> contender -> row. */
    private final Map<String, Map<String, JmhRow>> jmh = new LinkedHashMap<>();
    /** The same for the rate-limiter scenarios (r1), (r2). */
    private final Map<String, Map<String, JmhRow>> rateJmh = new LinkedHashMap<>();
    final List<ProtocolTrace.Trace> rateTraces = new ArrayList<>();
    final List<RateLimiterMemory.Result> rateMemory = new ArrayList<>();
    /** Scenario -> contender -> decisions per second of each interleaved slice. */
    final Map<String, Map<String, RateLimiterCrossCheck.Slices>> rateCrossCheck = new LinkedHashMap<>();

    private String runAt;

    Report(BenchMain.Settings settings) {
        this.settings = settings;
    }

    /** Notes the 1-minute load average of the machine (other processes included) at a named moment. */
    void load(String moment) {
        try {
            String avg = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
            loadAverages.add(avg + " (" + moment + ")");
        } catch (IOException | RuntimeException e) {
            // not Linux: no load average in the report
        }
    }

    void addJmh(Collection<RunResult> results, List<String> statsLines) {
        addJmhRows(jmh, SCENARIO_OF, JMH_CONTENDERS_OF, results, statsLines);
    }

    /** The rate-limiter scenarios (r1), (r2) of a JMH run, with the command accounting of their trials. */
    void addRateJmh(Collection<RunResult> results, List<String> statsLines) {
        Map<String, List<String>> contenders = new HashMap<>();
        RATE_SCENARIO_OF.keySet().forEach(cls -> contenders.put(cls, RateLimiterContender.LIMITERS));
        addJmhRows(rateJmh, RATE_SCENARIO_OF, contenders, results, statsLines);
    }

    private void addJmhRows(Map<String, Map<String, JmhRow>> target, Map<String, String> scenarioOf,
                            Map<String, List<String>> contendersOf, Collection<RunResult> results,
                            List<String> statsLines) {
        Map<String, String[]> stats = new HashMap<>();
        for (String line : statsLines) {
            String[] f = line.split("\t", -1);
            if (f.length >= 6) {
                stats.put(f[0] + "|" + f[1] + "|" + f[2], f);
            }
        }
        Map<String, Boolean> seen = new HashMap<>();
        for (RunResult rr : results) {
            String benchmark = rr.getParams().getBenchmark();
            String cls = simpleClass(benchmark);
            String scenario = scenarioOf.get(cls);
            String contender = rr.getParams().getParam("contender");
            Mode mode = rr.getParams().getMode();
            if (scenario == null || contender == null) {
                continue;
            }
            seen.put(cls + "|" + contender + "|" + mode.shortLabel(), true);
            JmhRow row = target.computeIfAbsent(scenario, k -> new LinkedHashMap<>())
                    .computeIfAbsent(contender, k -> new JmhRow());
            Statistics s = rr.getPrimaryResult().getStatistics();
            if (mode == Mode.Throughput) {
                double scale = perSecond(rr.getPrimaryResult().getScoreUnit());
                row.opsMedian = s.getPercentile(50) * scale;
                row.opsMin = s.getMin() * scale;
                row.opsMax = s.getMax() * scale;
            } else if (mode == Mode.SampleTime) {
                double scale = toMicros(rr.getPrimaryResult().getScoreUnit());
                row.p50 = s.getPercentile(50) * scale;
                row.p99 = s.getPercentile(99) * scale;
                row.samples = s.getN();
            }
            String[] f = stats.get(benchmark + "|" + contender + "|" + mode.shortLabel());
            if (f != null && (mode == Mode.Throughput || row.stats == null)) {
                row.ops = Long.parseLong(f[3]);
                row.acquired = Long.parseLong(f[4]);
                row.stats = CommandStats.decode(f[5]);
            }
        }
        for (String cls : scenarioOf.keySet()) {
            for (String contender : contendersOf.get(cls)) {
                for (Mode mode : List.of(Mode.Throughput, Mode.SampleTime)) {
                    if (!seen.containsKey(cls + "|" + contender + "|" + mode.shortLabel())) {
                        anomalies.add(cls + " [" + contender + ", " + mode.shortLabel() + "] produced no result:"
                                + " it failed or timed out (see the JMH output above the report)");
                    }
                }
            }
        }
    }

    private static String simpleClass(String benchmark) {
        String cls = benchmark.substring(0, benchmark.lastIndexOf('.'));
        return cls.substring(cls.lastIndexOf('.') + 1);
    }

    private static double perSecond(String unit) {
        return switch (unit) {
            case "ops/s" -> 1;
            case "ops/ms" -> 1e3;
            case "ops/us" -> 1e6;
            case "ops/ns" -> 1e9;
            default -> throw new IllegalStateException("unexpected throughput unit " + unit);
        };
    }

    private static double toMicros(String unit) {
        return switch (unit) {
            case "s/op" -> 1e6;
            case "ms/op" -> 1e3;
            case "us/op" -> 1;
            case "ns/op" -> 1e-3;
            default -> throw new IllegalStateException("unexpected time unit " + unit);
        };
    }

    // ---- scenario (c) aggregates ----

    private List<HandoffScenario.Round> roundsOf(String contender) {
        return rounds.stream().filter(r -> r.contender.equals(contender) && r.stuckThreads.isEmpty()).toList();
    }

    private double handoffOpsMedian(String contender) {
        double[] v = roundsOf(contender).stream().mapToDouble(HandoffScenario.Round::perSecond).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private Percentiles pooled(String contender, boolean handoffsOnly) {
        long[] all = roundsOf(contender).stream()
                .flatMapToLong(r -> LongStream.of(handoffsOnly ? r.handoffNanos : r.gapNanos)).toArray();
        return new Percentiles(all, all.length);
    }

    private CommandStats handoffStats(String contender) {
        CommandStats sum = CommandStats.empty();
        for (HandoffScenario.Round r : roundsOf(contender)) {
            sum = sum.plus(r.stats);
        }
        return sum;
    }

    private long handoffCommandOps(String contender) {
        return roundsOf(contender).stream().mapToLong(r -> r.acquisitionsForCommands).sum();
    }

    // ---- rendering ----

    String markdown() {
        ping = pingSamples.isEmpty() ? null : Percentiles.pooled(pingSamples);
        StringBuilder md = new StringBuilder();
        md.append("## Results\n\n");
        md.append("Run ").append(runAt())
                .append(", ").append(String.format(Locale.ROOT, "%.1f", minutes)).append(" min")
                .append(settings.quick ? " (**--quick**: smoke-test settings, numbers not meaningful)" : "")
                .append(".\n\n");
        md.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(' ').append(System.getProperty("os.arch")).append('\n');
        if (!loadAverages.isEmpty()) {
            md.append("- Load average (1 min, whole machine): ").append(String.join(", ", loadAverages)).append('\n');
        }
        md.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append('\n');
        md.append("- redis-server ").append(redisVersion).append(topologies != null
                ? ", the same binary for every node of every topology\n" : redlock != null
                ? ", the same binary for every master\n" : ", one server shared by every contender\n");
        md.append("- ").append(libraries).append('\n');
        if (settings.anyLockPart() && settings.jmh) {
            md.append("- JMH (a, b, d): ").append(settings.jmhSettings())
                    .append(" per contender and mode (Throughput, then SampleTime)\n");
        }
        if (settings.anyLockPart() && settings.handoff) {
            md.append("- Scenario (c): ").append(settings.handoffRounds()).append(" round(s) of ")
                    .append(settings.handoffMeasure().toMillis() / 1000.0).append(" s per contender, Baton and"
                            + " Redisson interleaved, each round on fresh clients after ")
                    .append(settings.handoffWarmup().toMillis() / 1000.0).append(" s of warm-up\n");
        }
        if (settings.rate) {
            md.append("- Rate limiters (r1, r2): ").append(settings.jmhSettings())
                    .append(" per contender and mode (Throughput, then SampleTime); memory with ")
                    .append(String.format(Locale.ROOT, "%,d", settings.rateMemoryLimiters()))
                    .append(" limiters per contender\n");
        }
        if (ping != null) {
            md.append(String.format(Locale.ROOT, "- One PING round trip (idle Lettuce sync connection, timed one by one"
                    + " before each (c) round, %,d samples): p50 %.1f µs, p99 %.1f µs%n",
                    ping.count(), ping.micros(50), ping.micros(99)));
        }
        md.append('\n');

        if (topologies != null) {
            appendTopologies(md);
        }
        if (redlock != null) {
            RedlockReport.append(md, redlock);
        }
        if (settings.anyLockPart()) {
            appendLocks(md);
        }
        if (family != null) {
            FamilyReport.append(md, family);
        }
        if (settings.rate) {
            appendRateLimiters(md);
        }
        appendChartLinks(md);
        appendAnomalies(md);
        return md.toString();
    }

    /** When the run was rendered (the first time anyone asks), for the report and the charts alike. */
    private String runAt() {
        if (runAt == null) {
            runAt = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        }
        return runAt;
    }

    private void appendLocks(StringBuilder md) {
        md.append("| Scenario | Contender | ops/s (median) | ops/s min–max | p50 µs | p99 µs | Redis cmds/op |"
                + " commands per op (commandstats, incl. those run inside scripts) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (String scenario : List.of(A, B, C, D)) {
            if (scenario.equals(C)) {
                appendHandoffRows(md);
                continue;
            }
            Map<String, JmhRow> rows = jmh.getOrDefault(scenario, Map.of());
            for (String contender : scenario.equals(A) ? JMH_CONTENDERS_OF.get(
                    LockUncontendedBenchmark.class.getSimpleName()) : JMH_CONTENDERS) {
                JmhRow row = rows.get(contender);
                if (row == null) {
                    if (settings.jmh) {
                        md.append("| ").append(scenario).append(" | ").append(contender)
                                .append(" | failed | | | | | see anomalies |\n");
                    }
                    continue;
                }
                String breakdown = row.stats == null ? "" : escape(row.stats.breakdown(row.ops));
                if (scenario.equals(D) && row.ops > 0 && !contender.equals(Contender.PING_FLOOR)
                        && !contender.equals(Contender.WRITING_SCRIPT_FLOOR)) {
                    breakdown += String.format(Locale.ROOT, "; %.1f%% of attempts acquired",
                            100.0 * row.acquired / row.ops);
                }
                md.append("| ").append(scenario).append(" | ").append(contender)
                        .append(" | ").append(ops(row.opsMedian))
                        .append(" | ").append(ops(row.opsMin)).append("–").append(ops(row.opsMax))
                        .append(" | ").append(us(row.p50)).append(" | ").append(us(row.p99))
                        .append(" | ").append(row.stats == null ? "?" : num(row.stats.perOp(row.ops)))
                        .append(" | ").append(breakdown).append(" |\n");
            }
        }
        md.append("\nops/s: median of the measurement iterations (for (c), of the rounds). p50/p99: JMH SampleTime"
                + " distribution of one operation (for (c): the handoff, from one holder's unlock() returning to"
                + " the next holder's lock() returning, other thread only). Redis cmds/op: every command Redis"
                + " executed in the measured span (harness INFO/CONFIG excluded) divided by the operations"
                + " completed in it. An operation is lock()+unlock() in (a), (b), (c), and one tryLock(0) attempt"
                + " plus the unlock() when it acquired in (d); the ping-floor sends one PING per lock/tryLock and"
                + " one per unlock.\n\n");

        appendTargets(md);
        appendCrossCheck(md);
        appendConcurrentCheck(md);
        appendHandoffDetails(md);
        appendTraces(md);
    }

    private void appendHandoffRows(StringBuilder md) {
        if (!settings.handoff) {
            return;
        }
        for (String contender : Contender.LOCKS) {
            List<HandoffScenario.Round> rs = roundsOf(contender);
            if (rs.isEmpty()) {
                md.append("| ").append(C).append(" | ").append(contender).append(" | failed | | | | | see anomalies |\n");
                continue;
            }
            double[] each = rs.stream().mapToDouble(HandoffScenario.Round::perSecond).toArray();
            Percentiles p = pooled(contender, true);
            CommandStats stats = handoffStats(contender);
            long opsForCommands = handoffCommandOps(contender);
            md.append("| ").append(C).append(" | ").append(contender)
                    .append(" | ").append(ops(handoffOpsMedian(contender)))
                    .append(" | ").append(ops(Arrays.stream(each).min().orElse(Double.NaN))).append("–")
                    .append(ops(Arrays.stream(each).max().orElse(Double.NaN)))
                    .append(" | ").append(us(p.micros(50))).append(" | ").append(us(p.micros(99)))
                    .append(" | ").append(num(stats.perOp(opsForCommands)))
                    .append(" | ").append(escape(stats.breakdown(opsForCommands))).append(" |\n");
        }
    }

    private void appendTargets(StringBuilder md) {
        md.append("### Targets\n\n| Target | Measured | Ratio | Met |\n|---|---|---:|---|\n");
        JmhRow floorA = row(A, Contender.PING_FLOOR);
        JmhRow batonA = row(A, Contender.BATON);
        if (floorA != null && batonA != null) {
            double ratio = floorA.opsMedian / batonA.opsMedian;
            md.append(String.format(Locale.ROOT, "| (a) Baton within 1.2x of the two-PING floor | floor %s ops/s,"
                            + " Baton %s ops/s (p50 %s vs %s µs, ratio %.2fx) | floor/Baton = %.2fx | %s |%n",
                    ops(floorA.opsMedian), ops(batonA.opsMedian), us(floorA.p50), us(batonA.p50),
                    batonA.p50 / floorA.p50, ratio, met(ratio <= 1.2)));
        } else {
            md.append("| (a) Baton within 1.2x of the two-PING floor | missing results | | not measured |\n");
        }
        if (crossCheck != null) {
            UncontendedCrossCheck.Result floor = crossCheck.get(Contender.PING_FLOOR);
            UncontendedCrossCheck.Result baton = crossCheck.get(Contender.BATON);
            double ratio = floor.medianOps() / baton.medianOps();
            md.append(String.format(Locale.ROOT, "| (a) same, interleaved cross-check | floor %s ops/s, Baton %s ops/s"
                            + " (p50 %s vs %s µs, ratio %.2fx) | floor/Baton = %.2fx | %s |%n",
                    ops(floor.medianOps()), ops(baton.medianOps()), us(floor.latency().micros(50)),
                    us(baton.latency().micros(50)), baton.latency().micros(50) / floor.latency().micros(50), ratio,
                    met(ratio <= 1.2)));
        }
        for (String scenario : List.of(B, D)) {
            String label = scenario.substring(0, 3) + " Baton >= 3x Redisson's throughput";
            JmhRow baton = row(scenario, Contender.BATON);
            JmhRow redisson = row(scenario, Contender.REDISSON);
            if (baton != null && redisson != null) {
                appendRatio(md, label, baton.opsMedian, redisson.opsMedian);
            } else {
                md.append("| ").append(label).append(" | missing results | | not measured |\n");
            }
            if (scenario.equals(B)) {
                appendHandoffTargets(md);
            }
        }
        md.append('\n');
    }

    private void appendHandoffTargets(StringBuilder md) {
        String label = "(c) Baton >= 3x Redisson's acquisitions/s";
        double baton = handoffOpsMedian(Contender.BATON);
        double redisson = handoffOpsMedian(Contender.REDISSON);
        if (!Double.isNaN(baton) && !Double.isNaN(redisson)) {
            appendRatio(md, label, baton, redisson);
        } else {
            md.append("| ").append(label).append(" | missing results | | not measured |\n");
        }
        Percentiles handoff = pooled(Contender.BATON, true);
        if (ping != null && handoff.count() > 0) {
            double ratio = handoff.micros(50) / ping.micros(50);
            md.append(String.format(Locale.ROOT, "| (c) Baton handoff p50 < 2x one PING round trip | handoff p50 %s µs,"
                            + " PING p50 %s µs | %.2fx | %s |%n",
                    us(handoff.micros(50)), us(ping.micros(50)), ratio, met(ratio < 2.0)));
        } else {
            md.append("| (c) Baton handoff p50 < 2x one PING round trip | missing results | | not measured |\n");
        }
    }

    private static void appendRatio(StringBuilder md, String label, double baton, double redisson) {
        double ratio = baton / redisson;
        md.append(String.format(Locale.ROOT, "| %s | Baton %s ops/s, Redisson %s ops/s | Baton/Redisson = %.2fx | %s |%n",
                label, ops(baton), ops(redisson), ratio, met(ratio >= 3.0)));
    }

    private void appendCrossCheck(StringBuilder md) {
        if (crossCheck == null) {
            return;
        }
        md.append("### Scenario (a) cross-check: alternating slices in one JVM\n\n");
        md.append("| Contender | ops/s per slice | ops/s (median) | p50 µs | p99 µs |\n|---|---|---:|---:|---:|\n");
        for (Map.Entry<String, UncontendedCrossCheck.Result> e : crossCheck.entrySet()) {
            UncontendedCrossCheck.Result r = e.getValue();
            StringBuilder each = new StringBuilder();
            for (double v : r.opsPerSlice) {
                each.append(each.length() == 0 ? "" : ", ").append(ops(v));
            }
            Percentiles p = r.latency();
            md.append("| ").append(e.getKey()).append(" | ").append(each).append(" | ").append(ops(r.medianOps()))
                    .append(" | ").append(us(p.micros(50))).append(" | ").append(us(p.micros(99))).append(" |\n");
        }
        md.append("\nThe floor, Baton and Redisson take turns (rotating who goes first) in ")
                .append(settings.crossCheckSlice().toMillis()).append(" ms slices on one thread, after 1 s of warm-up"
                        + " each, so outside load hits them alike; every lock()+unlock() is timed. The script floors"
                        + " are references, not locks: script-floor is two EVALSHAs of `return 1`, what any lock made"
                        + " of two Lua scripts pays before its scripts do any work; writing-script-floor is a script"
                        + " that only SETs the key with an expiry and one that only DELs it, the least such a lock"
                        + " must write (no owner check, no fencing token).");
        UncontendedCrossCheck.Result ping = crossCheck.get(Contender.PING_FLOOR);
        for (String reference : List.of(Contender.SCRIPT_FLOOR, Contender.WRITING_SCRIPT_FLOOR)) {
            UncontendedCrossCheck.Result r = crossCheck.get(reference);
            if (ping != null && r != null) {
                md.append(String.format(Locale.ROOT, " Here %s is %.2fx the PING floor (throughput).", reference,
                        ping.medianOps() / r.medianOps()));
            }
        }
        md.append("\n\n");
    }

    private void appendTopologies(StringBuilder md) {
        md.append("## Topologies\n\n");
        md.append("All three started by the test kit and running at once on this machine, every client configured for"
                + " its topology the way its library documents and otherwise default:\n\n");
        topologies.servers.forEach((t, what) -> md.append("- ").append(t).append(": ").append(what)
                .append(String.format(Locale.ROOT, "; its processes use %.1f%% of a core while no client works%n",
                        topologies.idleCpuNanosPerSecond.getOrDefault(t, Double.NaN) / 1e7)));
        md.append('\n');
        md.append("| Workload | Topology | Contender | ops/s (median) | ops/s min–max | p50 µs | p99 µs"
                + " | Redis CPU µs/op, all nodes | Baton / Redisson | / standalone |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<TopologyComparison.Workload, Map<String, Map<String, TopologyComparison.Slices>>> w
                : topologies.slices.entrySet()) {
            Map<String, TopologyComparison.Slices> standalone = w.getValue().get(RedisTarget.STANDALONE);
            for (Map.Entry<String, Map<String, TopologyComparison.Slices>> t : w.getValue().entrySet()) {
                TopologyComparison.Slices redisson = t.getValue().get(Contender.REDISSON);
                for (Map.Entry<String, TopologyComparison.Slices> c : t.getValue().entrySet()) {
                    TopologyComparison.Slices r = c.getValue();
                    double min = r.opsPerSecond.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
                    double max = r.opsPerSecond.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
                    Percentiles p = r.latencies.isEmpty() ? null : Percentiles.pooled(r.latencies);
                    TopologyComparison.Slices base = standalone == null ? null : standalone.get(c.getKey());
                    boolean baton = c.getKey().startsWith(Contender.BATON);
                    md.append("| ").append(w.getKey().label).append(" | ").append(t.getKey()).append(" | ")
                            .append(c.getKey()).append(" | ").append(ops(r.medianOps())).append(" | ").append(ops(min))
                            .append("–").append(ops(max)).append(" | ")
                            .append(p == null ? "" : us(p.micros(50))).append(" | ")
                            .append(p == null ? "" : us(p.micros(99))).append(" | ")
                            .append(String.format(Locale.ROOT, "%.1f", RateLimiterCrossCheck.median(r.redisCpuMicros)))
                            .append(" | ").append(baton && redisson != null ? String.format(Locale.ROOT, "%.2fx",
                                    r.medianOps() / redisson.medianOps()) : "")
                            .append(" | ").append(base == null || t.getKey().equals(RedisTarget.STANDALONE) ? ""
                                    : String.format(Locale.ROOT, "%.2fx", r.medianOps() / base.medianOps()))
                            .append(" |\n");
                }
            }
        }
        appendAcknowledgementCost(md);
        md.append("\nWithin a workload, every topology and contender pair runs ").append(settings.topologySlices())
                .append(" slices of ").append(settings.crossCheckSlice().toMillis()).append(" ms in turn, rotating who"
                        + " goes first, after 1 s of warm-up each; ops/s is the median of the slices. p50/p99: every"
                        + " lock()+unlock() of the 1-thread workload, timed. Redis CPU: user + system time of every"
                        + " redis-server process of the topology (replicas and sentinels included) per operation, less"
                        + " what they use while no client works, median of the slices. Rate limiters: ")
                .append(String.format(Locale.ROOT, "%,d", TopologyComparison.RATE_LIMITERS)).append(" limiters of ")
                .append(RateLimiterContender.Rate.PER_KEY).append(" per contender, one picked at random per"
                        + " decision (nearly all granted). / standalone: ops/s against the same contender on the"
                        + " standalone server.\n\n");
    }

    /** What replica acknowledgement costs behind Sentinel: baton-acked against plain Baton on the same servers. */
    private void appendAcknowledgementCost(StringBuilder md) {
        StringBuilder line = new StringBuilder();
        for (Map.Entry<TopologyComparison.Workload, Map<String, Map<String, TopologyComparison.Slices>>> w
                : topologies.slices.entrySet()) {
            Map<String, TopologyComparison.Slices> sentinel = w.getValue().get(RedisTarget.SENTINEL);
            TopologyComparison.Slices acked = sentinel == null ? null : sentinel.get(Contender.BATON_ACKED);
            TopologyComparison.Slices plain = sentinel == null ? null : sentinel.get(Contender.BATON);
            if (acked == null || plain == null) {
                continue;
            }
            line.append(line.length() == 0 ? "" : "; ").append(w.getKey().label).append(String.format(Locale.ROOT,
                    ": %s against %s ops/s (%.2fx)", ops(acked.medianOps()), ops(plain.medianOps()),
                    acked.medianOps() / plain.medianOps()));
            if (!acked.latencies.isEmpty() && !plain.latencies.isEmpty()) {
                line.append(String.format(Locale.ROOT, ", p50 %s against %s µs",
                        us(Percentiles.pooled(acked.latencies).micros(50)),
                        us(Percentiles.pooled(plain.latencies).micros(50))));
            }
        }
        if (line.length() > 0) {
            md.append("\nReplica acknowledgement behind Sentinel (").append(Contender.BATON_ACKED)
                    .append(": `replicaAcknowledged(1, 2 s)`, a `WAIT` for 1 of the 2 replicas after every acquisition,"
                            + " against plain Baton on the same servers): ").append(line).append(".\n");
        }
    }

    private void appendConcurrentCheck(StringBuilder md) {
        if (concurrentCheck == null) {
            return;
        }
        md.append("### Concurrent cross-check: Baton against the lock floors, alternating slices in one JVM\n\n");
        md.append("| Scenario | Contender | ops/s per slice | ops/s (median) | client CPU µs/op | Redis CPU µs/op"
                + " | ops/s, this / Baton |\n|---|---|---|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Map<String, ConcurrentCrossCheck.Slices>> shape : concurrentCheck.entrySet()) {
            ConcurrentCrossCheck.Slices baton = shape.getValue().get(Contender.BATON);
            for (Map.Entry<String, ConcurrentCrossCheck.Slices> e : shape.getValue().entrySet()) {
                ConcurrentCrossCheck.Slices r = e.getValue();
                StringBuilder each = new StringBuilder();
                for (double v : r.opsPerSecond()) {
                    each.append(each.length() == 0 ? "" : ", ").append(ops(v));
                }
                boolean floor = !e.getKey().equals(Contender.BATON);
                md.append("| ").append(shape.getKey()).append(" | ").append(e.getKey()).append(" | ").append(each)
                        .append(" | ").append(ops(r.medianOps()))
                        .append(String.format(Locale.ROOT, " | %.1f | %.1f | ",
                                RateLimiterCrossCheck.median(r.clientCpuMicros()),
                                RateLimiterCrossCheck.median(r.redisCpuMicros())))
                        .append(floor && baton != null
                                ? String.format(Locale.ROOT, "%.2fx", r.medianOps() / baton.medianOps()) : "")
                        .append(" |\n");
            }
        }
        md.append("\nEvery contender open in one JVM, one client each shared by the threads; ")
                .append(settings.concurrentSlices()).append(" slices of ").append(settings.crossCheckSlice().toMillis())
                .append(" ms per contender, rotating who goes first, after 1 s of warm-up each. (b') is scenario (b):"
                        + " each thread locks and unlocks a lock of its own; (d') is scenario (d): one tryLock(0) on one"
                        + " of 1000 names, and unlock() if it acquired. writing-script-floor: two EVALSHAs, one that"
                        + " only SETs the key with an expiry and one that only DELs it; setnx-floor: `SET key token NX"
                        + " PX` and a compare-and-delete script; baton-scripts: Baton's own acquire and release scripts"
                        + " with Baton's arguments, sent by hand on the same kind of connection (what Baton's protocol"
                        + " costs without its engine). CPU: medians of the slices, the whole benchmark JVM by"
                        + " getProcessCpuTime and the redis-server process from /proc. Target: floor / Baton at most"
                        + " 1.25x for writing-script-floor.\n\n");
    }

    private void appendHandoffDetails(StringBuilder md) {
        if (rounds.isEmpty()) {
            return;
        }
        md.append("### Scenario (c) in detail\n\n");
        md.append("| Contender | acquisitions/s per round | handoff p50 / p90 / p99 µs (other thread) |"
                + " same, from unlock() called, p50 / p99 µs | handoffs to another client: share, p50 / p99 µs |"
                + " every gap p50 / p99 µs | same thread re-acquired | overlaps | errors | exclusion violations |\n");
        md.append("|---|---|---|---|---|---|---:|---:|---:|---:|\n");
        for (String contender : Contender.LOCKS) {
            List<HandoffScenario.Round> rs = roundsOf(contender);
            if (rs.isEmpty()) {
                continue;
            }
            Percentiles h = pooled(contender, true);
            Percentiles g = pooled(contender, false);
            Percentiles fromCall = Percentiles.pooled(rs.stream().map(r -> r.handoffFromCallNanos).toList());
            Percentiles otherClient = Percentiles.pooled(rs.stream().map(r -> r.otherClientNanos).toList());
            long gaps = rs.stream().mapToLong(r -> r.gapNanos.length).sum();
            long same = rs.stream().mapToLong(r -> r.sameThread).sum();
            long overlaps = rs.stream().mapToLong(r -> r.overlaps).sum();
            long errors = rs.stream().mapToLong(r -> r.errorCount).sum();
            long violations = rs.stream().mapToLong(r -> r.exclusionViolations).sum();
            StringBuilder each = new StringBuilder();
            for (HandoffScenario.Round r : rs) {
                each.append(each.length() == 0 ? "" : ", ").append(ops(r.perSecond()));
            }
            md.append("| ").append(contender).append(" | ").append(each)
                    .append(" | ").append(us(h.micros(50))).append(" / ").append(us(h.micros(90))).append(" / ")
                    .append(us(h.micros(99)))
                    .append(" | ").append(us(fromCall.micros(50))).append(" / ").append(us(fromCall.micros(99)))
                    .append(" | ").append(percent(otherClient.count(), h.count())).append(", ")
                    .append(us(otherClient.micros(50))).append(" / ").append(us(otherClient.micros(99)))
                    .append(" | ").append(us(g.micros(50))).append(" / ").append(us(g.micros(99)))
                    .append(" | ").append(percent(same, gaps)).append(" | ").append(percent(overlaps, gaps))
                    .append(" | ").append(errors).append(" | ").append(violations).append(" |\n");
        }
        md.append("\nA gap is the time from one holder's unlock() returning to the next holder's lock() returning;"
                + " a handoff is a gap where the next holder is another thread. An overlap is a gap below zero (the"
                + " next lock() returned before the previous unlock() did), counted as zero. Measured from the"
                + " moment unlock() was called instead, the handoff includes the release round trip and cannot be"
                + " negative: an upper bound of the same thing. Each client runs 2 of the 8 threads, so a handoff"
                + " goes either to the other thread of the same client (which a library may arrange without waiting"
                + " for Redis to notify it) or to another client (which always takes a notification and an acquire"
                + " round trip).\n\n");
    }

    private void appendTraces(StringBuilder md) {
        if (traces.isEmpty()) {
            return;
        }
        md.append("### Round trips per operation (MONITOR, ").append(ProtocolTrace.OPS)
                .append(" single-threaded operations)\n\n");
        md.append("| Contender | Operation | sent by the client per op | which | run inside scripts per op | which |\n");
        md.append("|---|---|---:|---|---:|---|\n");
        for (ProtocolTrace.Trace t : traces) {
            md.append("| ").append(t.contender()).append(" | ").append(t.shape())
                    .append(" | ").append(num(t.sentPerOp())).append(" | ").append(escape(t.sentBreakdown()))
                    .append(" | ").append(num(t.inScriptsPerOp())).append(" | ").append(escape(t.inScriptsBreakdown()))
                    .append(" |\n");
        }
        md.append('\n');
    }

    // ---- charts ----

    /**
     * One chart per primitive the run measured, by file name ({@code charts/NAME.svg} beside the report, see
     * {@link BenchMain}): every contender of a scenario side by side, Baton, its peers and the floors, with the
     * run's date, load and options beneath.
     */
    Map<String, BarChart> charts() {
        Map<String, BarChart> charts = new LinkedHashMap<>();
        if (settings.anyLockPart()) {
            charts.put("lock-uncontended", new BarChart("Plain lock, uncontended: 1 thread, lock() + unlock()")
                    .panel(A + ", JMH: ops/s (median)", jmhBars(A, JMH_CONTENDERS_OF.get(
                            LockUncontendedBenchmark.class.getSimpleName())))
                    .panel(A + ", interleaved slices: ops/s (median)", crossCheck == null ? List.of()
                            : bars(crossCheck, UncontendedCrossCheck.Result::medianOps)));
            BarChart threads = new BarChart("Plain lock, many threads on one client");
            for (String scenario : List.of(B, D)) {
                threads.panel(scenario + ", JMH: ops/s (median)", jmhBars(scenario, JMH_CONTENDERS));
                String shape = (scenario.equals(B) ? ConcurrentCrossCheck.Shape.OWN_LOCK_8
                        : ConcurrentCrossCheck.Shape.NAMES_16).label;
                threads.panel(shape + ", interleaved slices: ops/s (median)",
                        concurrentCheck == null || !concurrentCheck.containsKey(shape) ? List.of()
                                : bars(concurrentCheck.get(shape), ConcurrentCrossCheck.Slices::medianOps));
            }
            charts.put("lock-threads", threads);
            List<BarChart.Bar> handoff = new ArrayList<>();
            for (String contender : Contender.LOCKS) {
                Percentiles p = pooled(contender, true);
                handoff.add(new BarChart.Bar(contender, p.count() == 0 ? Double.NaN : p.micros(50)));
            }
            if (!pingSamples.isEmpty()) {
                handoff.add(new BarChart.Bar("one PING round trip (floor)",
                        Percentiles.pooled(pingSamples).micros(50)));
            }
            charts.put("lock-contended", new BarChart("Plain lock, contended: 4 clients x 2 threads, one lock")
                    .panel(C + ": acquisitions/s (median of rounds)", Contender.LOCKS.stream()
                            .map(c -> new BarChart.Bar(c, handoffOpsMedian(c))).toList())
                    .panel("handoff p50 µs (unlock() returned to the next lock() returned)", handoff));
        }
        if (family != null) {
            charts.putAll(FamilyReport.charts(family));
        }
        if (settings.rate) {
            BarChart rate = new BarChart("Rate limiters: 8 threads, one client per contender");
            for (String scenario : List.of(R1, R2)) {
                Map<String, JmhRow> rows = rateJmh.getOrDefault(scenario, Map.of());
                rate.panel(scenario + ", JMH: decisions/s (median)", RateLimiterContender.LIMITERS.stream()
                        .map(c -> new BarChart.Bar(c, rows.containsKey(c) ? rows.get(c).opsMedian : Double.NaN))
                        .toList());
            }
            rateCrossCheck.forEach((scenario, slices) -> rate.panel(scenario + ", interleaved slices: decisions/s"
                    + " (median)", bars(slices, s -> RateLimiterCrossCheck.median(s.decisionsPerSecond()))));
            charts.put("rate-limiter", rate);
        }
        if (redlock != null) {
            charts.put("redlock", RedlockReport.chart(redlock));
        }
        if (topologies != null) {
            BarChart chart = new BarChart("Topologies: standalone, Sentinel, Cluster");
            topologies.slices.forEach((workload, byTopology) -> {
                List<BarChart.Bar> bars = new ArrayList<>();
                byTopology.forEach((topology, byContender) -> byContender.forEach((contender, slices) ->
                        bars.add(new BarChart.Bar(topology + ": " + contender, slices.medianOps()))));
                chart.panel(workload.label + ": ops/s (median)", bars);
            });
            charts.put("topologies", chart);
        }
        charts.values().removeIf(BarChart::isEmpty);
        for (BarChart chart : charts.values()) {
            chart.note(String.format(Locale.ROOT, "baton-bench, run %s, %.1f min%s", runAt(), minutes,
                    settings.quick ? " (--quick: smoke-test settings, figures not meaningful)" : ""));
            if (!loadAverages.isEmpty()) {
                chart.note("Load average (1 min): " + String.join(", ", loadAverages));
            }
            chart.note("java -jar baton-bench/target/benchmarks.jar " + settings.options);
        }
        return charts;
    }

    private List<BarChart.Bar> jmhBars(String scenario, List<String> contenders) {
        return contenders.stream().map(c -> {
            JmhRow r = row(scenario, c);
            return new BarChart.Bar(c, r == null ? Double.NaN : r.opsMedian);
        }).toList();
    }

    /** A bar per contender of a map, in its order. */
    static <T> List<BarChart.Bar> bars(Map<String, T> byContender, java.util.function.ToDoubleFunction<T> value) {
        return byContender.entrySet().stream()
                .map(e -> new BarChart.Bar(e.getKey(), value.applyAsDouble(e.getValue()))).toList();
    }

    private void appendChartLinks(StringBuilder md) {
        Map<String, BarChart> charts = charts();
        if (charts.isEmpty()) {
            return;
        }
        md.append("### Charts\n\nWritten beside this report: ");
        md.append(String.join(", ", charts.keySet().stream().map(name -> "[" + name + "](charts/" + name + ".svg)")
                .toList()));
        md.append(".\n\n");
    }

    // ---- rate limiters ----

    private void appendRateLimiters(StringBuilder md) {
        md.append("## Rate limiters\n\n");
        md.append("Baton, Redisson and Bucket4j side by side on the same redis-server in the same run, one client per"
                + " contender shared by all threads of its JVM (").append(settings.smoke
                        ? "--smoke: JMH runs every contender and mode in the benchmark's own JVM"
                        : "JMH forks one JVM per contender and mode").append("). Every contender gets the same"
                        + " limit:\n\n");
        md.append("- (r1) one limiter of ").append(RateLimiterContender.Rate.ONE_KEY)
                .append(", asked by 8 threads as fast as they can: most requests are refused\n");
        md.append("- (r2) ").append(String.format(Locale.ROOT, "%,d", settings.rateManyKeys()))
                .append(" limiters (distinct names) of ").append(RateLimiterContender.Rate.PER_KEY)
                .append(" each, every call picks one at random: nearly every request is granted\n");
        md.append("- memory: ").append(String.format(Locale.ROOT, "%,d", settings.rateMemoryLimiters()))
                .append(" limiters of ").append(RateLimiterContender.Rate.PER_KEY).append(", one decision each\n\n");
        boolean sameRate = RateLimiterContender.Rate.ONE_KEY.equals(RateLimiterContender.Rate.PER_KEY);
        md.append("| Contender | configuration of every limiter").append(sameRate ? " (r1, r2 and memory alike)" : "")
                .append(" |\n|---|---|\n");
        for (String contender : RateLimiterContender.LIMITERS) {
            if (!sameRate) {
                md.append("| ").append(contender).append(" (r1) | ")
                        .append(escape(RateLimiterContender.describe(contender, RateLimiterContender.Rate.ONE_KEY)))
                        .append(" |\n");
            }
            md.append("| ").append(contender).append(sameRate ? "" : " (r2, memory)").append(" | ")
                    .append(escape(RateLimiterContender.describe(contender, RateLimiterContender.Rate.PER_KEY)))
                    .append(" |\n");
        }
        md.append("| ").append(RateLimiterContender.REDISSON_KEEP_ALIVE).append(" (memory only) | ")
                .append(escape(RateLimiterContender.describe(RateLimiterContender.REDISSON_KEEP_ALIVE,
                        RateLimiterContender.Rate.PER_KEY)))
                .append(" |\n\n");

        md.append("| Scenario | Contender | decisions/s (median) | decisions/s min–max | p50 µs | p99 µs | granted |"
                + " Redis cmds/decision | commands per decision (commandstats, incl. those run inside scripts) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (String scenario : List.of(R1, R2)) {
            Map<String, JmhRow> rows = rateJmh.getOrDefault(scenario, Map.of());
            for (String contender : RateLimiterContender.LIMITERS) {
                JmhRow row = rows.get(contender);
                if (row == null) {
                    md.append("| ").append(scenario).append(" | ").append(contender)
                            .append(" | failed | | | | | | see anomalies |\n");
                    continue;
                }
                md.append("| ").append(scenario).append(" | ").append(contender)
                        .append(" | ").append(ops(row.opsMedian))
                        .append(" | ").append(ops(row.opsMin)).append("–").append(ops(row.opsMax))
                        .append(" | ").append(us(row.p50)).append(" | ").append(us(row.p99))
                        .append(" | ").append(percent(row.acquired, row.ops))
                        .append(" | ").append(row.stats == null ? "?" : num(row.stats.perOp(row.ops)))
                        .append(" | ").append(row.stats == null ? "" : escape(row.stats.breakdown(row.ops)))
                        .append(" |\n");
            }
        }
        md.append("\ndecisions/s: median of the measurement iterations (Throughput mode). p50/p99: JMH SampleTime"
                + " distribution of one decision. granted: share of the decisions that granted the permit."
                + " Redis cmds/decision: every command Redis executed in the measured span (harness INFO/CONFIG"
                + " excluded), the commands run inside scripts included, divided by the decisions made in it.\n\n");

        md.append("### Baton / faster peer\n\n| Scenario | Baton | Baton decisions/s | faster peer | its decisions/s |"
                + " Baton / peer (decisions/s) | p50 µs Baton / peer | p99 µs Baton / peer |\n");
        md.append("|---|---|---:|---|---:|---:|---|---|\n");
        for (String scenario : List.of(R1, R2)) {
            for (String variant : List.of(RateLimiterContender.BATON, RateLimiterContender.BATON_SCRIPT)) {
                appendBatonVersusPeer(md, scenario, variant);
            }
        }
        md.append('\n');

        if (!rateTraces.isEmpty()) {
            md.append("### Commands per decision (MONITOR, ").append(ProtocolTrace.OPS)
                    .append(" single-threaded decisions)\n\n");
            md.append("| Contender | Decision | sent by the client per decision | which | run inside scripts per"
                    + " decision | which |\n");
            md.append("|---|---|---:|---|---:|---|\n");
            for (ProtocolTrace.Trace t : rateTraces) {
                md.append("| ").append(t.contender()).append(" | ").append(t.shape())
                        .append(" | ").append(num(t.sentPerOp())).append(" | ").append(escape(t.sentBreakdown()))
                        .append(" | ").append(num(t.inScriptsPerOp())).append(" | ")
                        .append(escape(t.inScriptsBreakdown())).append(" |\n");
            }
            md.append('\n');
        }

        appendRateCrossCheck(md);

        if (!rateMemory.isEmpty()) {
            md.append("### Redis memory per limiter\n\n");
            md.append("| Contender | granted | bytes/limiter, fresh | keys/limiter, fresh (with TTL) | bytes/limiter,"
                    + " idle | keys/limiter, idle | idle for |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (RateLimiterMemory.Result r : rateMemory) {
                md.append("| ").append(r.contender())
                        .append(" | ").append(percent(r.granted(), r.limiters()))
                        .append(String.format(Locale.ROOT, " | %.0f%s | %.2f (%.2f) | %.0f | %.2f | %.1f s |%n",
                                r.freshBytesPerLimiter(), r.expiryPaused() ? "" : " (expiry not paused)",
                                r.freshKeysPerLimiter(), r.freshKeysWithTtl(), r.idleBytesPerLimiter(),
                                r.idleKeysPerLimiter(), r.idleFor().toMillis() / 1000.0));
            }
            md.append("\nEach contender on an emptied server: `used_memory` after minus before, divided by the"
                    + " limiters, with no connection of the contender open at either moment (a first client loads"
                    + " its scripts and is closed before the baseline, a second makes the decisions and is closed"
                    + " before the weighing), so only keys count, not connection buffers. Fresh: right after one decision"
                    + " on each limiter, with Redis' active expiry paused (`DEBUG SET-ACTIVE-EXPIRE 0`) while they"
                    + " are made and weighed, so that short-lived keys are still counted. Idle: with expiry running,"
                    + " after at least ").append(settings.rateMemoryIdle().toMillis() / 1000.0)
                    .append(" s without a request (a full refill of the burst takes ")
                    .append(RateLimiterContender.human(RateLimiterContender.Rate.PER_KEY.fullRefill()))
                    .append("), polling `INFO keyspace` until the keys are gone or none left has a TTL. The main"
                            + " key dictionary of Redis grows and shrinks with the number of keys, so its share is"
                            + " part of the figures; an idle figure of a few bytes with 0 keys is that dictionary"
                            + " not yet shrunk, or allocator noise.\n\n");
        }
    }

    private void appendBatonVersusPeer(StringBuilder md, String scenario, String variant) {
        Map<String, JmhRow> rows = rateJmh.getOrDefault(scenario, Map.of());
        JmhRow baton = rows.get(variant);
        String peer = fasterPeer(rows);
        if (baton == null || Double.isNaN(baton.opsMedian) || peer == null) {
            md.append("| ").append(scenario).append(" | ").append(variant).append(" | missing results | | | | | |\n");
            return;
        }
        JmhRow p = rows.get(peer);
        md.append("| ").append(scenario).append(" | ").append(variant).append(" | ").append(ops(baton.opsMedian))
                .append(" | ").append(peer).append(" | ").append(ops(p.opsMedian))
                .append(String.format(Locale.ROOT, " | %.2fx", baton.opsMedian / p.opsMedian))
                .append(" | ").append(us(baton.p50)).append(" / ").append(us(p.p50))
                .append(" | ").append(us(baton.p99)).append(" / ").append(us(p.p99)).append(" |\n");
    }

    private void appendRateCrossCheck(StringBuilder md) {
        if (rateCrossCheck.isEmpty()) {
            return;
        }
        md.append("### Interleaved cross-check\n\nEvery contender open in one JVM; 8 threads run ")
                .append(settings.crossCheckSlices()).append(" slices of ").append(settings.crossCheckSlice().toMillis())
                .append(" ms on each in turn, rotating who goes first, after ")
                .append(settings.rateCrossCheckWarmup().toMillis()).append(" ms of warm-up each, so that outside"
                        + " load hits all of them alike. Medians over the slices: decisions/s, and the CPU time a"
                        + " decision costs the benchmark's JVM (all its threads) and the Redis server (user + system,"
                        + " from /proc).\n\n");
        md.append("| Scenario | Contender | decisions/s (median) | slices min–max | client CPU µs/decision"
                + " | Redis CPU µs/decision | Baton / faster peer, decisions/s | Baton / leanest peer, CPU |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Map<String, RateLimiterCrossCheck.Slices>> scenario : rateCrossCheck.entrySet()) {
            double fastest = Double.NaN;
            double leanest = Double.NaN;
            for (Map.Entry<String, RateLimiterCrossCheck.Slices> e : scenario.getValue().entrySet()) {
                if (!RateLimiterContender.isBaton(e.getKey())) {
                    fastest = maxOrFirst(fastest, RateLimiterCrossCheck.median(e.getValue().decisionsPerSecond()));
                    leanest = Double.isNaN(leanest) ? cpuPerDecision(e.getValue())
                            : Math.min(leanest, cpuPerDecision(e.getValue()));
                }
            }
            for (Map.Entry<String, RateLimiterCrossCheck.Slices> e : scenario.getValue().entrySet()) {
                RateLimiterCrossCheck.Slices slices = e.getValue();
                double m = RateLimiterCrossCheck.median(slices.decisionsPerSecond());
                double min = slices.decisionsPerSecond().stream().mapToDouble(Double::doubleValue).min()
                        .orElse(Double.NaN);
                double max = slices.decisionsPerSecond().stream().mapToDouble(Double::doubleValue).max()
                        .orElse(Double.NaN);
                boolean baton = RateLimiterContender.isBaton(e.getKey());
                md.append("| ").append(scenario.getKey()).append(" | ").append(e.getKey()).append(" | ")
                        .append(ops(m)).append(" | ").append(ops(min)).append("–").append(ops(max)).append(" | ")
                        .append(String.format(Locale.ROOT, "%.1f | %.1f",
                                RateLimiterCrossCheck.median(slices.clientCpuMicros()),
                                RateLimiterCrossCheck.median(slices.redisCpuMicros())))
                        .append(" | ").append(baton ? String.format(Locale.ROOT, "%.2fx", m / fastest) : "")
                        .append(" | ").append(baton
                                ? String.format(Locale.ROOT, "%.2fx", leanest / cpuPerDecision(slices)) : "")
                        .append(" |\n");
            }
        }
        md.append("\nBaton / leanest peer, CPU: the CPU per decision (client plus Redis) of the peer that needs the"
                + " least, divided by Baton's; 2x means Baton does the same work on half the machine.\n\n");
    }

    private static double maxOrFirst(double best, double value) {
        return Double.isNaN(best) ? value : Math.max(best, value);
    }

    /** Median client plus median Redis CPU µs per decision. */
    private static double cpuPerDecision(RateLimiterCrossCheck.Slices slices) {
        return RateLimiterCrossCheck.median(slices.clientCpuMicros())
                + RateLimiterCrossCheck.median(slices.redisCpuMicros());
    }

    /** The peer (not Baton) with the most decisions per second in these rows, or null. */
    private static String fasterPeer(Map<String, JmhRow> rows) {
        String best = null;
        for (String contender : RateLimiterContender.LIMITERS) {
            JmhRow row = rows.get(contender);
            if (RateLimiterContender.isBaton(contender) || row == null || Double.isNaN(row.opsMedian)) {
                continue;
            }
            if (best == null || row.opsMedian > rows.get(best).opsMedian) {
                best = contender;
            }
        }
        return best;
    }

    /** Rows of a rate scenario, for tests: contender -> row. */
    Map<String, JmhRow> rateRows(String scenario) {
        return rateJmh.getOrDefault(scenario, Map.of());
    }

    private void appendAnomalies(StringBuilder md) {
        List<String> all = new ArrayList<>(anomalies);
        for (HandoffScenario.Round r : rounds) {
            for (String stuck : r.stuckThreads) {
                all.add("scenario (c) with " + r.contender + " hung: " + stuck);
            }
            if (r.exclusionViolations > 0) {
                all.add("scenario (c) with " + r.contender + ": " + r.exclusionViolations
                        + " times two threads were inside the lock at once");
            }
            for (String e : r.errors) {
                all.add("scenario (c) with " + r.contender + " threw (" + r.errorCount + " errors in the round):\n" + e);
            }
        }
        md.append("### Anomalies\n\n");
        if (all.isEmpty()) {
            md.append("None: every benchmark produced results, no errors, no hang, no exclusion violation.\n");
            return;
        }
        for (String a : all) {
            md.append("- ").append(a.replace("\n", "\n    ")).append('\n');
        }
    }

    private JmhRow row(String scenario, String contender) {
        JmhRow r = jmh.getOrDefault(scenario, Map.of()).get(contender);
        return r == null || Double.isNaN(r.opsMedian) ? null : r;
    }

    static String met(boolean met) {
        return met ? "met" : "**not met**";
    }

    static String ops(double v) {
        return Double.isNaN(v) ? "?" : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String us(double v) {
        if (Double.isNaN(v)) {
            return "?";
        }
        return v >= 1_000 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String num(double v) {
        return Double.isNaN(v) ? "?" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String percent(long part, long whole) {
        return whole == 0 ? "?" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    static String escape(String text) {
        return text.replace("|", "\\|");
    }
}
