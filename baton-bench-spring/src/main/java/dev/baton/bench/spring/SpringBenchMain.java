package dev.baton.bench.spring;

import dev.baton.test.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.springframework.boot.SpringBootVersion;

/**
 * The entry point of the Spring benchmarks: {@code java -jar baton-bench-spring/target/benchmarks.jar}. Starts one
 * redis-server through baton-test, runs {@link LockAnnotationBenchmark} and {@link RateLimitAnnotationBenchmark} in
 * rounds ({@link SpringBenchRun}), and prints a Markdown report ({@link SpringBenchReport}), also written to
 * {@code spring-benchmark-results.md} next to the jar.
 *
 * <p>Options: {@code --quick} (one short round: checks the harness, the figures mean nothing), {@code --smoke} (no
 * JMH: every contender called {@value #SMOKE_CALLS} times in this JVM, on one application, seconds in all: checks
 * that every contender works and is guarded, the figures mean even less), {@code --rounds N} (3 by default),
 * {@code --out FILE}.
 */
public final class SpringBenchMain {
    /** Calls per contender with {@code --smoke}. */
    static final int SMOKE_CALLS = 200;

    /**
     * What the command line asked for.
     *
     * @param plan  how long to measure
     * @param out   where to write the report
     * @param smoke whether to call every contender in this JVM instead of measuring ({@code --smoke})
     */
    record Settings(SpringBenchRun.Plan plan, Path out, boolean smoke) {

        static Settings parse(String[] args) {
            SpringBenchRun.Plan plan = SpringBenchRun.Plan.FULL;
            Integer rounds = null;
            boolean smoke = false;
            Path out = defaultDirectory().resolve("spring-benchmark-results.md");
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> plan = SpringBenchRun.Plan.QUICK;
                    case "--smoke" -> smoke = true;
                    case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                    case "--out" -> out = Path.of(value(args, ++i, "--out"));
                    case "-h", "--help" -> {
                        System.out.println("usage: java -jar baton-bench-spring/target/benchmarks.jar [--quick]"
                                + " [--smoke] [--rounds N] [--out FILE]");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
                }
            }
            return new Settings(rounds == null ? plan : plan.withRounds(rounds), out, smoke);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }

    private SpringBenchMain() {
    }

    /**
     * Runs the benchmarks.
     *
     * @param args the options above
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        Settings settings = Settings.parse(args);
        String markdown;
        try (RedisServer server = RedisServer.start()) {
            markdown = run(settings, server).markdown();
        }
        Path out = settings.out().toAbsolutePath();
        Files.createDirectories(out.getParent());
        Files.writeString(out, markdown, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(markdown);
        log("report written to " + out);
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    /**
     * Runs the plan on {@code server} and makes the report.
     *
     * @param settings what to run
     * @param server   the redis-server every contender uses
     * @return the report, with the measurements
     */
    static SpringBenchReport run(Settings settings, RedisServer server) {
        Map<String, String> header = new LinkedHashMap<>();
        header.put("Date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        header.put("Machine", Runtime.getRuntime().availableProcessors() + " cores, shared with other builds;"
                + " load average at the start " + loadAverage());
        header.put("Redis", infoField(server.command("INFO", "server"), "redis_version") + " ("
                + server.binary().path() + "), one server for every contender");
        header.put("Libraries", "Spring Boot " + SpringBootVersion.getVersion()
                + ", Lettuce " + mavenVersion("io.lettuce", "lettuce-core")
                + ", ShedLock " + mavenVersion("net.javacrumbs.shedlock", "shedlock-core")
                + ", Bucket4j " + mavenVersion("com.bucket4j", "bucket4j_jdk17-core")
                + " (Jedis module " + mavenVersion("com.bucket4j", "bucket4j_jdk17-jedis") + ")"
                + ", Bucket4j starter " + mavenVersion("com.giffing.bucket4j.spring.boot.starter",
                        "bucket4j-spring-boot-starter")
                + ", Jedis " + mavenVersion("redis.clients", "jedis")
                + ", JMH " + mavenVersion("org.openjdk.jmh", "jmh-core"));
        SpringBenchRun.Result result;
        if (settings.smoke()) {
            header.put("Plan", "smoke: " + SMOKE_CALLS + " calls per contender in one JVM and one application, no"
                    + " JMH; 1 thread; calls/s = 1 / mean; the figures mean nothing");
            log("redis-server at " + server.uri() + "; smoke, " + SMOKE_CALLS + " calls per contender");
            result = SpringBenchRun.smoke(server.uri(), SMOKE_CALLS);
        } else {
            header.put("Plan", settings.plan() + "; JMH SampleTime, 1 thread; calls/s = 1 / mean");
            log("redis-server at " + server.uri() + "; " + settings.plan());
            result = SpringBenchRun.run(server.uri(), settings.plan());
        }
        header.put("Load average at the end", loadAverage());
        return new SpringBenchReport(result, header);
    }

    static void log(String line) {
        System.out.println("[baton-bench-spring] " + line);
        System.out.flush();
    }

    private static String loadAverage() {
        try {
            List<String> fields = List.of(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+"));
            return String.join(" ", fields.subList(0, 3));
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String infoField(String info, String field) {
        return info.lines().filter(line -> line.startsWith(field + ":"))
                .map(line -> line.substring(field.length() + 1).trim()).findFirst().orElse("?");
    }

    /** A library's version from the {@code pom.properties} its jar (and so the shaded jar) carries. */
    /**
     * The version of a library whose jar carries no pom.properties (Spring Integration's), from the jar path Maven
     * recorded at build time in libraries.properties; "?" if unknown.
     */
    static String libraryVersion(String artifact) {
        try (InputStream in = SpringBenchMain.class.getResourceAsStream("libraries.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            String jar = Path.of(properties.getProperty(artifact, "?")).getFileName().toString();
            String prefix = artifact + "-";
            return jar.startsWith(prefix) && jar.endsWith(".jar")
                    ? jar.substring(prefix.length(), jar.length() - 4) : "?";
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    static String mavenVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = SpringBenchMain.class.getResourceAsStream(resource)) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static Path defaultDirectory() {
        try {
            Path location = Path.of(SpringBenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return location.getParent() != null ? location.getParent() : Path.of(".");
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of(".");
        }
    }
}
