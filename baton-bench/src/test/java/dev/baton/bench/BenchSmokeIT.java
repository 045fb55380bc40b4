package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the benchmark harness honest without running the benchmarks: the commandstats parser, a MONITOR trace and
 * one short round of scenario (c) with Baton (a few seconds in all).
 */
class BenchSmokeIT {
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
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
}
