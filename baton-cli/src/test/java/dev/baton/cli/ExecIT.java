package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton exec} run as an operator runs it, against a real Redis: the command runs under the lock with its
 * fencing token, its exit status comes back, a busy lock or a wait that runs out does not run it, signals reach it,
 * a lost lease stops it, two processes never run it at once, and every way of not running it has its own status.
 */
class ExecIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static RedisServer redis;
    private static Baton baton;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        baton = Baton.connect(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (baton != null) {
            baton.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void runsTheCommandWithItsFencingTokenAndReleasesTheLock() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "--", "sh", "-c",
                "echo \"token=$BATON_FENCING_TOKEN name=$BATON_LOCK_NAME\"")) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isZero();
            long issued = baton.inspect(name).lastFencingToken();
            assertThat(p.stdout()).isEqualTo("token=" + issued + " name=" + name + "\n");
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void passesTheCommandsExitStatusOnAndReleasesTheLock() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "sh", "-c", "exit 3")) { // no --: the command's -c is its own
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(3);
            assertThat(p.stderr()).isEmpty();
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void aBusyLockIsNotWaitedForWithWaitZeroAndTimesOutWithAWait() {
        String name = name();
        try (BatonProcess holder = exec("--lock", name, "--", "sh", "-c", "echo started; exec sleep 120")) {
            awaitOutput(holder, "started");
            Path marker = dir.resolve("ran");
            try (BatonProcess busy = exec("--lock", name, "--wait", "0", "--", "touch", marker.toString())) {
                assertThat(busy.waitFor(BOUND)).as("%s", busy).isEqualTo(ExitStatus.BUSY.code());
                assertThat(busy.stderr()).contains("lock '" + name + "' is busy").contains("not run");
            }
            try (BatonProcess late = exec("--lock", name, "--wait", "1s", "--", "touch", marker.toString())) {
                assertThat(late.waitFor(BOUND)).as("%s", late).isEqualTo(ExitStatus.TIMEOUT.code());
                assertThat(late.stderr()).contains("still busy after 1.0s");
            }
            assertThat(marker).doesNotExist();

            holder.signal("TERM"); // passed on to sleep, which dies of it: 128 + 15
            assertThat(holder.waitFor(BOUND)).as("%s", holder).isEqualTo(143);
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void fairTakesTheFairLockOfTheName() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "--fair", "--", "sh", "-c", "echo started; exec sleep 120")) {
            awaitOutput(p, "started");
            LockInfo info = baton.inspect(name);
            assertThat(info.kind()).isEqualTo(LockType.FAIR);
            assertThat(info.holder().map(LockInfo.Holder::pid)).contains(p.process().pid());
            p.signal("TERM");
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(143);
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void aCommandThatIgnoresTheSignalIsKilledAfterTheGracePeriod() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "--grace", "1s", "--", "sh", "-c",
                "trap '' TERM; echo started; exec sleep 120")) {
            awaitOutput(p, "started");
            p.signal("TERM");
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(128 + 9);
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void aLostLeaseStopsTheCommandAndSaysWhy() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "--lease", "3s", "--grace", "1s", "--", "sh", "-c",
                "trap '' TERM; echo started; exec sleep 120")) {
            awaitOutput(p, "started");
            redis.pause(); // no renewal gets through: the lease runs out in 3 s
            int status;
            try {
                status = p.waitFor(BOUND);
            } finally {
                redis.resume();
            }
            assertThat(status).as("%s", p).isEqualTo(ExitStatus.LEASE_LOST.code());
            assertThat(p.stderr()).contains("baton: lost lock '" + name + "'")
                    .contains("Redis did not answer").contains("SIGTERM");
        }
    }

    @Test
    void twoProcessesNeverRunTheCommandAtOnce() throws IOException {
        String name = name();
        Path log = dir.resolve("log");
        String script = "echo start >> " + log + "; sleep 1; echo end >> " + log;
        List<BatonProcess> runs = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                runs.add(exec("--lock", name, "--", "sh", "-c", script));
            }
            for (BatonProcess p : runs) {
                assertThat(p.waitFor(BOUND)).as("%s", p).isZero();
            }
        } finally {
            runs.forEach(BatonProcess::close);
        }
        assertThat(Files.readAllLines(log)).containsExactly("start", "end", "start", "end", "start", "end");
    }

    @Test
    void aSemaphoreLetsAsManyCommandsRunAsItHasPermits() {
        String name = name();
        String semaphore = name + ":2";
        try (BatonProcess first = exec("--semaphore", semaphore, "--", "sh", "-c", "echo started; exec sleep 120");
             BatonProcess second = exec("--semaphore", semaphore, "--", "sh", "-c", "echo started; exec sleep 120")) {
            awaitOutput(first, "started");
            awaitOutput(second, "started");
            try (BatonProcess third = exec("--semaphore", semaphore, "--wait", "0", "--", "echo", "ran")) {
                assertThat(third.waitFor(BOUND)).as("%s", third).isEqualTo(ExitStatus.BUSY.code());
                assertThat(third.stdout()).isEmpty();
                assertThat(third.stderr()).contains("semaphore '" + name + "' is busy");
            }
            first.signal("TERM");
            assertThat(first.waitFor(BOUND)).as("%s", first).isEqualTo(143);
            try (BatonProcess third = exec("--semaphore", semaphore, "--wait", "0", "--", "echo", "ran")) {
                assertThat(third.waitFor(BOUND)).as("%s", third).isZero();
                assertThat(third.stdout()).isEqualTo("ran\n");
            }
            second.signal("TERM");
            assertThat(second.waitFor(BOUND)).as("%s", second).isEqualTo(143);
        }
    }

    @Test
    void unavailableRedisIsStatus69AndNoPasswordIsPrinted() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // free once closed: nothing listens there
        }
        Path marker = dir.resolve("ran");
        long start = System.nanoTime();
        try (BatonProcess p = BatonProcess.start(Map.of(), "exec", "--redis",
                "redis://app:s3cret-pw@127.0.0.1:" + port, "--timeout", "2s", "--lock", name(), "--", "touch",
                marker.toString())) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(ExitStatus.UNAVAILABLE.code());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
            assertThat(p.stderr()).contains("Redis unavailable").doesNotContain("s3cret-pw");
            assertThat(p.stdout()).doesNotContain("s3cret-pw");
            assertThat(marker).doesNotExist();
        }
    }

    @Test
    void aCommandThatCannotBeStartedIsStatus126() {
        String name = name();
        try (BatonProcess p = exec("--lock", name, "--", dir.resolve("no-such-command").toString())) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(ExitStatus.CANNOT_RUN.code());
            assertThat(p.stderr()).contains("cannot run").contains("No such file or directory");
            assertThat(baton.inspect(name).isLocked()).isFalse();
        }
    }

    @Test
    void badUsageIsStatus2WithOneLine() {
        try (BatonProcess both = exec("--lock", "a", "--semaphore", "b:2", "--", "true");
             BatonProcess permits = exec("--semaphore", "b:0", "--", "true");
             BatonProcess noCommand = exec("--lock", "a")) {
            for (BatonProcess p : List.of(both, permits, noCommand)) {
                assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(ExitStatus.USAGE.code());
                assertThat(p.stderr()).startsWith("baton: ");
            }
            assertThat(noCommand.stderr()).contains("COMMAND").contains("Try 'baton exec --help'.");
            assertThat(permits.stderr().lines()).hasSize(1);
        }
        try (BatonProcess help = BatonProcess.run("exec", "--help")) {
            assertThat(help.exitCode()).isZero();
            assertThat(help.stdout()).contains("BATON_FENCING_TOKEN").contains("--wait").contains("--grace");
        }
    }

    private static BatonProcess exec(String... args) {
        List<String> all = new ArrayList<>(List.of("exec", "--redis", redis.uri()));
        all.addAll(List.of(args));
        return BatonProcess.start(Map.of(), all.toArray(String[]::new));
    }

    private static void awaitOutput(BatonProcess p, String text) {
        await().atMost(BOUND).until(() -> p.stdout().contains(text) || !p.process().isAlive());
        assertThat(p.stdout()).as("%s", p).contains(text);
    }

    private static String name() {
        return "exec-it-" + NAMES.incrementAndGet();
    }
}
