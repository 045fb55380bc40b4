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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
        // First the same work without the lock: how much it loses is a matter of timing, so only its report is
        // checked here (UnlockedSummaryTest checks the wording); then the run with the lock, which must be exact.
        assertThat(run.output.indexOf("run 1 of 2: without the lock")).isPositive()
                .isLessThan(run.output.indexOf("run 2 of 2: with the lock"));
        Matcher unlocked = Pattern.compile("(?m)^final counter:\\s+(\\d+), expected 120 \\(3 workers x 40 "
                + "increments\\): (\\d+ increments lost|nothing lost this time).*$").matcher(run.output);
        assertThat(unlocked.find()).as(run.output).isTrue();
        assertThat(Long.parseLong(unlocked.group(1))).isBetween(1L, 120L);
        assertThat(run.output.lines().filter(l -> l.matches("\\s+[123]\\s+40\\s+\\d+"))).hasSize(3);
        assertThat(run.output).contains("what the columns mean:", "  violations    accesses the resource caught");
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
    void usesTheGivenRedisLeavesItRunningAndDeletesEveryKeyItCreated() {
        try (RedisServer redis = RedisServer.start()) {
            redis.command("SET", "users:1", "kept");

            Outcome run = Outcome.of("--redis", redis.uri(), "--workers", "2", "--acquisitions", "20");

            assertThat(run.code).as(run.output).isZero();
            assertThat(run.output).contains("using " + redis.uri())
                    .doesNotContain("started redis-server")
                    .containsPattern("(?m)^final counter:\\s+40, expected 40 .*: OK$")
                    // the counter, the highest token, the token log and the occupancy count of the resource, and
                    // Baton's fencing counter
                    .containsPattern("(?m)^redis:\\s+deleted the demo's 5 keys \\(baton-demo:\\*\\) from "
                            + Pattern.quote(redis.uri()) + "; it left nothing behind$");
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.command("GET", "users:1")).isEqualTo("kept");
            assertThat(redis.command("KEYS", "*").lines()).containsExactly("users:1");
        }
        assertNoWorkerLeft();
    }

    @Test
    void aFailedRunDeletesItsKeysToo() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            redis.command("SET", "users:1", "kept");
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try {
                Future<Outcome> running = executor.submit(() -> Outcome.of("--redis", redis.uri(), "--workers", "2",
                        "--acquisitions", "1000000"));
                await().atMost(Duration.ofMinutes(2)).until(() -> running.isDone() || counter(redis) > 0);
                assertThat(running.isDone()).as("the demo ended before any increment").isFalse();
                // Killed in the middle of their first run (without the lock, which a million increments do not
                // finish): the run fails with the resource's keys in Redis.
                workerProcesses().forEach(ProcessHandle::destroyForcibly);

                Outcome run = running.get(2, TimeUnit.MINUTES);

                assertThat(run.code).as(run.output).isEqualTo(1);
                assertThat(run.output).containsPattern("(?m)^result:\\s+FAIL$")
                        .containsPattern("(?m)^redis:\\s+deleted the demo's [1-9]\\d* keys \\(baton-demo:\\*\\)");
                assertThat(redis.command("KEYS", "*").lines()).containsExactly("users:1");
            } finally {
                // Should the test fail half-way, the demo (which ignores interrupts) ends once its workers are gone.
                workerProcesses().forEach(ProcessHandle::destroyForcibly);
                executor.shutdownNow();
            }
        }
        assertNoWorkerLeft();
    }

    @Test
    void aRedisThatDoesNotAnswerEndsTheDemoWithExit3AndBatonsMessageBeforeAnyWorkerStarts() {
        try (RedisServer redis = RedisServer.start()) {
            redis.stop(); // the kit keeps its port reserved, so nothing else listens there

            Outcome run = Outcome.of("--redis", redis.uri());

            assertThat(run.code).as(run.output).isEqualTo(Demo.EXIT_REDIS_UNAVAILABLE).isEqualTo(3);
            assertThat(run.output)
                    .containsPattern("(?m)^baton-demo: Redis at 127\\.0\\.0\\.1:" + redis.port()
                            + " could not be reached: nothing listens on that port \\(connection refused\\)$")
                    .contains("No worker was started.")
                    .doesNotContain("workers:", "Exception", "\tat ", "result:");
        }
        assertNoWorkerLeft();
    }

    @Test
    void refusedCredentialsEndTheDemoWithExit3WithoutShowingThePassword() {
        try (RedisServer redis = RedisServer.start(List.of("--requirepass", "the-right-one"))) {
            String uri = "redis://not-the-password@127.0.0.1:" + redis.port();

            Outcome run = Outcome.of("--redis", uri);

            assertThat(run.code).as(run.output).isEqualTo(Demo.EXIT_REDIS_UNAVAILABLE);
            assertThat(run.output)
                    .containsPattern("(?m)^baton-demo: Redis at 127\\.0\\.0\\.1:" + redis.port()
                            + " refused the credentials: wrong user name or password, or the user is disabled$")
                    .doesNotContain("not-the-password", "the-right-one", "workers:", "Exception", "\tat ");
        }
        assertNoWorkerLeft();
    }

    @Test
    void aMissingPasswordIsToldAsTheUriFormACommandLineUserCanGive() {
        try (RedisServer redis = RedisServer.start(List.of("--requirepass", "the-right-one"))) {
            Outcome run = Outcome.of("--redis", redis.uri());

            assertThat(run.code).as(run.output).isEqualTo(Demo.EXIT_REDIS_UNAVAILABLE);
            assertThat(run.output)
                    .containsPattern("(?m)^baton-demo: Redis at 127\\.0\\.0\\.1:" + redis.port()
                            + " requires authentication, and no password was given: put it in the uri as "
                            + "redis://:password@host:port .*$")
                    .containsPattern("(?m)^The password goes in the --redis URI: redis://:password@host:port, .*"
                            + "No worker was started\\.$")
                    // a setting of the Java API, which a command-line user has no way to call
                    .doesNotContain("BatonConfig", "Builder", "the-right-one", "workers:", "Exception", "\tat ");
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
        // The one problem and where to read more, not the whole usage text that would bury it.
        assertThat(run.output.lines()).hasSize(2);
        assertThat(run.output.lines().findFirst()).hasValueSatisfying(
                line -> assertThat(line).startsWith("baton-demo: ").contains(flag));
        assertThat(run.output).endsWith("run with --help for the options" + System.lineSeparator())
                .doesNotContain("Usage:");
    }

    @Test
    void anUnknownOptionIsNamedAlone() {
        Outcome run = Outcome.of("--foo");

        assertThat(run.code).isEqualTo(Demo.EXIT_USAGE);
        assertThat(run.output.lines()).containsExactly("baton-demo: unknown option --foo",
                "run with --help for the options");
    }

    @Test
    void helpPrintsTheUsageAndExitsWith0() {
        Outcome run = Outcome.of("--help");

        assertThat(run.code).isZero();
        assertThat(run.output).startsWith("Usage:").contains("--workers N", "--acquisitions M", "--redis URI")
                .contains("and deletes all of them", "3 Redis did not answer or refused the demo");
    }

    private static void assertNoWorkerLeft() {
        await().atMost(Duration.ofSeconds(5)).until(() -> workerProcesses().isEmpty());
    }

    private static List<ProcessHandle> workerProcesses() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(DemoWorker.class.getName()))
                .toList();
    }

    private static long counter(RedisServer redis) {
        String value = redis.command("GET", FencedCounter.KEY_PREFIX + "counter");
        return value == null ? 0 : Long.parseLong(value);
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
