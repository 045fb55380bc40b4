package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The one entry point of the benchmarks: {@code java -jar baton-bench/target/benchmarks.jar}. It starts one
 * redis-server (through baton-test) that every contender of every scenario uses, then
 * <ol>
 *   <li>traces the commands of single operations with MONITOR ({@link ProtocolTrace}),</li>
 *   <li>runs the JMH benchmarks of scenarios (a), (b) and (d) in forked JVMs that connect to that server,</li>
 *   <li>cross-checks scenario (a) in this JVM with the contenders in alternating slices
 *       ({@link UncontendedCrossCheck}),</li>
 *   <li>compares Baton with the lock floors at 8 and 16 threads in alternating slices, with the CPU each operation
 *       costs ({@link ConcurrentCrossCheck}),</li>
 *   <li>runs scenario (c) ({@link HandoffScenario}) in this JVM, Baton and Redisson rounds interleaved, each
 *       preceded by a measurement of one idle PING round trip ({@link PingProbe}),</li>
 * </ol>
 * then the rate limiters ({@link RateLimiterRun}): Baton, Redisson and Bucket4j in scenarios (r1) and (r2) under JMH,
 * their commands per decision and their Redis memory per limiter; and prints a Markdown report (also written to
 * {@code benchmark-results.md} next to the jar).
 *
 * <p>Options: {@code --quick} (a few minutes: smoke-test settings, numbers not meaningful), {@code --smoke} (shorter
 * still, for the module's smoke test: the JMH benchmarks in this JVM without forks, 100 ms iterations and slices),
 * {@code --out FILE},
 * {@code --skip-trace}, {@code --skip-jmh}, {@code --skip-crosscheck}, {@code --skip-concurrent} (the interleaved
 * comparison with the lock floors at 8 and 16 threads, {@link ConcurrentCrossCheck}), {@code --skip-handoff},
 * {@code --skip-rate} (no rate limiters), {@code --rate-only} (only the rate limiters), {@code --topologies} (only
 * Baton and Redisson on a standalone server, a Sentinel group and a Cluster: {@link TopologyComparison}),
 * {@code --family} (adds the lock-family benchmarks, {@link FamilyRun}: fair lock, read-write lock and semaphore,
 * Baton against Redisson, about 3 minutes), {@code --family-only} (only those) and {@code --redlock} (only Baton's
 * Redlock over 3 and 5 masters against the single-node lock and Redisson's {@code RedissonRedLock}, on 5 servers of
 * its own: {@link RedlockComparison}, about 3.5 minutes). The skip
 * options apply to the rate part too, so {@code --rate-only --skip-jmh --skip-trace} runs only its interleaved
 * cross-check and memory figures (2 minutes); {@code --skip-trace} leaves out the family's MONITOR rounds.
 *
 * <p>Every run also draws one SVG chart per primitive it measured into {@code charts/} beside the report
 * ({@link Report#charts()}, {@link BarChart}).
 *
 * <p>Instead of the benchmarks: {@code --replica-ack-failover [options]} runs the failover experiment of
 * {@link ReplicaAckFailover} (its own options follow); {@code --compare BEFORE.jar AFTER.jar [options]} compares
 * Baton of two builds in five shapes ({@link CoreComparison}); {@code --charts-from FILE.md [--charts-dir DIR]} draws
 * the charts a Markdown document's tables ask for ({@link MarkdownCharts}).
 */
public final class BenchMain {

    static final class Settings {
        boolean quick;
        /**
         * --smoke (implies --quick): the sizes of the module's smoke test, which proves that every part runs and
         * fills every row, not what it measures: JMH in this JVM without forks, 100 ms iterations, short slices,
         * (r2) over 1,000 limiters (its tables keep the scenario's name, which says 10,000), 100 in the memory
         * figures.
         */
        boolean smoke;
        boolean trace = true;
        boolean jmh = true;
        boolean handoff = true;
        boolean crossCheck = true;
        /** The interleaved cross-check of Baton against the lock floors at 8 and 16 threads. */
        boolean concurrent = true;
        boolean rate = true;
        /** False with --rate-only: then {@link #trace} only covers the rate limiters' MONITOR traces. */
        boolean locks = true;
        /** --family or --family-only: the lock-family benchmarks ({@link FamilyRun}). */
        boolean family;
        /** --topologies: only the comparison of standalone, Sentinel and Cluster ({@link TopologyComparison}). */
        boolean topologies;
        /** --redlock: only the Redlock comparison ({@link RedlockComparison}). */
        boolean redlock;
        Path out;
        /** The options as given, but {@code --out}: for the charts' footnote. */
        String options = "";

        /** Whether any part of the lock benchmarks runs (all of them do unless skipped or --rate-only). */
        boolean anyLockPart() {
            return locks && (trace || jmh || handoff || crossCheck || concurrent);
        }

        /** Limiters per contender in scenario (r2): fewer with --smoke, as setting up Redisson's takes long. */
        int rateManyKeys() {
            return smoke ? 1_000 : RateLimiterManyKeysBenchmark.KEYS;
        }

        /** Limiters per contender in the rate-limiter memory measurement. */
        int rateMemoryLimiters() {
            return smoke ? 100 : quick ? 1_000 : 10_000;
        }

        /**
         * How long the rate-limiter memory measurement leaves its limiters alone before it polls for the idle figure
         * (it then still waits for the keys with a TTL to go): none with --smoke.
         */
        Duration rateMemoryIdle() {
            return smoke ? Duration.ZERO : RateLimiterMemory.idleAtLeast(RateLimiterContender.Rate.PER_KEY);
        }

        /** The warm-up of each contender before the rate limiters' interleaved slices. */
        Duration rateCrossCheckWarmup() {
            return smoke ? Duration.ofMillis(100) : Duration.ofSeconds(1);
        }

        int topologySlices() {
            return quick ? 1 : 5;
        }

        int crossCheckSlices() {
            return quick ? 1 : 5;
        }

        /** More slices than the (a) cross-check: 8 and 16 busy threads on 2 cores vary more from slice to slice. */
        int concurrentSlices() {
            return quick ? 1 : 7;
        }

        Duration crossCheckSlice() {
            return smoke ? Duration.ofMillis(100) : quick ? Duration.ofMillis(500) : Duration.ofSeconds(2);
        }

        int handoffRounds() {
            return quick ? 1 : 3;
        }

        Duration handoffWarmup() {
            return quick ? Duration.ofMillis(500) : Duration.ofMillis(1_500);
        }

        Duration handoffMeasure() {
            return quick ? Duration.ofSeconds(1) : Duration.ofSeconds(4);
        }

        /** The lock-family benchmarks: a few minutes in all, or seconds with --quick. */
        FamilyRun.Plan familyPlan() {
            return quick
                    ? new FamilyRun.Plan(1, Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofMillis(300),
                            trace ? Duration.ofMillis(500) : null)
                    : new FamilyRun.Plan(3, Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(1),
                            trace ? Duration.ofSeconds(1) : null);
        }

        /** The Redlock comparison: about 3.5 minutes, or under a minute with --quick. */
        RedlockComparison.Plan redlockPlan() {
            return quick ? RedlockComparison.Plan.quick() : RedlockComparison.Plan.full();
        }

        Duration pingMeasure() {
            return quick ? Duration.ofMillis(500) : Duration.ofSeconds(1);
        }

        String jmhSettings() {
            return smoke ? "no fork (in the benchmark's JVM), 1 x 100 ms warm-up, 1 x 100 ms measurement (--smoke)"
                    : quick ? "1 fork, 1 x 1 s warm-up, 1 x 1 s measurement (--quick)"
                    : "1 fork, 2 x 2 s warm-up, 3 x 3 s measurement";
        }

        static Settings parse(String[] args) {
            Settings s = new Settings();
            List<String> options = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].equals("--out") && (i == 0 || !args[i - 1].equals("--out"))) {
                    options.add(args[i]);
                }
                switch (args[i]) {
                    case "--quick" -> s.quick = true;
                    case "--smoke" -> {
                        s.quick = true;
                        s.smoke = true;
                    }
                    case "--skip-trace" -> s.trace = false;
                    case "--skip-jmh" -> s.jmh = false;
                    case "--skip-handoff" -> s.handoff = false;
                    case "--skip-crosscheck" -> s.crossCheck = false;
                    case "--skip-concurrent" -> s.concurrent = false;
                    case "--skip-rate" -> s.rate = false;
                    case "--rate-only" -> {
                        s.locks = false;
                        s.rate = true;
                    }
                    case "--topologies" -> s.topologies = true;
                    case "--redlock" -> s.redlock = true;
                    case "--family" -> s.family = true;
                    case "--family-only" -> {
                        s.family = true;
                        s.locks = false;
                        s.rate = false;
                    }
                    case "--out" -> {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException("--out needs a file name");
                        }
                        s.out = Path.of(args[++i]);
                    }
                    case "-h", "--help" -> {
                        System.out.println("usage: java -jar baton-bench/target/benchmarks.jar [--quick | --smoke]"
                                + " [--out FILE] [--skip-trace] [--skip-jmh] [--skip-crosscheck] [--skip-concurrent]"
                                + " [--skip-handoff] [--skip-rate | --rate-only | --topologies | --redlock]"
                                + " [--family | --family-only]"
                                + "\n   or: java -jar baton-bench/target/benchmarks.jar"
                                + " --replica-ack-failover [--trials N] [--locks K] [--timeout-ms T] [--out FILE]"
                                + "\n   or: java -jar baton-bench/target/benchmarks.jar"
                                + " --compare BEFORE.jar AFTER.jar [--rounds N] [--slice S] [--warmup W]"
                                + " [--shapes a,b,...] [--out FILE]"
                                + "\n   or: java -jar baton-bench/target/benchmarks.jar"
                                + " --charts-from FILE.md [--charts-dir DIR]");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
                }
            }
            s.options = String.join(" ", options);
            if (s.topologies && s.redlock) {
                throw new IllegalArgumentException("--topologies and --redlock each run alone: give one of them");
            }
            if (s.topologies || s.redlock) {
                s.locks = false;
                s.rate = false;
                s.family = false;
            }
            if (s.out == null) {
                s.out = defaultDirectory().resolve(s.topologies ? "topology-results.md"
                        : s.redlock ? "redlock-results.md"
                        : s.family && !s.locks && !s.rate ? "family-results.md" : "benchmark-results.md");
            }
            return s;
        }
    }

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--replica-ack-failover")) {
            // A separate experiment with a Sentinel group of its own, not a benchmark: see ReplicaAckFailover.
            ReplicaAckFailover.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("--charts-from")) {
            MarkdownCharts.main(args);
            return;
        }
        // --compare: Baton of two builds against each other, not against its peers (CoreComparison).
        boolean compare = args.length > 0 && args[0].equals("--compare");
        Settings settings = compare ? null : Settings.parse(args);
        if (System.getProperty(RELAUNCHED) == null) {
            Path jar = ownJar();
            if (jar != null) {
                System.exit(relaunchFromCopy(jar, args, compare ? CoreComparison.defaultOut() : settings.out));
            }
        }
        if (compare) {
            CoreComparison.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Path outDir = settings.out.toAbsolutePath().getParent();
        Files.createDirectories(outDir);
        Path statsFile = outDir.resolve("bench-commandstats.tsv");
        Path jmhJson = outDir.resolve("jmh-result.json");

        long started = System.nanoTime();
        Report report = new Report(settings);
        report.load("start");
        RedisBinary binary = RedisBinary.locate();
        if (settings.topologies) {
            report.libraries = libraries(false);
            try {
                report.topologies = TopologyComparison.run(binary, settings.topologySlices(), Duration.ofSeconds(1),
                        settings.crossCheckSlice());
                report.redisVersion = report.topologies.redisVersion;
            } catch (Exception | Error e) {
                report.anomalies.add("topology comparison failed:\n" + HandoffScenario.stackTrace(e));
            }
            finish(settings, report, started);
            return;
        }
        if (settings.redlock) {
            report.libraries = libraries(false);
            try {
                report.redlock = RedlockComparison.run(binary, settings.redlockPlan());
                report.redisVersion = report.redlock.redisVersion;
            } catch (Exception | Error e) {
                report.anomalies.add("Redlock comparison failed:\n" + HandoffScenario.stackTrace(e));
            }
            finish(settings, report, started);
            return;
        }
        try (RedisServer server = RedisServer.start(binary, RateLimiterMemory.serverOptions(binary))) {
            RedisAdmin admin = RedisAdmin.over(server);
            report.redisVersion = infoField(server.command("INFO", "server"), "redis_version")
                    + " (" + server.binary().source() + ": " + server.binary().path() + ")";
            report.libraries = libraries(settings.rate);
            log("redis-server " + report.redisVersion + " listening at " + server.uri());

            if (settings.anyLockPart()) {
                runLocks(settings, server, admin, report, statsFile, jmhJson);
            }
            if (settings.family) {
                log("lock family: fair lock, read-write lock, semaphore; Baton and Redisson");
                try {
                    report.family = FamilyRun.run(server, settings.familyPlan());
                } catch (Exception | Error e) {
                    report.anomalies.add("lock-family benchmarks failed:\n" + HandoffScenario.stackTrace(e));
                }
                report.load("after the lock family");
            }
            if (settings.rate) {
                RateLimiterRun.run(settings, server, report, outDir);
            }
        }
        finish(settings, report, started);
    }

    private static void finish(Settings settings, Report report, long started) throws IOException {
        report.load("end");
        report.minutes = (System.nanoTime() - started) / 60e9;
        String markdown = report.markdown();
        Files.writeString(settings.out, markdown, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(markdown);
        log("report written to " + settings.out.toAbsolutePath());
        BarChart.writeAll(report.charts(), settings.out.toAbsolutePath().resolveSibling("charts"));
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    private static String libraries(boolean bucket4j) {
        return "Redisson " + mavenVersion("org.redisson", "redisson")
                + ", Lettuce " + mavenVersion("io.lettuce", "lettuce-core")
                + ", Netty " + mavenVersion("io.netty", "netty-transport")
                + ", JMH " + mavenVersion("org.openjdk.jmh", "jmh-core")
                + (bucket4j ? ", Bucket4j " + mavenVersion("com.bucket4j", "bucket4j_jdk17-core") : "");
    }

    /** The lock benchmarks: MONITOR traces, JMH (a), (b), (d), the cross-check of (a) and scenario (c). */
    private static void runLocks(Settings settings, RedisServer server, RedisAdmin admin, Report report,
                                 Path statsFile, Path jmhJson) {
        if (settings.trace) {
            for (String kind : Contender.LOCKS) {
                log("MONITOR trace of " + kind);
                try {
                    report.traces.add(ProtocolTrace.lockUnlock(kind, server));
                    report.traces.add(ProtocolTrace.failedTryLock(kind, server));
                } catch (Exception | Error e) {
                    report.anomalies.add("MONITOR trace of " + kind + " failed:\n" + HandoffScenario.stackTrace(e));
                }
            }
        }

        if (settings.jmh) {
            log("JMH: scenarios (a), (b), (d), " + settings.jmhSettings());
            runJmh(settings, server, report, statsFile, jmhJson, report::addJmh,
                    LockUncontendedBenchmark.class, LockPerThreadBenchmark.class, LockManyNamesTryLockBenchmark.class);
        }

        report.load("after JMH");

        if (settings.crossCheck) {
            log("cross-check of (a): floor, Baton, Redisson in alternating " + settings.crossCheckSlice().toMillis()
                    + " ms slices");
            try {
                report.crossCheck = UncontendedCrossCheck.run(server.uri(), settings.crossCheckSlices(),
                        Duration.ofSeconds(1), settings.crossCheckSlice());
            } catch (Exception | Error e) {
                report.anomalies.add("cross-check of (a) failed:\n" + HandoffScenario.stackTrace(e));
            }
        }

        if (settings.concurrent) {
            log("concurrent cross-check: " + ConcurrentCrossCheck.CONTENDERS + " at 8 and 16 threads in alternating "
                    + settings.crossCheckSlice().toMillis() + " ms slices");
            try {
                report.concurrentCheck = ConcurrentCrossCheck.run(server.uri(), List.of(server.pid()),
                        ConcurrentCrossCheck.CONTENDERS, settings.concurrentSlices(), Duration.ofSeconds(1),
                        settings.crossCheckSlice());
            } catch (Exception | Error e) {
                report.anomalies.add("concurrent cross-check failed:\n" + HandoffScenario.stackTrace(e));
            }
        }

        if (settings.handoff) {
            List<String> order = new ArrayList<>();
            for (int r = 0; r < settings.handoffRounds(); r++) {
                order.addAll(Contender.LOCKS);
            }
            for (String kind : order) {
                report.pingSamples.add(PingProbe.measure(server.uri(), Duration.ofMillis(300),
                        settings.pingMeasure()));
                log("scenario (c), " + kind + ": 4 clients x 2 threads on one lock, "
                        + settings.handoffMeasure().toMillis() + " ms");
                try {
                    HandoffScenario.Round round = HandoffScenario.run(kind, server.uri(), admin,
                            settings.handoffWarmup(), settings.handoffMeasure());
                    report.rounds.add(round);
                    log(String.format("  %.0f acquisitions/s, %d handoffs", round.perSecond(), round.handoffs));
                } catch (Exception | Error e) {
                    report.anomalies.add("scenario (c) with " + kind + " failed:\n"
                            + HandoffScenario.stackTrace(e));
                }
            }
        }
    }

    private static final String RELAUNCHED = "baton.bench.relaunched";

    /**
     * Runs the benchmarks from a private copy of the jar. The main JVM and every JMH fork load classes from the jar
     * for minutes; a build of the module in the meantime (a colleague's {@code ./mvnw verify}) rewrites
     * {@code target/benchmarks.jar} under them and ends the run with {@code NoClassDefFoundError}s.
     */
    private static int relaunchFromCopy(Path jar, String[] args, Path out) throws IOException, InterruptedException {
        Path copy = Files.createTempFile("baton-bench-", ".jar");
        try {
            Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
            try (ZipFile check = new ZipFile(copy.toFile())) {
                if (check.getEntry("META-INF/BenchmarkList") == null) {
                    throw new IllegalStateException(jar + " has no JMH benchmark list: rebuild it");
                }
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-D" + RELAUNCHED + "=true");
            command.add("-cp");
            command.add(copy.toString());
            command.add(BenchMain.class.getName());
            command.addAll(List.of(args));
            if (!List.of(args).contains("--out")) {
                command.add("--out");
                command.add(out.toAbsolutePath().toString());
            }
            Process process = new ProcessBuilder(command).inheritIO().start();
            return process.waitFor();
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** The jar this class was loaded from, or null when running from a classes directory. */
    private static Path ownJar() {
        try {
            Path location = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(location) && location.toString().endsWith(".jar") ? location : null;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Runs the benchmarks in JMH forks that write Redis commandstats to {@code statsFile} (emptied first) and JSON
     * results to {@code jmhJson}, with the short settings of {@code --quick}, and hands results and stats lines to
     * {@code report}; a failed run is recorded as an anomaly instead.
     */
    static void runJmh(Settings settings, RedisServer server, Report report, Path statsFile, Path jmhJson,
                       BiConsumer<Collection<RunResult>, List<String>> toReport, Class<?>... benchmarks) {
        runJmh(settings, server, report, statsFile, jmhJson, toReport, Map.of(), benchmarks);
    }

    /** As above, with values for the benchmarks' {@code @Param}s instead of their defaults. */
    static void runJmh(Settings settings, RedisServer server, Report report, Path statsFile, Path jmhJson,
                       BiConsumer<Collection<RunResult>, List<String>> toReport, Map<String, String> params,
                       Class<?>... benchmarks) {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .jvmArgsAppend("-D" + BenchEnv.REDIS_URI + "=" + server.uri(),
                        "-D" + BenchEnv.STATS_FILE + "=" + statsFile)
                .shouldFailOnError(false)
                .timeout(TimeValue.seconds(60))
                .resultFormat(ResultFormatType.JSON)
                .result(jmhJson.toString());
        for (Class<?> benchmark : benchmarks) {
            options.include(benchmarkPattern(benchmark));
        }
        params.forEach(options::param);
        if (settings.smoke) {
            // A forked JVM costs seconds of start-up and class loading for every contender and mode, far more than
            // the smoke test's iterations: it runs them in this JVM, which hands the benchmarks the server and the
            // stats file through its own system properties, as a fork gets them through -D.
            options.forks(0).warmupIterations(1).warmupTime(TimeValue.milliseconds(100))
                    .measurementIterations(1).measurementTime(TimeValue.milliseconds(100));
        } else if (settings.quick) {
            options.warmupIterations(1).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(1).measurementTime(TimeValue.seconds(1));
        }
        String uriBefore = System.getProperty(BenchEnv.REDIS_URI);
        String statsBefore = System.getProperty(BenchEnv.STATS_FILE);
        try {
            if (settings.smoke) {
                System.setProperty(BenchEnv.REDIS_URI, server.uri());
                System.setProperty(BenchEnv.STATS_FILE, statsFile.toString());
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            toReport.accept(results, Files.exists(statsFile) ? Files.readAllLines(statsFile) : List.of());
        } catch (Exception e) {
            report.anomalies.add("JMH run of " + Arrays.stream(benchmarks).map(Class::getSimpleName).toList()
                    + " failed:\n" + HandoffScenario.stackTrace(e));
        } finally {
            if (settings.smoke) {
                restoreProperty(BenchEnv.REDIS_URI, uriBefore);
                restoreProperty(BenchEnv.STATS_FILE, statsBefore);
            }
        }
    }

    private static void restoreProperty(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    static String benchmarkPattern(Class<?> benchmark) {
        return "^" + Pattern.quote(benchmark.getName()) + "\\.";
    }

    static void log(String line) {
        System.out.println("[baton-bench] " + line);
        System.out.flush();
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\\R")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "?";
    }

    /** The version in the pom.properties that every Maven-built jar (and so the shaded jar) carries. */
    static String mavenVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = BenchMain.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** The directory of the jar (or of the classes directory): baton-bench/target when built by Maven. */
    static Path defaultDirectory() {
        try {
            Path location = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path parent = location.getParent();
            return parent != null ? parent : Path.of(".");
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of(".");
        }
    }
}
