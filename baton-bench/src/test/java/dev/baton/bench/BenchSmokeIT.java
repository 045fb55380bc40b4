package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the benchmark harness honest without running the full benchmarks: the commandstats parser, a MONITOR trace,
 * one short round of scenario (c) with Baton (a few seconds), one short round of each lock-family workload for Baton
 * and Redisson (about 20 seconds), one short pass of the Redlock comparison on 5 servers of its own (about 30
 * seconds), the whole rate-limiter part with {@code --smoke} settings (its JMH benchmarks in this JVM, 100 ms
 * iterations: about 20 seconds), the charts drawn from those, one short round of each shape of {@code --compare}
 * with the module's jar as both builds (about 20 seconds), and two rounds of the count-down latch release for Baton
 * and Redisson (a few seconds).
 */
class BenchSmokeIT {
    private static RedisServer server;

    @BeforeAll
    static void start() {
        // JMH refuses to start while another JMH run holds /tmp/jmh.lock, so that two measurements never share the
        // machine. This test checks that the harness works, not figures: a benchmark run beside it must not fail it.
        System.setProperty("jmh.ignoreLock", "true");
        RedisBinary binary = RedisBinary.locate();
        server = RedisServer.start(binary, RateLimiterMemory.serverOptions(binary));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void parsesCommandStatsAndLeavesOutTheHarnessOwnCommands() {
        CommandStats stats = CommandStats.parse("""
                # Commandstats
                cmdstat_evalsha:calls=10,usec=50,usec_per_call=5.00,rejected_calls=0,failed_calls=0
                cmdstat_hset:calls=5,usec=5,usec_per_call=1.00,rejected_calls=0,failed_calls=0
                cmdstat_config|resetstat:calls=1,usec=9,usec_per_call=9.00,rejected_calls=0,failed_calls=0
                cmdstat_info:calls=2,usec=9,usec_per_call=4.50,rejected_calls=0,failed_calls=0
                """);

        assertThat(stats.calls()).containsOnlyKeys("evalsha", "hset");
        assertThat(stats.perOp(5)).isEqualTo(3.0);
        assertThat(stats.breakdown(5)).isEqualTo("evalsha 2.00 (5.0 µs each in Redis), hset 1.00");
        assertThat(CommandStats.decode(stats.encode()).calls()).isEqualTo(stats.calls());
    }

    @Test
    void monitorTraceSeparatesSentCommandsFromScriptWork() throws Exception {
        ProtocolTrace.Trace trace = ProtocolTrace.lockUnlock(Contender.BATON, server);

        assertThat(trace.sentPerOp()).isGreaterThanOrEqualTo(2.0);
        assertThat(trace.inScriptsPerOp()).isPositive();
    }

    @Test
    void handoffRoundCountsAcquisitionsHandoffsAndCommands() {
        HandoffScenario.Round round = HandoffScenario.run(Contender.BATON, server.uri(), RedisAdmin.over(server),
                Duration.ofMillis(300), Duration.ofSeconds(1));

        assertThat(round.stuckThreads).isEmpty();
        assertThat(round.errors).isEmpty();
        assertThat(round.exclusionViolations).isZero();
        assertThat(round.acquisitions).isPositive();
        assertThat(round.handoffs).isPositive();
        assertThat(round.stats.perOp(round.acquisitionsForCommands)).isGreaterThanOrEqualTo(2.0);
    }

    @Test
    void rateOnlyRunsNothingButTheRateLimitersAndSkipRateSkipsThem() {
        BenchMain.Settings rateOnly = BenchMain.Settings.parse(new String[] {"--rate-only", "--quick"});
        assertThat(rateOnly.anyLockPart()).isFalse();
        assertThat(rateOnly.rate).isTrue();
        assertThat(rateOnly.quick).isTrue();

        BenchMain.Settings smoke = BenchMain.Settings.parse(new String[] {"--rate-only", "--smoke"});
        assertThat(smoke.smoke).isTrue();
        assertThat(smoke.quick).isTrue();
        assertThat(rateOnly.smoke).isFalse();

        BenchMain.Settings skipRate = BenchMain.Settings.parse(new String[] {"--skip-rate"});
        assertThat(skipRate.anyLockPart()).isTrue();
        assertThat(skipRate.rate).isFalse();
    }

    @Test
    void rateLimiterPartProducesARowPerContenderAndScenario(@TempDir Path dir) {
        BenchMain.Settings settings = BenchMain.Settings.parse(
                new String[] {"--rate-only", "--smoke", "--out", dir.resolve("report.md").toString()});
        Report report = new Report(settings);

        RateLimiterRun.run(settings, server, report, dir);

        assertThat(report.anomalies).isEmpty();
        for (String scenario : new String[] {Report.R1, Report.R2}) {
            Map<String, Report.JmhRow> rows = report.rateRows(scenario);
            assertThat(rows).as(scenario).containsOnlyKeys(RateLimiterContender.LIMITERS);
            rows.forEach((contender, row) -> {
                assertThat(row.opsMedian).as(scenario + " " + contender + " decisions/s").isPositive();
                assertThat(row.p50).as(scenario + " " + contender + " p50").isPositive();
                assertThat(row.stats).as(scenario + " " + contender + " commandstats").isNotNull();
                // Baton repeats a known refusal without Redis, so it may send less than one command per decision.
                assertThat(row.stats.perOp(row.ops)).as(scenario + " " + contender + " cmds/decision").isPositive();
            });
        }
        // r1: one limiter of 1,000/s grants at most its burst plus the refill of the ~0.1 s measured; r2 asks each of
        // its limiters (1,000 with --smoke) far less than their 100/s
        long r1Limit = 4 * RateLimiterContender.Rate.ONE_KEY.permits();
        report.rateRows(Report.R1).forEach((contender, row) ->
                assertThat(row.acquired).as("r1 grants of " + contender).isPositive().isLessThan(r1Limit));
        assertThat((double) report.rateRows(Report.R2).get(RateLimiterContender.BATON).acquired
                / report.rateRows(Report.R2).get(RateLimiterContender.BATON).ops).isGreaterThan(0.99);

        assertThat(report.rateCrossCheck).containsOnlyKeys(Report.R1, Report.R2);
        report.rateCrossCheck.forEach((scenario, slices) -> {
            assertThat(slices).as(scenario).containsOnlyKeys(RateLimiterContender.LIMITERS);
            slices.forEach((contender, perSlice) -> {
                assertThat(RateLimiterCrossCheck.median(perSlice.decisionsPerSecond()))
                        .as(scenario + " " + contender + " interleaved decisions/s").isPositive();
                assertThat(RateLimiterCrossCheck.median(perSlice.clientCpuMicros()))
                        .as(scenario + " " + contender + " client CPU per decision").isPositive();
                assertThat(RateLimiterCrossCheck.median(perSlice.redisCpuMicros()))
                        .as(scenario + " " + contender + " Redis CPU per decision").isNotNegative();
            });
        });

        assertThat(report.rateTraces).hasSize(2 * RateLimiterContender.LIMITERS.size());
        assertThat(report.rateMemory).extracting(RateLimiterMemory.Result::contender)
                .containsExactlyElementsOf(RateLimiterRun.MEMORY_CONTENDERS);
        RateLimiterMemory.Result baton = report.rateMemory.get(0);
        assertThat(baton.expiryPaused()).isTrue();
        assertThat(baton.freshKeysPerLimiter()).isEqualTo(1.0);
        assertThat(baton.idleKeysPerLimiter()).isZero();

        String markdown = report.markdown();
        assertThat(markdown).contains("## Rate limiters", "### Baton / faster peer", "### Interleaved cross-check",
                        "### Redis memory per limiter", "[rate-limiter](charts/rate-limiter.svg)")
                .doesNotContain("### Targets");
        Map<String, BarChart> charts = report.charts();
        assertThat(charts).containsOnlyKeys("rate-limiter");
        assertThat(charts.get("rate-limiter").panels()).hasSize(4).allSatisfy(panel ->
                assertThat(panel.bars()).extracting(BarChart.Bar::label)
                        .containsExactlyElementsOf(RateLimiterContender.LIMITERS));
        assertThat(charts.get("rate-limiter").svg()).contains("--rate-only --smoke", "(--quick: smoke-test");
    }

    @Test
    void familyOptionsAddTheLockFamilyOrRunItAlone() {
        BenchMain.Settings only = BenchMain.Settings.parse(new String[] {"--family-only"});
        assertThat(only.family).isTrue();
        assertThat(only.anyLockPart()).isFalse();
        assertThat(only.rate).isFalse();
        assertThat(only.out.getFileName().toString()).isEqualTo("family-results.md");

        BenchMain.Settings added = BenchMain.Settings.parse(new String[] {"--family", "--skip-trace"});
        assertThat(added.family).isTrue();
        assertThat(added.anyLockPart()).isTrue();
        assertThat(added.familyPlan().traced()).isFalse();
    }

    @Test
    void familyRunMeasuresEveryWorkloadForBatonAndRedisson(@TempDir Path dir) {
        FamilyRun.Result result = FamilyRun.run(server, new FamilyRun.Plan(1, Duration.ofMillis(200),
                Duration.ofMillis(500), Duration.ofMillis(200), Duration.ofMillis(300)));

        assertThat(result.anomalies).isEmpty();
        assertThat(result.pingSamples).isNotEmpty();
        for (FamilyWorkload workload : FamilyWorkload.values()) {
            for (String contender : FamilyContender.KINDS) {
                String what = workload.label + ", " + contender;
                // every Baton primitive of the family is built now: a "not built" row is a failure
                assertThat(result.notBuilt(workload, contender)).as(what + " not built").isNull();
                List<FamilyRound> rounds = result.measured(workload, contender);
                assertThat(rounds).as(what).hasSize(1);
                FamilyRound round = rounds.get(0);
                assertThat(round.errors).as(what + " errors").isEmpty();
                assertThat(round.exclusionViolations).as(what + " exclusion violations").isZero();
                assertThat(round.opsForCommands).as(what + " operations").isPositive();
                assertThat(round.stats.perOp(round.opsForCommands)).as(what + " commands/op").isGreaterThan(1.0);
                assertThat(result.traces.get(workload).get(contender).sentPerOp()).as(what + " round trips/op")
                        .isGreaterThanOrEqualTo(1.0);
                switch (workload) {
                    case FAIR -> assertThat(round.handoff.handoffFromCallNanos).as(what + " handoffs").isNotEmpty();
                    case READ_WRITE -> assertThat(round.latencies.get(ReadWriteScenario.WRITER_WAIT))
                            .as(what + " writer's waits").isNotEmpty();
                    case SEMAPHORE -> assertThat(round.maxInside).as(what + " most holders at once")
                            .isBetween(1, SemaphoreScenario.PERMITS);
                }
            }
        }
        Report report = new Report(BenchMain.Settings.parse(
                new String[] {"--family-only", "--quick", "--out", dir.resolve("f.md").toString()}));
        report.family = result;
        assertThat(report.markdown()).contains("## Lock family", "### Goals", "### (f) fair lock in detail",
                "### Round trips per operation under contention (MONITOR)", "| (s) semaphore");
        Map<String, BarChart> charts = report.charts();
        assertThat(charts).containsOnlyKeys("fair-lock", "read-write-lock", "semaphore");
        charts.forEach((name, chart) -> assertThat(chart.panels()).as(name).hasSize(2).allSatisfy(panel ->
                assertThat(panel.bars()).extracting(BarChart.Bar::label).containsAll(FamilyContender.KINDS)));
    }

    @Test
    void compareRunsEveryShapeOfBothBuildsInTheirOwnClassLoaders() throws Exception {
        // failsafe runs after the package phase: the module's own jar stands in for both builds
        Path jar = Path.of("target", "benchmarks.jar");
        assertThat(jar).exists();

        String markdown = CoreComparison.run(jar, jar, new CoreComparison.Plan(1, Duration.ofMillis(200),
                Duration.ofMillis(400), CoreShape.SHAPES));

        assertThat(markdown).contains("## Baton before and after", "### Anomalies\n\nNone.")
                .doesNotContain("failed", "incomplete");
        for (String shape : CoreShape.SHAPES) {
            assertThat(markdown).contains("| " + CoreComparison.label(shape) + " | ");
        }
    }

    @Test
    void topologiesRunsNothingElse() {
        BenchMain.Settings topologies = BenchMain.Settings.parse(new String[] {"--topologies", "--quick"});

        assertThat(topologies.topologies).isTrue();
        assertThat(topologies.anyLockPart()).isFalse();
        assertThat(topologies.rate).isFalse();
    }

    @Test
    void redlockRunsNothingElse() {
        BenchMain.Settings redlock = BenchMain.Settings.parse(new String[] {"--redlock", "--quick"});

        assertThat(redlock.redlock).isTrue();
        assertThat(redlock.anyLockPart()).isFalse();
        assertThat(redlock.rate).isFalse();
        assertThat(redlock.family).isFalse();
        assertThat(redlock.out.getFileName().toString()).isEqualTo("redlock-results.md");
    }

    @Test
    void redlockComparisonMeasuresEveryContender(@TempDir Path dir) throws Exception {
        RedlockComparison.Result result = RedlockComparison.run(RedisBinary.locate(), new RedlockComparison.Plan(1,
                Duration.ofMillis(100), Duration.ofMillis(200), 1, Duration.ofMillis(100), Duration.ofMillis(400), 1));

        assertThat(result.anomalies).isEmpty();
        List<String> uncontended = new java.util.ArrayList<>(RedlockComparison.LOCKS);
        uncontended.addAll(RedlockComparison.FLOORS);
        assertThat(result.uncontended).containsOnlyKeys(uncontended);
        result.uncontended.forEach((contender, slices) -> {
            assertThat(slices.medianOps()).as(contender + " ops/s").isPositive();
            assertThat(slices.latencies).as(contender + " latencies").hasSize(1);
            // a lock+unlock reaches every master at least once (scripts, or a ping floor's PINGs)
            assertThat(slices.stats.perOp(slices.ops)).as(contender + " commands/op")
                    .isGreaterThanOrEqualTo(RedlockComparison.masters(contender));
        });
        assertThat(result.contended).containsOnlyKeys(RedlockComparison.LOCKS);
        result.contended.forEach((contender, rounds) -> {
            assertThat(rounds).as(contender).hasSize(1);
            HandoffScenario.Round round = rounds.get(0);
            assertThat(round.errors).as(contender + " errors").isEmpty();
            assertThat(round.stuckThreads).as(contender + " stuck").isEmpty();
            assertThat(round.exclusionViolations).as(contender + " exclusion violations").isZero();
            assertThat(round.acquisitions).as(contender + " acquisitions").isPositive();
        });
        assertThat(result.first).hasSize(RedlockComparison.LOCKS.size() + 2);

        Report report = new Report(BenchMain.Settings.parse(
                new String[] {"--redlock", "--quick", "--out", dir.resolve("r.md").toString()}));
        report.redlock = result;
        assertThat(report.markdown()).contains("## Redlock", "| baton-redlock-3 | 3 |", "| redisson-redlock-5 | 5 |",
                "### Goal: Baton's Redlock over 3 masters", "| ping-floor-5 | 5 |", "### A fresh client's first");
    }

    @Test
    void latchReleaseMeasuresEveryWaiterOfBothSides() throws Exception {
        LatchRelease.Plan plan = new LatchRelease.Plan(2, 1, 8, 2, Duration.ofMillis(100),
                LatchRelease.SIDES);

        LatchRelease.Result result = LatchRelease.run(server, plan);

        assertThat(result.sides()).containsOnlyKeys(LatchRelease.SIDES);
        result.sides().forEach((side, figures) -> {
            assertThat(figures.failures).as(side + " failures: " + figures.firstFailure).isZero();
            assertThat(figures.rounds).as(side + " rounds").isEqualTo(2);
            assertThat(figures.perWaiter().count()).as(side + " releases").isEqualTo(16);
            assertThat(figures.allReleased().nanos(50)).as(side + " all released").isPositive();
            // a round sets, counts down and awaits: a few commands at least
            assertThat(figures.commands.perOp(figures.rounds)).as(side + " commands/round").isGreaterThan(2.0);
        });
        assertThat(LatchRelease.markdown(result, plan, "cmd", "0", "0"))
                .contains("| baton | 2 |", "| redisson | 2 |", "`cmd`");
    }

    @Test
    void concurrentCrossCheckMeasuresBatonAndBothFloorsAtBothShapes() throws Exception {
        Map<String, Map<String, ConcurrentCrossCheck.Slices>> check = ConcurrentCrossCheck.run(server.uri(),
                List.of(server.pid()), ConcurrentCrossCheck.CONTENDERS, 1, Duration.ofMillis(200),
                Duration.ofMillis(300));

        assertThat(check).hasSize(ConcurrentCrossCheck.Shape.values().length);
        check.forEach((shape, byContender) -> {
            assertThat(byContender).as(shape).containsOnlyKeys(ConcurrentCrossCheck.CONTENDERS);
            byContender.forEach((contender, slices) -> {
                assertThat(slices.medianOps()).as(shape + " " + contender + " ops/s").isPositive();
                assertThat(RateLimiterCrossCheck.median(slices.redisCpuMicros()))
                        .as(shape + " " + contender + " Redis CPU per op").isNotNegative();
            });
        });
    }

    @Test
    void topologyComparisonRunsBatonAndRedissonOnEveryTopology(@TempDir Path dir) throws Exception {
        TopologyComparison.Result result = TopologyComparison.run(RedisBinary.locate(), 1, Duration.ofMillis(200),
                Duration.ofMillis(300));

        assertThat(result.slices).containsOnlyKeys(TopologyComparison.Workload.values());
        result.slices.forEach((workload, byTopology) -> {
            assertThat(byTopology).as(workload.label)
                    .containsOnlyKeys(RedisTarget.STANDALONE, RedisTarget.SENTINEL, RedisTarget.CLUSTER);
            byTopology.forEach((topology, byContender) -> {
                assertThat(byContender).as(workload.label + " on " + topology)
                        .containsOnlyKeys(TopologyComparison.contenders(workload, topology));
                byContender.forEach((contender, slices) -> assertThat(slices.medianOps())
                        .as(workload.label + ", " + contender + " on " + topology).isPositive());
            });
        });
        Report report = new Report(BenchMain.Settings.parse(
                new String[] {"--topologies", "--quick", "--out", dir.resolve("t.md").toString()}));
        report.topologies = result;
        assertThat(result.slices.get(TopologyComparison.Workload.LOCK_1).get(RedisTarget.SENTINEL))
                .containsKey(Contender.BATON_ACKED);
        assertThat(report.markdown()).contains("## Topologies", "| sentinel | baton |", "| cluster | redisson |",
                "| sentinel | baton-acked |", "Replica acknowledgement behind Sentinel");
    }
}
