package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the shaded jar that {@code package} built, in its own JVM, as the README's first command does: what the
 * in-process {@link DemoIT} cannot see (the logging provider merged into the jar, a JVM interrupted by a signal).
 */
class DemoJarIT {

    private static final Path JAR = Path.of("target", "baton-demo.jar");

    @TempDir
    Path dir;

    @Test
    void theJarLogsThroughItsProviderAndPrintsNoLoggingNoise() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            JarRun demo = JarRun.start(dir, List.of(), "--redis", redis.uri(), "--workers", "2",
                    "--acquisitions", "20");

            assertThat(demo.process.waitFor(2, TimeUnit.MINUTES)).as("demo still running").isTrue();
            demo.echo();

            assertThat(demo.process.exitValue()).as(demo.output()).isZero();
            assertThat(demo.stdout()).containsPattern("(?m)^result:\\s+PASS$");
            // Without a provider in the jar SLF4J 2 would warn ("No SLF4J providers were found") and drop Baton's
            // warnings; with two it would warn too. Lettuce and netty log at debug and info while connecting.
            assertThat(demo.output()).doesNotContain("SLF4J");
            assertThat(demo.stderr().lines()).noneMatch(line -> line.matches(".*\\b(TRACE|DEBUG|INFO)\\b.*"));
            assertThat(redis.command("KEYS", "*")).isEmpty();
        }
    }

    @Test
    void aLogLevelGivenToTheDemoHoldsInItsWorkersWhoseLogLinesTheSummaryShows() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            // Lettuce logs at debug while connecting; Baton itself may have nothing to say in a healthy run.
            JarRun demo = JarRun.start(dir, List.of("-Dorg.slf4j.simpleLogger.log.io.lettuce.core.RedisClient=debug"),
                    "--redis", redis.uri(), "--workers", "1", "--acquisitions", "10");

            assertThat(demo.process.waitFor(2, TimeUnit.MINUTES)).as("demo still running").isTrue();
            demo.echo();

            assertThat(demo.process.exitValue()).as(demo.output()).isZero();
            assertThat(demo.stdout()).containsPattern("(?m)^worker 1 completed; last output:\\n"
                    + "    \\d\\d:\\d\\d:\\d\\d\\.\\d{3} DEBUG io\\.lettuce\\.core\\.RedisClient - ");
        }
    }

    @Test
    void anInterruptedRunKillsItsWorkersAndDeletesItsKeys() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            redis.command("SET", "users:1", "kept");
            JarRun demo = JarRun.start(dir, List.of(), "--redis", redis.uri(), "--workers", "2",
                    "--acquisitions", "1000000");
            try {
                await().atMost(Duration.ofMinutes(2))
                        .until(() -> !demo.process.isAlive() || redis.command("GET", "baton-demo:counter") != null);
                assertThat(demo.process.isAlive()).as(demo.output()).isTrue();
                List<ProcessHandle> workers = demo.process.descendants().toList();
                assertThat(workers).isNotEmpty();

                demo.process.destroy(); // SIGTERM: like Ctrl-C's SIGINT, it makes the JVM run its shutdown hooks

                assertThat(demo.process.waitFor(1, TimeUnit.MINUTES)).as("demo still running").isTrue();
                demo.echo();
                await().atMost(Duration.ofSeconds(10)).until(() -> workers.stream().noneMatch(ProcessHandle::isAlive));
                assertThat(demo.stdout()).containsPattern(
                        "(?m)^redis:\\s+deleted the demo's [1-9]\\d* keys \\(baton-demo:\\*\\) from ");
                assertThat(redis.command("KEYS", "*").lines()).containsExactly("users:1");
            } finally {
                demo.process.descendants().forEach(ProcessHandle::destroyForcibly);
                demo.process.destroyForcibly();
            }
        }
    }

    /** The jar running in a JVM of its own, its stdout and stderr in files (a full pipe could block it). */
    private record JarRun(Process process, Path stdoutFile, Path stderrFile) {
        static JarRun start(Path dir, List<String> jvmOptions, String... args) throws IOException {
            assertThat(JAR).as("built by the package phase, before the integration tests").isRegularFile();
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.addAll(List.of("-jar", JAR.toString()));
            command.addAll(List.of(args));
            Path out = dir.resolve("stdout.txt");
            Path err = dir.resolve("stderr.txt");
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .start();
            return new JarRun(process, out, err);
        }

        String stdout() throws IOException {
            return Files.readString(stdoutFile, StandardCharsets.UTF_8);
        }

        String stderr() throws IOException {
            return Files.readString(stderrFile, StandardCharsets.UTF_8);
        }

        String output() throws IOException {
            return "stdout:\n" + stdout() + "stderr:\n" + stderr();
        }

        /** Copies the output to the test log (a file in failsafe-reports). */
        void echo() throws IOException {
            System.out.println("$ java -jar baton-demo.jar ... (exit " + process.exitValue() + ")\n" + output());
        }
    }
}
