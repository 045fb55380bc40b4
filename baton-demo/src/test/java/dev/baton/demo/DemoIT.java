package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.test.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Runs the demo in-process, with real worker JVMs and a real redis-server, as the README's first command does. */
class DemoIT {

    private static final Pattern STARTED_REDIS =
            Pattern.compile("started redis-server .* at redis://127\\.0\\.0\\.1:(\\d+)");

    @Test
    void workersAgreeOnTheCounterAndTheResourceSeesIncreasingTokens() {
        Outcome run = Outcome.of("--workers", "3", "--acquisitions", "40");

        assertThat(run.code).as(run.output).isZero();
        assertThat(run.output)
                .containsPattern("(?m)^final counter:\\s+120, expected 120 \\(3 workers x 40 acquisitions\\): OK$")
                .containsPattern("(?m)^violations:\\s+0$")
                .containsPattern("(?m)^fencing tokens: 120 seen by the resource, .*"
                        + "strictly increasing in acquisition order: yes$")
                .containsPattern("(?m)^lock after run: free")
                .containsPattern("(?m)^result:\\s+PASS$");
        assertThat(run.output.lines().filter(l -> l.matches("\\s+[123]\\s+40\\s+\\d+\\s+\\d+\\s+0\\s+0"))).hasSize(3);
        assertNoWorkerLeft();
        Matcher redis = STARTED_REDIS.matcher(run.output);
        assertThat(redis.find()).as(run.output).isTrue();
        int port = Integer.parseInt(redis.group(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> !accepts(port));
    }

    @Test
    void usesTheGivenRedisLeavesItRunningAndTouchesOnlyItsOwnKeys() {
        try (RedisServer redis = RedisServer.start()) {
            redis.command("SET", "users:1", "kept");

            Outcome run = Outcome.of("--redis", redis.uri(), "--workers", "2", "--acquisitions", "20");

            assertThat(run.code).as(run.output).isZero();
            assertThat(run.output).contains("using " + redis.uri())
                    .doesNotContain("started redis-server")
                    .containsPattern("(?m)^final counter:\\s+40, expected 40 .*: OK$");
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.command("GET", "users:1")).isEqualTo("kept");
            // After a passing run only Baton's own fencing counter remains; the demo's data keys are gone.
            assertThat(redis.command("KEYS", "*").lines().sorted())
                    .containsExactly("baton-demo:lock:{counter}:token", "users:1");
        }
        assertNoWorkerLeft();
    }

    @Test
    void aRunThatOutlivesItsTimeoutFailsAndKillsItsWorkers() {
        Outcome run = Outcome.of("--workers", "2", "--acquisitions", "1000000", "--timeout", "4");

        assertThat(run.code).as(run.output).isEqualTo(1);
        assertThat(run.output).containsPattern("(?m)^result:\\s+FAIL$")
                .containsPattern("worker [12] was still running and was killed");
        assertNoWorkerLeft();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--workers 0                   | --workers",
        "--workers=65                  | --workers",
        "--workers                     | --workers",
        "--acquisitions many           | --acquisitions",
        "--timeout -1                  | --timeout",
        "--redis http://localhost:6379 | --redis",
        "--verbose                     | --verbose",
    })
    void aBadCommandLineExitsWith2AndNamesTheFlag(String args, String flag) {
        Outcome run = Outcome.of(args.split(" "));

        assertThat(run.code).as(run.output).isEqualTo(2);
        assertThat(run.output.lines().findFirst()).hasValueSatisfying(
                line -> assertThat(line).startsWith("baton-demo: ").contains(flag));
        assertThat(run.output).contains("Usage: java -jar baton-demo.jar");
    }

    @Test
    void helpPrintsTheUsageAndExitsWith0() {
        Outcome run = Outcome.of("--help");

        assertThat(run.code).isZero();
        assertThat(run.output).startsWith("Usage:").contains("--workers N", "--acquisitions M", "--redis URI");
    }

    private static void assertNoWorkerLeft() {
        await().atMost(Duration.ofSeconds(5)).until(() -> workerProcesses().isEmpty());
    }

    private static List<ProcessHandle> workerProcesses() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(DemoWorker.class.getName()))
                .toList();
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Exit code and everything the demo printed (echoed to the test log as well). */
    private record Outcome(int code, String output) {
        static Outcome of(String... args) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int code;
            try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                code = Demo.run(args, out);
            }
            String output = bytes.toString(StandardCharsets.UTF_8);
            System.out.println("$ baton-demo " + String.join(" ", args) + "\n" + output + "(exit " + code + ")");
            return new Outcome(code, output);
        }
    }
}
