package dev.baton.bench;

import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One contender alone in one lock-family workload for a while, on a redis-server of its own: a target for a
 * profiler (JFR, perf), which the family run, alternating contenders, cannot be. Prints the rate, the workload's
 * latency, Redis commands per operation and the CPU per operation of this JVM and of Redis.
 *
 * <pre>
 * java -XX:StartFlightRecording=filename=fair.jfr,settings=profile \
 *     -cp baton-bench/target/benchmarks.jar dev.baton.bench.FamilyLoad baton fair 20
 * </pre>
 *
 * Arguments: contender ({@code baton} or {@code redisson}), workload ({@code fair}, {@code rw} or {@code sem}),
 * seconds measured (after 3 s of warm-up).
 */
public final class FamilyLoad {
    private FamilyLoad() {
    }

    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: FamilyLoad baton|redisson fair|rw|sem SECONDS");
            System.exit(2);
        }
        FamilyWorkload workload = switch (args[1]) {
            case "fair" -> FamilyWorkload.FAIR;
            case "rw" -> FamilyWorkload.READ_WRITE;
            case "sem" -> FamilyWorkload.SEMAPHORE;
            default -> throw new IllegalArgumentException("workload must be fair, rw or sem, not " + args[1]);
        };
        Duration measure = Duration.ofSeconds(Long.parseLong(args[2]));
        try (RedisServer server = RedisServer.start(RedisBinary.locate(), List.of())) {
            FamilyRound round = workload.run(args[0], RedisTarget.of(server), "bench:load:" + args[1],
                    Duration.ofSeconds(3), measure, RedisAdmin.over(server));
            if (round.notBuilt != null) {
                System.out.println(args[0] + " " + workload.label + ": not built (" + round.notBuilt + ")");
            } else {
                Percentiles latency = switch (workload) {
                    case FAIR -> new Percentiles(round.handoff.handoffFromCallNanos,
                            round.handoff.handoffFromCallNanos.length);
                    case READ_WRITE -> Percentiles.pooled(List.of(round.latencies.get(ReadWriteScenario.WRITER_WAIT)));
                    case SEMAPHORE -> Percentiles.pooled(List.of(round.latencies.get(SemaphoreScenario.ACQUIRE)));
                };
                System.out.printf(Locale.ROOT, "%s %s: %,.0f %s, latency p50 %.1f µs, p99 %.1f µs, client CPU %.1f"
                                + " µs/op, Redis CPU %.1f µs/op, %.2f Redis cmds/op: %s; errors %d, violations %d%s%n",
                        args[0], workload.label, round.perSecond(), workload.rate, latency.micros(50),
                        latency.micros(99), round.clientCpuMicrosPerOp(), round.redisCpuMicrosPerOp(),
                        round.stats.perOp(round.opsForCommands), round.stats.breakdown(round.opsForCommands),
                        round.errorCount, round.exclusionViolations,
                        round.stuckThreads.isEmpty() ? "" : "; HUNG: " + round.stuckThreads);
            }
        }
        System.exit(0);
    }
}
