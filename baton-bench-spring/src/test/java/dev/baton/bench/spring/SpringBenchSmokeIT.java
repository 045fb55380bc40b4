package dev.baton.bench.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.test.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the Spring benchmarks honest without measuring anything: every contender of both benchmarks is called in
 * this JVM ({@code --smoke}: one Spring Boot application for all, seconds) and must produce a figure, which it only
 * does when each of its calls ran the work and reached Redis; one contender runs one very short real JMH fork, which
 * proves the path every contender takes in a measurement (its own JVM and application, the settings it is handed, the
 * costs it writes back) without paying a fork and an application start per contender (two minutes for twelve); the
 * check behind the figures refuses skipped or unguarded calls; and one kill and one pause of a leader of
 * {@link ElectionBench} for Baton and Spring's initiator, with two candidate JVMs each (under a minute on a loaded
 * machine). No timing is asserted.
 */
class SpringBenchSmokeIT {
    private static RedisServer server;

    @BeforeAll
    static void start() {
        // JMH refuses to start while another JMH run holds /tmp/jmh.lock, so that two measurements never share the
        // machine. This test checks that the harness works, not figures: a benchmark run beside it must not fail it.
        System.setProperty("jmh.ignoreLock", "true");
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void everyContenderOfBothBenchmarksProducesAResult(@TempDir Path dir) {
        SpringBenchMain.Settings settings = SpringBenchMain.Settings.parse(
                new String[] {"--smoke", "--out", dir.resolve("report.md").toString()});

        SpringBenchReport report = SpringBenchMain.run(settings, server);

        assertThat(report.anomalies()).isEmpty();
        assertEveryContenderMeasured(report, SpringBenchRun.LOCKS, LockAnnotationBenchmark.CONTENDERS);
        assertEveryContenderMeasured(report, SpringBenchRun.RATE_LIMITS, RateLimitAnnotationBenchmark.CONTENDERS);
        for (SpringBenchReport.Comparison comparison : SpringBenchReport.COMPARISONS) {
            assertThat(report.ratios(comparison)).as(comparison.label()).singleElement()
                    .satisfies(ratio -> assertThat(ratio).isPositive());
        }
        assertThat(report.markdown()).contains("### Locks", "### Rate limiters", "### Comparisons",
                "| baton-annotated |", "| shedlock |", "| bucket4j-starter |").doesNotContain("failed", "Anomalies");
    }

    @Test
    void aForkedTrialProducesAResult() {
        // the starter's annotation in a JMH fork of its own, as every contender runs in a measurement
        SpringBenchRun.Result result = SpringBenchRun.forkOne(server.uri(), SpringBenchRun.Plan.QUICK,
                SpringBenchRun.LOCKS, LockAnnotationBenchmark.BATON_ANNOTATED);

        assertThat(result.anomalies).isEmpty();
        SpringBenchReport report = new SpringBenchReport(result, Map.of());
        assertThat(report.of(SpringBenchRun.LOCKS, LockAnnotationBenchmark.BATON_ANNOTATED)).singleElement()
                .satisfies(m -> assertThat(m.round()).isZero());
        assertEveryContenderMeasured(report, SpringBenchRun.LOCKS, List.of(LockAnnotationBenchmark.BATON_ANNOTATED));
    }

    private static void assertEveryContenderMeasured(SpringBenchReport report, String benchmark,
                                                     List<String> contenders) {
        for (String contender : contenders) {
            String what = benchmark + ", " + contender;
            assertThat(report.of(benchmark, contender)).as(what).singleElement().satisfies(m -> {
                assertThat(m.callsPerSecond()).as(what + " calls/s").isPositive();
                assertThat(m.p50Micros()).as(what + " p50").isPositive();
                assertThat(m.calls()).as(what + " sampled calls").isPositive();
                assertThat(m.costs()).as(what + " costs").isNotNull();
                assertThat(m.costs().commands()).as(what + " Redis commands per call").isGreaterThanOrEqualTo(1.0);
                assertThat(m.costs().clientCpuMicros()).as(what + " client CPU per call").isPositive();
                assertThat(m.costs().redisCpuMicros()).as(what + " Redis CPU per call").isNotNegative();
            });
        }
    }

    @Test
    void trialCheckRefusesSkippedWorkAndCallsThatNeverReachedRedis(@TempDir Path dir) throws Exception {
        WorkCounter work = new WorkCounter();
        try (TrialCheck skipped = new TrialCheck(work, "skipping", server.uri())) {
            skipped.called();
            skipped.called();
            work.run();
            assertThatThrownBy(() -> skipped.verify("locks", null)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("skipping: 2 calls but the work ran 1 times");
        }
        try (TrialCheck unguarded = new TrialCheck(work, "unguarded", server.uri())) {
            unguarded.called();
            work.run();
            assertThatThrownBy(() -> unguarded.verify("locks", null)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("unguarded: 1 calls sent Redis 0 commands");
        }
        Path stats = dir.resolve("stats.tsv");
        try (TrialCheck guarded = new TrialCheck(work, "guarded", server.uri())) {
            guarded.called();
            work.run();
            server.command("SET", "smoke:key", "1");
            guarded.verify("locks", stats);
        }
        assertThat(Files.readString(stats)).startsWith("locks\tguarded\t1.000\tset 1.00\t").endsWith("\n")
                .satisfies(line -> assertThat(line.split("\t")).hasSize(6));
    }

    @Test
    void electionBenchKillsAndPausesTheLeadersOfBatonAndSpring() throws Exception {
        // two candidates and a 1 s lease: seconds per contender, mostly the candidates' JVMs starting
        ElectionBench.Plan plan = new ElectionBench.Plan(List.of(ElectionBench.BATON, ElectionBench.SPRING_SPIN), 2,
                1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofMillis(500),
                Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(200));

        List<ElectionBench.Row> rows = ElectionBench.run(server, plan);

        assertThat(rows).extracting(r -> r.contender).containsExactly(ElectionBench.BATON, ElectionBench.SPRING_SPIN);
        for (ElectionBench.Row row : rows) {
            assertThat(row.anomalies).as(row.contender + " anomalies").isEmpty();
            assertThat(row.failovers).as(row.contender + " failovers").singleElement()
                    .satisfies(nanos -> assertThat(nanos).isPositive());
            assertThat(row.idleCommandsPerSecond).as(row.contender + " idle commands/s").isPositive();
            assertThat(row.pauses).as(row.contender + " pauses").singleElement().satisfies(pause -> {
                assertThat(pause.replacedAfter()).as(row.contender + " successor elected").isPositive();
                assertThat(pause.successorWrote()).as(row.contender + " successor wrote").isTrue();
            });
        }
        // the initiator's old leader acts until its next heartbeat finds the lock taken, and has no epoch to be
        // refused by: the resource takes its writes, which proves the writers and the resource at work
        assertThat(rows.get(1).pauses.get(0).oldAccepted()).as("spring's old leader's accepted writes").isPositive();
        assertThat(ElectionBench.markdown(rows, Map.of("Settings", plan.describe())))
                .contains("| baton | 1 |", "| spring-spin | 1 |", "lease 1000 ms").doesNotContain("Anomalies");
    }

    @Test
    void settingsAndRotation() {
        SpringBenchMain.Settings settings = SpringBenchMain.Settings.parse(new String[] {"--rounds", "5"});
        assertThat(settings.plan().rounds()).isEqualTo(5);
        assertThat(settings.plan().measurementIterations())
                .isEqualTo(SpringBenchRun.Plan.FULL.measurementIterations());
        assertThat(settings.smoke()).isFalse();
        assertThat(SpringBenchMain.Settings.parse(new String[] {"--smoke"}).smoke()).isTrue();
        assertThatThrownBy(() -> SpringBenchMain.Settings.parse(new String[] {"--nope"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--nope");

        assertThat(SpringBenchRun.rotated(List.of("a", "b", "c"), 1)).containsExactly("b", "c", "a");
        assertThat(SpringBenchReport.median(List.of(3.0, 1.0, 2.0, 10.0))).isEqualTo(2.5);
    }
}
