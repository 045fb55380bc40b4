package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Baton of two builds against each other, in one JVM, on one redis-server, in alternating slices: the check that a
 * change of baton-core cost no speed. {@code java -jar benchmarks.jar --compare BEFORE.jar AFTER.jar}, both jars
 * built by {@code ./mvnw -pl baton-bench -am package -DskipTests}, each with its own baton-core inside.
 *
 * <p>Each build gets a class loader of its own over this harness (the {@code dev.baton.bench} classes of AFTER.jar)
 * and its jar (its baton-core, Lettuce, Netty), so both run the same measurement code and differ only in Baton. A
 * BEFORE.jar from before this class existed is fine: only its baton-core and libraries are used. For each of the
 * five {@link CoreShape}s (uncontended lock, 8-thread lock, fair lock, semaphore, rate limiter), both builds warm
 * up (in two alternating halves), then run {@code rounds} slices each, alternating (before, after, after, before,
 * ...), so that a spell of outside load hits both alike. The report gives the median ops/s of each, after / before of the medians and per round, the
 * CPU per operation, and the machine's load average around each shape.
 *
 * <p>Options: {@code --rounds N} (8), {@code --slice S} seconds per slice (4), {@code --warmup W} seconds (3),
 * {@code --shapes lock-1,lock-8,fair,semaphore,rate}, {@code --out FILE} ({@code compare-results.md} beside the
 * jar). With the defaults, about 7 minutes.
 */
final class CoreComparison {
    /** After / before of the medians at or above this is "within 5%". */
    static final double WITHIN = 0.95;
    private static final String HARNESS = "dev/baton/bench/";
    /** Seconds a slice of the fair lock or the semaphore adds to its measured span: fresh clients, a warm-up. */
    private static final double FAMILY_OVERHEAD = 1.5;
    private static final List<String> SIDES = List.of("before", "after");

    /** How long and how often. */
    record Plan(int rounds, Duration slice, Duration warmup, List<String> shapes) {
        /** About how long the comparison takes. */
        double minutes() {
            double seconds = 0;
            for (String shape : shapes) {
                double extra = isFamily(shape) ? FAMILY_OVERHEAD : 0;
                seconds += 2 * (warmup.toSeconds() + 2 * extra) + 2.0 * rounds * (slice.toSeconds() + extra) + 2;
            }
            return seconds / 60;
        }
    }

    /** One shape's slices: for each side, one {ops/s, client CPU µs/op, Redis CPU µs/op, errors} per round. */
    static final class Shape {
        final String name;
        final Map<String, List<double[]>> slices = new LinkedHashMap<>();
        String loadBefore = "?";
        String loadAfter = "?";
        String failure;

        Shape(String name) {
            this.name = name;
            SIDES.forEach(side -> slices.put(side, new ArrayList<>()));
        }

        double median(String side, int field) {
            return RateLimiterCrossCheck.median(slices.get(side).stream().map(s -> s[field])
                    .filter(v -> !v.isNaN()).toList());
        }

        /** after / before of each round in which both ran. */
        List<Double> roundRatios() {
            List<Double> ratios = new ArrayList<>();
            List<double[]> before = slices.get("before");
            List<double[]> after = slices.get("after");
            for (int r = 0; r < Math.min(before.size(), after.size()); r++) {
                ratios.add(after.get(r)[0] / before.get(r)[0]);
            }
            return ratios;
        }
    }

    private CoreComparison() {
    }

    static void main(String[] args) throws Exception {
        if (args.length < 2 || args[0].startsWith("--") || args[1].startsWith("--")) {
            throw new IllegalArgumentException("usage: --compare BEFORE.jar AFTER.jar [--rounds N] [--slice S]"
                    + " [--warmup W] [--shapes " + String.join(",", CoreShape.SHAPES) + "] [--out FILE]");
        }
        Path beforeJar = Path.of(args[0]);
        Path afterJar = Path.of(args[1]);
        int rounds = 8;
        int slice = 4;
        int warmup = 3;
        List<String> shapes = CoreShape.SHAPES;
        Path out = defaultOut();
        for (int i = 2; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--slice" -> slice = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--shapes" -> shapes = List.of(value.split(","));
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (String shape : shapes) {
            if (!CoreShape.SHAPES.contains(shape)) {
                throw new IllegalArgumentException("unknown shape " + shape + ", expected some of " + CoreShape.SHAPES);
            }
        }
        Plan plan = new Plan(rounds, Duration.ofSeconds(slice), Duration.ofSeconds(warmup), shapes);
        String markdown = run(beforeJar, afterJar, plan);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, markdown, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(markdown);
        BenchMain.log("report written to " + out.toAbsolutePath());
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    /** {@code compare-results.md} beside the jar (baton-bench/target). */
    static Path defaultOut() {
        return BenchMain.defaultDirectory().resolve("compare-results.md");
    }

    static String run(Path beforeJar, Path afterJar, Plan plan) throws Exception {
        long started = System.nanoTime();
        String date = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        Path work = Files.createTempDirectory("baton-compare-");
        try {
            // Private copies: a rebuild of either jar during the run must not pull classes out from under it.
            Path before = Files.copy(beforeJar, work.resolve("before.jar"), StandardCopyOption.REPLACE_EXISTING);
            Path after = Files.copy(afterJar, work.resolve("after.jar"), StandardCopyOption.REPLACE_EXISTING);
            Path harness = extractHarness(after, work.resolve("harness"));
            Map<String, ClassLoader> loaders = new LinkedHashMap<>();
            loaders.put("before", loader("before", harness, before));
            loaders.put("after", loader("after", harness, after));
            BenchMain.log(String.format(Locale.ROOT, "comparing %s (before) with %s (after): %s, %d rounds of %d s"
                            + " after %d s of warm-up, about %.0f minutes", beforeJar, afterJar, plan.shapes(),
                    plan.rounds(), plan.slice().toSeconds(), plan.warmup().toSeconds(), plan.minutes()));
            List<Shape> results = new ArrayList<>();
            String redisVersion;
            try (RedisServer server = RedisServer.start(RedisBinary.locate(), List.of())) {
                redisVersion = BenchMain.infoField(server.command("INFO", "server"), "redis_version");
                for (String shape : plan.shapes()) {
                    results.add(measure(shape, server, loaders, plan));
                }
            }
            double minutes = (System.nanoTime() - started) / 60e9;
            return markdown(date, minutes, beforeJar, afterJar, redisVersion, plan, results);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Shape measure(String name, RedisServer server, Map<String, ClassLoader> loaders, Plan plan) {
        Shape shape = new Shape(name);
        shape.loadBefore = loadAverage();
        Map<String, Object> opened = new LinkedHashMap<>();
        try {
            for (String side : SIDES) {
                ClassLoader loader = loaders.get(side);
                opened.put(side, within(loader, () -> loader.loadClass(CoreShape.class.getName())
                        .getMethod("open", String.class, String.class, long.class, String.class)
                        .invoke(null, name, server.uri(), server.pid(), "bench:compare:" + side)));
            }
            // Warm-up in two alternating halves: the second build's classes reach code the first one's JIT profile
            // shaped (the JDK's, shared by both), and the recompilation that follows belongs in the warm-up.
            Duration half = plan.warmup().dividedBy(2);
            for (int w = 0; w < 2; w++) {
                for (String side : SIDES) {
                    double[] s = slice(opened.get(side), loaders.get(side), half);
                    BenchMain.log(String.format(Locale.ROOT, "%s, %s, warm-up %d of 2: %,.0f ops/s", name, side,
                            w + 1, s[0]));
                }
            }
            for (int r = 0; r < plan.rounds(); r++) {
                for (int k = 0; k < SIDES.size(); k++) {
                    String side = SIDES.get((r + k) % SIDES.size());
                    double[] s = slice(opened.get(side), loaders.get(side), plan.slice());
                    shape.slices.get(side).add(s);
                    BenchMain.log(String.format(Locale.ROOT, "%s, %s, round %d of %d: %,.0f ops/s", name, side,
                            r + 1, plan.rounds(), s[0]));
                }
            }
        } catch (Exception | Error e) {
            Throwable cause = e instanceof InvocationTargetException i ? i.getCause() : e;
            shape.failure = HandoffScenario.stackTrace(cause);
            BenchMain.log(name + " failed: " + cause);
        } finally {
            opened.forEach((side, s) -> {
                try {
                    within(loaders.get(side), () -> {
                        ((AutoCloseable) s).close();
                        return null;
                    });
                } catch (Exception e) {
                    // best effort: the next shape opens its own clients
                }
            });
        }
        shape.loadAfter = loadAverage();
        return shape;
    }

    @SuppressWarnings("unchecked")
    private static double[] slice(Object shape, ClassLoader loader, Duration duration) throws Exception {
        return within(loader, () -> ((Function<Duration, double[]>) shape).apply(duration));
    }

    /** Runs {@code call} with the build's loader as the thread's context loader, as its libraries may look there. */
    private static <T> T within(ClassLoader loader, Callable<T> call) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return call.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** This harness over one build: its own classes first, then the build's jar; nothing from the JVM's class path. */
    private static ClassLoader loader(String name, Path harness, Path jar) throws IOException {
        return new URLClassLoader(name, new URL[] {harness.toUri().toURL(), jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
    }

    /** Copies the bench's classes out of the jar into {@code dir}, which it returns. */
    private static Path extractHarness(Path jar, Path dir) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            if (zip.getEntry(CoreShape.class.getName().replace('.', '/') + ".class") == null) {
                throw new IllegalArgumentException(jar + " has no " + CoreShape.class.getName() + ": the AFTER jar"
                        + " must be built from a tree that has the comparison");
            }
            for (ZipEntry entry : zip.stream().filter(e -> e.getName().startsWith(HARNESS) && !e.isDirectory())
                    .toList()) {
                Path file = dir.resolve(entry.getName());
                Files.createDirectories(file.getParent());
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, file);
                }
            }
        }
        return dir;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static boolean isFamily(String shape) {
        return shape.equals("fair") || shape.equals("semaphore");
    }

    static String label(String shape) {
        return switch (shape) {
            case "lock-1" -> "plain lock, uncontended: 1 thread, lock()+unlock() (ops/s)";
            case "lock-8" -> "plain lock, 8 threads on one client, own lock each (ops/s)";
            case "fair" -> "fair lock, 8 threads / 4 clients, one name (acquisitions/s)";
            case "semaphore" -> "semaphore, 4 permits, 8 threads / 4 clients (acquisitions/s)";
            case "rate" -> "rate limiter, 8 threads, 10,000 limiters of 100/s (decisions/s)";
            default -> shape;
        };
    }

    static String markdown(String date, double minutes, Path beforeJar, Path afterJar, String redisVersion,
                           Plan plan, List<Shape> shapes) {
        StringBuilder md = new StringBuilder("## Baton before and after\n\n");
        md.append(String.format(Locale.ROOT, "Run %s, %.1f min, `--compare %s %s --rounds %d --slice %d --warmup %d"
                        + " --shapes %s`.%n%n", date, minutes, beforeJar, afterJar, plan.rounds(),
                plan.slice().toSeconds(), plan.warmup().toSeconds(), String.join(",", plan.shapes())));
        md.append("- before: ").append(describe(beforeJar)).append('\n');
        md.append("- after: ").append(describe(afterJar)).append('\n');
        md.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append("; JDK ").append(System.getProperty("java.runtime.version"))
                .append("; redis-server ").append(redisVersion).append(", one server for both builds\n\n");
        md.append("| Shape | before (median) | after (median) | after / before | per round: after / before, median"
                + " (min–max) | CPU µs/op, client + Redis: before → after | errors | load average (1 min): start →"
                + " end | within 5% |\n");
        md.append("|---|---:|---:|---:|---|---|---:|---|---|\n");
        for (Shape s : shapes) {
            md.append("| ").append(label(s.name)).append(" | ");
            if (s.failure != null && s.slices.values().stream().anyMatch(List::isEmpty)) {
                md.append("failed | | | | | | ").append(s.loadBefore).append(" → ").append(s.loadAfter)
                        .append(" | see below |\n");
                continue;
            }
            double before = s.median("before", 0);
            double after = s.median("after", 0);
            List<Double> ratios = s.roundRatios();
            double errors = Stream.concat(s.slices.get("before").stream(), s.slices.get("after").stream())
                    .mapToDouble(v -> v[3]).sum();
            md.append(Report.ops(before)).append(" | ").append(Report.ops(after))
                    .append(String.format(Locale.ROOT, " | **%.3f** | %.3f (%.3f–%.3f) | %.1f + %.1f → %.1f + %.1f"
                                    + " | %.0f | %s → %s | %s |%n", after / before,
                            RateLimiterCrossCheck.median(ratios),
                            ratios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                            ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
                            s.median("before", 1), s.median("before", 2), s.median("after", 1),
                            s.median("after", 2), errors, s.loadBefore, s.loadAfter,
                            s.failure != null ? "**incomplete**" : after / before >= WITHIN ? "yes" : "**no**"));
        }
        md.append(String.format(Locale.ROOT, "%nBoth builds in one JVM, each through a class loader of its own"
                        + " (the same harness, each build's baton-core and libraries), on one redis-server. Per shape:"
                        + " %d s of warm-up each (two alternating halves), then %d rounds of one %d s slice each, alternating who goes first;"
                        + " the fair lock and the semaphore run every slice on fresh clients after 1 s of warm-up, as"
                        + " the lock-family benchmarks do. Medians over the rounds. CPU: this JVM (both builds' threads;"
                        + " the idle one's are idle) and the redis-server process, per operation. Within 5%%: after /"
                        + " before of the medians at least %.2f.%n%n", plan.warmup().toSeconds(), plan.rounds(),
                plan.slice().toSeconds(), WITHIN));
        md.append("Per round, ops/s (before / after):\n\n");
        for (Shape s : shapes) {
            md.append("- ").append(s.name).append(": ");
            List<String> pairs = new ArrayList<>();
            for (int r = 0; r < Math.max(s.slices.get("before").size(), s.slices.get("after").size()); r++) {
                pairs.add(at(s.slices.get("before"), r) + " / " + at(s.slices.get("after"), r));
            }
            md.append(pairs.isEmpty() ? "none" : String.join(", ", pairs)).append('\n');
        }
        List<String> failures = shapes.stream().filter(s -> s.failure != null)
                .map(s -> s.name + ":\n" + s.failure).toList();
        md.append("\n### Anomalies\n\n").append(failures.isEmpty() ? "None.\n" : "");
        failures.forEach(f -> md.append("- ").append(f.replace("\n", "\n    ")).append('\n'));
        return md.toString();
    }

    private static String at(List<double[]> slices, int round) {
        return round < slices.size() ? Report.ops(slices.get(round)[0]) : "?";
    }

    /** The jar's path, size, time and the beginning of its SHA-256, so that a report names the builds it compared. */
    private static String describe(Path jar) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = Files.newInputStream(jar)) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    sha.update(buffer, 0, n);
                }
            }
            return String.format(Locale.ROOT, "`%s`, %,d bytes, %s, sha-256 %s", jar, Files.size(jar),
                    Files.getLastModifiedTime(jar), HexFormat.of().formatHex(Arrays.copyOf(sha.digest(), 6)));
        } catch (IOException | NoSuchAlgorithmException e) {
            return "`" + jar + "` (" + e + ")";
        }
    }
}
