package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code baton watch} run as a separate process while this test takes and frees a lock with the library: it prints
 * the state it found, then a line per acquisition and release, as text or as one JSON object per line, and ends with
 * status 0 on SIGTERM, or 69 when Redis cannot be reached.
 */
class WatchIT {
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static RedisServer redis;
    private static Baton baton;

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
    void printsAcquiredAndReleasedLinesUntilTerminated() throws InterruptedException {
        String name = "watch-it-text";
        try (BatonProcess watch = watch(name)) {
            await().atMost(BOUND).until(() -> watch.stdout().contains("free"));
            Lease lease = baton.lock(name).acquire(Duration.ZERO);
            long token = lease.fencingToken();
            await().atMost(BOUND).until(() -> watch.stdout().contains("acquired"));
            lease.release();
            await().atMost(BOUND).until(() -> watch.stdout().contains("released"));

            watch.signal("TERM");
            assertThat(watch.waitFor(BOUND)).as("%s", watch).isZero();
            String[] lines = watch.stdout().split("\n");
            assertThat(lines).hasSize(3);
            assertThat(lines[0]).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  free .*");
            assertThat(lines[1]).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  acquired     lock       .* pid "
                    + ProcessHandle.current().pid() + " thread .*  token " + token + "  lease \\d.*");
            assertThat(lines[2]).contains("released").contains("token " + token);
            assertThat(watch.stdout()).doesNotContain("\u001b["); // no colour without a terminal
        }
    }

    @Test
    void printsOneJsonObjectPerLine() throws InterruptedException {
        String name = "watch-it-json";
        try (BatonProcess watch = watch(name, "--json")) {
            await().atMost(BOUND).until(() -> watch.stdout().contains("\"event\":\"free\""));
            Lease lease = baton.lock(name).acquire(Duration.ZERO);
            long token = lease.fencingToken();
            await().atMost(BOUND).until(() -> watch.stdout().contains("\"event\":\"acquired\""));
            lease.release();
            await().atMost(BOUND).until(() -> watch.stdout().contains("\"event\":\"released\""));

            watch.signal("TERM");
            assertThat(watch.waitFor(BOUND)).as("%s", watch).isZero();
            String[] lines = watch.stdout().split("\n");
            assertThat(lines).hasSize(3);
            assertThat(lines[0]).matches("\\{\"time\":\"[^\"]+Z\",\"event\":\"free\",\"name\":\"" + name
                    + "\",\"kind\":null}");
            assertThat(lines[1]).startsWith("{\"time\":\"").contains("\"event\":\"acquired\",\"name\":\"" + name
                    + "\",\"kind\":\"lock\",\"holder\":{\"instance\":\"" + baton.instanceId() + "\"")
                    .contains("\"pid\":" + ProcessHandle.current().pid())
                    .contains("\"fencingToken\":" + token).contains("\"leaseLeftMs\":").endsWith("}}");
            assertThat(lines[2]).contains("\"event\":\"released\"").contains("\"fencingToken\":" + token);
            assertThat(watch.stderr()).isEmpty(); // the "watching..." line is for people only
        }
    }

    @Test
    void followsAnElectionThroughItsLeader() throws InterruptedException {
        String name = "watch-it-election";
        try (BatonProcess watch = watch(name, "--election")) {
            await().atMost(BOUND).until(() -> watch.stdout().contains("free"));
            Leadership leadership = baton.election(name).awaitLeadership(Duration.ZERO);
            await().atMost(BOUND).until(() -> watch.stdout().contains("acquired"));
            leadership.resign();
            await().atMost(BOUND).until(() -> watch.stdout().contains("released"));

            watch.signal("TERM");
            assertThat(watch.waitFor(BOUND)).as("%s", watch).isZero();
            String[] lines = watch.stdout().split("\n");
            assertThat(lines).hasSize(3);
            assertThat(lines[1]).contains("acquired     election   ")
                    .contains(" pid " + ProcessHandle.current().pid() + "  token " + leadership.epoch())
                    .doesNotContain("lease");
            assertThat(lines[2]).contains("released").contains("token " + leadership.epoch());
        }
    }

    @Test
    void unavailableRedisIsStatus69() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (BatonProcess p = BatonProcess.start(Map.of(), "watch", "--redis", "redis://127.0.0.1:" + port,
                "--timeout", "2s", "anything")) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(ExitStatus.UNAVAILABLE.code());
            assertThat(p.stderr()).contains("Redis unavailable");
        }
    }

    private static BatonProcess watch(String name, String... more) {
        String[] args = new String[5 + more.length];
        args[0] = "watch";
        args[1] = "--redis";
        args[2] = redis.uri();
        args[3] = "--interval";
        args[4] = "100ms";
        System.arraycopy(more, 0, args, 5, more.length);
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[all.length - 1] = name;
        return BatonProcess.start(Map.of(), all);
    }
}
