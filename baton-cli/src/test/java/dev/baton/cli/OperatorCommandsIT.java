package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Lease;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code baton inspect}, {@code list}, {@code unlock} and {@code limiter} run as an operator runs them: the jar as a
 * separate process against a real Redis, whose objects this test creates with the library. Every command's output
 * (text and JSON) and exit status.
 */
class OperatorCommandsIT {
    private static final Duration LONG = Duration.ofSeconds(60);

    private static RedisServer redis;
    private Baton baton;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void connect() {
        redis.command("FLUSHALL");
        baton = Baton.connect(BatonConfig.builder().uri(redis.uri()).watchdogLease(Duration.ofSeconds(3)).build());
    }

    @AfterEach
    void close() {
        baton.close();
    }

    private static BatonProcess baton(String... args) {
        return BatonProcess.run(Map.of("BATON_REDIS_URI", redis.uri()), args);
    }

    @Test
    void inspectShowsEveryKindUnderANameWithHolderHostPidThreadSinceLeaseAndToken() throws Exception {
        try (Lease lock = baton.lock("orders").acquire(LONG);
             Lease permits = baton.semaphore("orders", 5).acquire(2, LONG)) {
            baton.countDownLatch("orders").trySetCount(3);
            // GCRA gives permits back continuously: one every 2.4 hours here, so the counts hold for the whole test.
            baton.rateLimiter("orders", RateLimit.of(100, Duration.ofDays(10))).tryAcquire(40);

            BatonProcess text = baton("inspect", "orders");
            assertThat(text.exitCode()).as(text.toString()).isZero();
            String pid = Long.toString(ProcessHandle.current().pid());
            assertThat(text.stdout())
                    .contains("plain lock 'orders': held")
                    .contains("semaphore 'orders': 2 of 5 permits held, 3 free")
                    .contains("count-down latch 'orders': count 3")
                    .contains("rate limiter 'orders'")
                    .contains(pid)
                    .contains(Long.toString(lock.fencingToken()))
                    .contains(Long.toString(permits.fencingToken()))
                    .contains("ago)");
            // The limit's row: position, algorithm, permits, period, used, remaining.
            assertThat(text.stdout()).containsPattern("0\\s+gcra\\s+100\\s+10d00h\\s+40\\s+60\\s");
            assertThat(text.stdout()).as("no colour off a terminal").doesNotContain("\u001b[");

            BatonProcess json = baton("inspect", "orders", "--json");
            assertThat(json.exitCode()).as(json.toString()).isZero();
            assertThat(json.stdout())
                    .startsWith("{\"name\":\"orders\",\"namespace\":\"baton\",\"locked\":true,\"objects\":[")
                    .contains("{\"kind\":\"lock\",\"holders\":[{\"instance\":\"" + baton.instanceId() + "\"")
                    .contains("\"pid\":" + pid)
                    .contains("\"fencingToken\":" + lock.fencingToken())
                    .contains("\"heldSinceMs\":" + lock.fencingToken() / 1000)
                    .contains("\"kind\":\"semaphore\"")
                    .contains("\"permits\":5,\"availablePermits\":3")
                    .contains("{\"kind\":\"latch\",\"holders\":[],\"waiting\":0,\"count\":3")
                    .contains("\"rateLimiter\":[{\"position\":0,\"algorithm\":\"GCRA\",\"permits\":100,"
                            + "\"periodMs\":864000000,\"used\":40,\"remaining\":60,");
            assertThat(json.stdout().lines()).hasSize(1);
        }
        BatonProcess free = baton("inspect", "orders");
        assertThat(free.stdout()).doesNotContain("plain lock").doesNotContain("semaphore").contains("count 3");
    }

    @Test
    void inspectShowsAFairLocksQueueInOrder() throws Exception {
        try (Lease held = baton.fairLock("line").acquire(LONG);
             Baton waiter = Baton.connect(redis.uri())) {
            java.util.concurrent.CompletableFuture<Lease> waiting = waiter.fairLock("line").acquireAsync(LONG);
            org.awaitility.Awaitility.await().atMost(LONG)
                    .until(() -> baton.admin().queue("line", dev.baton.BatonAdmin.Kind.FAIR, 10).size() == 1);
            BatonProcess text = baton("inspect", "line");
            assertThat(text.exitCode()).as(text.toString()).isZero();
            assertThat(text.stdout()).contains("fair lock 'line': held, 1 waiting")
                    .contains("queue, first in line first:").containsPattern("\\n1\\s+\\S+\\s+"
                            + ProcessHandle.current().pid() + "\\s");
            BatonProcess json = baton("inspect", "line", "--json");
            assertThat(json.stdout()).contains("\"queue\":[{\"instance\":\"" + waiter.instanceId() + "\"");
            held.release();
            waiting.get(LONG.toSeconds(), TimeUnit.SECONDS).release();
        }
    }

    @Test
    void inspectOfANameNobodyUsedSaysSoAndExitsZero() {
        BatonProcess p = baton("inspect", "nobody");
        assertThat(p.exitCode()).as(p.toString()).isZero();
        assertThat(p.stdout()).contains("nothing is held under 'nobody' in namespace 'baton'");
    }

    @Test
    void listShowsWhatExistsByKindWithGlobsAndJson() throws Exception {
        try (Lease a = baton.lock("jobs:a").acquire(LONG);
             Lease f = baton.fairLock("jobs:b").acquire(LONG)) {
            try (Lease gone = baton.lock("other").acquire(LONG)) {
                assertThat(gone.isValid()).isTrue();
            }
            BatonProcess table = baton("list");
            assertThat(table.exitCode()).as(table.toString()).isZero();
            assertThat(table.stdout()).containsPattern("KIND\\s+NAME\\s+STATE")
                    .containsPattern("lock\\s+jobs:a\\s+active")
                    .containsPattern("fair\\s+jobs:b\\s+active")
                    .containsPattern("lock\\s+other\\s+idle")
                    .contains("3 objects");

            BatonProcess globbed = baton("list", "--match", "jobs:*", "--kind", "fair", "--json");
            assertThat(globbed.exitCode()).as(globbed.toString()).isZero();
            assertThat(globbed.stdout()).startsWith("{\"namespace\":\"baton\",\"objects\":[{\"kind\":\"fair\","
                    + "\"name\":\"jobs:b\",\"active\":true}],\"complete\":true,\"scanCalls\":");

            BatonProcess active = baton("list", "--active");
            assertThat(active.stdout()).contains("jobs:a").doesNotContain("other");

            BatonProcess otherNamespace = baton("list", "--namespace", "elsewhere");
            assertThat(otherNamespace.stdout()).contains("no objects in namespace 'elsewhere'");
        }
    }

    @Test
    void listOfAHundredThousandObjectsTakesBoundedScanCallsAndNeverBlocksRedis() {
        // 100,000 fencing counters of names used today, written by one script.
        redis.command("EVAL", "for i = 1, 100000 do redis.call('SET', 'baton:lock:{n' .. i .. '}:token', i) end",
                "0");
        redis.command("CONFIG", "RESETSTAT");
        BatonProcess p = baton("list", "--limit", "200000", "--json");
        assertThat(p.exitCode()).as(p.stderr()).isZero();
        long objects = Pattern.compile("\"kind\":\"lock\"").matcher(p.stdout()).results().count();
        assertThat(objects).isEqualTo(100_000);
        Matcher calls = Pattern.compile("\"scanCalls\":(\\d+)").matcher(p.stdout());
        assertThat(calls.find()).isTrue();
        // SCAN examines about COUNT (1,000) keys per call: 100 calls, give or take the hash table's buckets.
        assertThat(Long.parseLong(calls.group(1))).isBetween(90L, 150L);
        String stats = redis.command("INFO", "commandstats");
        Matcher scan = Pattern.compile("cmdstat_scan:calls=(\\d+),usec=(\\d+)").matcher(stats);
        assertThat(scan.find()).as(stats).isTrue();
        assertThat(Long.parseLong(scan.group(1))).isEqualTo(Long.parseLong(calls.group(1)));
        assertThat(stats).as("never KEYS").doesNotContain("cmdstat_keys");
        // No call holds Redis for long: a millisecond on average is far above what 1,000 keys cost.
        assertThat(Long.parseLong(scan.group(2)) / Long.parseLong(scan.group(1))).isLessThan(5_000);

        BatonProcess limited = baton("list", "--limit", "10");
        assertThat(limited.stdout()).contains("10 objects").contains("stopped at --limit 10: there are more");
    }

    @Test
    void unlockNeedsForceAndConfirmationThenRemovesEveryHoldAndTheHolderIsTold() throws Exception {
        Lease lock = baton.lock("stuck").acquire(LONG);
        Lease write = baton.readWriteLock("stuck").writeLock().acquire(LONG);

        BatonProcess noForce = baton("unlock", "stuck");
        assertThat(noForce.exitCode()).isEqualTo(2);
        assertThat(noForce.stderr()).isEqualTo("baton: unlock takes the lock away from whoever holds it: add --force"
                + System.lineSeparator());
        BatonProcess noTerminal = baton("unlock", "stuck", "--force");
        assertThat(noTerminal.exitCode()).isEqualTo(2);
        assertThat(noTerminal.stderr()).contains("add --yes");
        assertThat(noTerminal.stdout()).contains("held under 'stuck'").contains(Long.toString(lock.fencingToken()));
        assertThat(lock.isValid()).isTrue();
        assertThat(baton.inspect("stuck").isLocked()).isTrue();

        BatonProcess done = baton("unlock", "stuck", "--force", "--yes");
        assertThat(done.exitCode()).as(done.toString()).isZero();
        assertThat(done.stdout()).contains("removed the plain lock 'stuck'").contains("removed the read-write lock "
                + "'stuck'").contains("lost its lease");
        lock.lost().get(LONG.toSeconds(), TimeUnit.SECONDS);
        write.lost().get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertThat(baton.inspect("stuck").isLocked()).isFalse();

        BatonProcess again = baton("unlock", "stuck", "--force", "--yes", "--json");
        assertThat(again.exitCode()).isZero();
        assertThat(again.stdout()).isEqualTo("{\"name\":\"stuck\",\"namespace\":\"baton\",\"removed\":[]}"
                + System.lineSeparator());
    }

    @Test
    void unlockOfOneKindLeavesTheOthersAndSaysWhatItRemovedInJson() throws Exception {
        try (Lease lock = baton.lock("mixed").acquire(LONG)) {
            Lease permit = baton.semaphore("mixed", 2).acquire(1, LONG);
            BatonProcess p = baton("unlock", "mixed", "--force", "--yes", "--kind", "semaphore", "--json");
            assertThat(p.exitCode()).as(p.toString()).isZero();
            assertThat(p.stdout()).startsWith("{\"name\":\"mixed\",\"namespace\":\"baton\",\"removed\":[{\"kind\":"
                    + "\"semaphore\",\"instance\":\"" + baton.instanceId() + "\"")
                    .contains("\"fencingToken\":" + permit.fencingToken());
            permit.lost().get(LONG.toSeconds(), TimeUnit.SECONDS);
            assertThat(lock.isValid()).isTrue();
            assertThat(baton.inspect("mixed").isLocked()).isTrue();
        }
    }

    @Test
    void limiterInspectAndResetWorkWithoutTheLimitersConfiguration() {
        RateLimiter limiter = baton.rateLimiter("api",
                RateLimit.builder(5, Duration.ofHours(1)).algorithm(RateLimit.Algorithm.FIXED_WINDOW).build());
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire().allowed()).isTrue();
        }
        assertThat(limiter.tryAcquire().allowed()).as("a customer refused").isFalse();

        BatonProcess inspect = baton("limiter", "inspect", "api");
        assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
        assertThat(inspect.stdout()).containsPattern("0\\s+fixed-window\\s+5\\s+1h00m\\s+5\\s+0\\s");

        BatonProcess refused = baton("limiter", "reset", "api");
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(limiter.peek().allowed()).isFalse();

        BatonProcess reset = baton("limiter", "reset", "api", "--yes");
        assertThat(reset.exitCode()).as(reset.toString()).isZero();
        assertThat(reset.stdout()).contains("reset 1 limit of rate limiter 'api': every limit is full again");
        assertThat(limiter.tryAcquire().allowed()).isTrue();

        BatonProcess idle = baton("limiter", "reset", "idle", "--json");
        assertThat(idle.stdout()).isEqualTo("{\"name\":\"idle\",\"namespace\":\"baton\",\"limitsReset\":0}"
                + System.lineSeparator());
    }

    @Test
    void everyCommandHasHelp() {
        // The jar once, as an operator runs it; every other command's help in this JVM, through the same entry point
        // (picocli builds each page from the command's annotations: nothing there depends on the process).
        BatonProcess top = baton("--help");
        assertThat(top.exitCode()).as(top.toString()).isZero();
        assertThat(top.stdout()).startsWith("Usage: baton").contains("Exit codes:").contains(" 75  busy");
        for (List<String> command : List.<List<String>>of(List.of("inspect"), List.of("list"),
                List.of("unlock"), List.of("limiter"), List.of("limiter", "inspect"), List.of("limiter", "reset"),
                List.of("exec"), List.of("elect"), List.of("watch"))) {
            List<String> args = new java.util.ArrayList<>(command);
            args.add("--help");
            java.io.StringWriter out = new java.io.StringWriter();
            java.io.StringWriter err = new java.io.StringWriter();
            int status = BatonCli.run(args.toArray(String[]::new), new java.io.PrintWriter(out, true),
                    new java.io.PrintWriter(err, true));
            assertThat(status).as(command + ": " + err).isZero();
            assertThat(out.toString()).as(command.toString()).startsWith("Usage: baton " + String.join(" ", command));
        }
    }

    @Test
    void anUnreachableRedisIsExitStatus69WithinTheTimeout() {
        long start = System.nanoTime();
        BatonProcess p = BatonProcess.run(Map.of(), "inspect", "x", "--redis", "redis://127.0.0.1:1",
                "--timeout", "2s");
        assertThat(p.exitCode()).as(p.toString()).isEqualTo(69);
        assertThat(p.stderr()).startsWith("baton: Redis unavailable: ").hasLineCount(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    }
}
