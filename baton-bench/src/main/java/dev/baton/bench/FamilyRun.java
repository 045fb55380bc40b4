package dev.baton.bench;

import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The lock-family benchmarks ({@code --family}, {@code --family-only}): Baton against Redisson on one redis-server,
 * in one JVM, for each {@link FamilyWorkload}:
 * <ol>
 *   <li>{@link Plan#rounds} measured rounds per contender, Baton and Redisson alternating (who goes first rotates
 *       from round to round), each on fresh clients and a fresh name, after its own warm-up; before every fair-lock
 *       round, one idle PING round trip is timed ({@link PingProbe}), the yardstick of the handoff goal;</li>
 *   <li>then, per contender, one more round with {@code MONITOR} on ({@link MonitorTap}) instead of commandstats:
 *       the commands clients sent per operation (round trips) against those scripts ran, under the same
 *       contention. Its speed is not reported (MONITOR slows Redis down).</li>
 * </ol>
 * A Baton primitive that is not built yet ({@link UnsupportedOperationException}) is reported as such, once, and
 * its remaining rounds are skipped.
 */
final class FamilyRun {

    /** How long and how often. */
    record Plan(int rounds, Duration warmup, Duration measure, Duration pingMeasure, Duration traceSpan) {
        /** Whether the MONITOR rounds run. */
        boolean traced() {
            return traceSpan != null;
        }
    }

    /** Commands per operation of one contended MONITOR round. */
    record Trace(long ops, Map<String, Long> sent, Map<String, Long> inScripts) {
        double sentPerOp() {
            return perOp(sent);
        }

        double inScriptsPerOp() {
            return perOp(inScripts);
        }

        String sentBreakdown() {
            return breakdown(sent);
        }

        String inScriptsBreakdown() {
            return breakdown(inScripts);
        }

        private double perOp(Map<String, Long> calls) {
            return ops == 0 ? Double.NaN : calls.values().stream().mapToLong(Long::longValue).sum() / (double) ops;
        }

        private String breakdown(Map<String, Long> calls) {
            return calls.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .filter(e -> ops > 0 && e.getValue() / (double) ops >= 0.005)
                    .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%.2f", e.getValue() / (double) ops))
                    .collect(Collectors.joining(", "));
        }
    }

    /** Everything the family run measured. */
    static final class Result {
        final Plan plan;
        final Map<FamilyWorkload, List<FamilyRound>> rounds = new EnumMap<>(FamilyWorkload.class);
        final List<long[]> pingSamples = new ArrayList<>();
        /** Workload, then contender, then its MONITOR round. */
        final Map<FamilyWorkload, Map<String, Trace>> traces = new EnumMap<>(FamilyWorkload.class);
        final List<String> anomalies = new ArrayList<>();

        Result(Plan plan) {
            this.plan = plan;
        }

        /** The measured rounds of one contender in one workload (not built, hung or failed rounds left out). */
        List<FamilyRound> measured(FamilyWorkload workload, String contender) {
            return rounds.getOrDefault(workload, List.of()).stream()
                    .filter(r -> r.contender.equals(contender) && r.measured()).toList();
        }

        /** Why the contender did not run this workload, or null if it did. */
        String notBuilt(FamilyWorkload workload, String contender) {
            return rounds.getOrDefault(workload, List.of()).stream()
                    .filter(r -> r.contender.equals(contender) && r.notBuilt != null)
                    .map(r -> r.notBuilt).findFirst().orElse(null);
        }
    }

    private FamilyRun() {
    }

    static Result run(RedisServer server, Plan plan) {
        Result result = new Result(plan);
        RedisTarget target = RedisTarget.of(server);
        RedisAdmin admin = RedisAdmin.over(server);
        for (FamilyWorkload workload : FamilyWorkload.values()) {
            List<FamilyRound> rounds = new ArrayList<>();
            result.rounds.put(workload, rounds);
            Set<String> skipped = new TreeSet<>();
            for (int r = 0; r < plan.rounds(); r++) {
                for (int k = 0; k < FamilyContender.KINDS.size(); k++) {
                    String kind = FamilyContender.KINDS.get((r + k) % FamilyContender.KINDS.size());
                    if (skipped.contains(kind)) {
                        continue;
                    }
                    if (workload == FamilyWorkload.FAIR) {
                        result.pingSamples.add(PingProbe.measure(server.uri(), Duration.ofMillis(300),
                                plan.pingMeasure()));
                    }
                    BenchMain.log(workload.label + ", " + kind + ", round " + (r + 1) + " of " + plan.rounds());
                    FamilyRound round = runRound(result, workload, kind, target, name(workload, kind, "r" + r),
                            plan.warmup(), plan.measure(), admin);
                    if (round == null) {
                        continue;
                    }
                    rounds.add(round);
                    if (round.notBuilt != null) {
                        BenchMain.log("  not built: " + round.notBuilt);
                        skipped.add(kind);
                    } else {
                        BenchMain.log(String.format(Locale.ROOT, "  %,.0f %s", round.perSecond(), workload.rate));
                    }
                }
            }
            if (plan.traced()) {
                Map<String, Trace> traces = new LinkedHashMap<>();
                result.traces.put(workload, traces);
                for (String kind : FamilyContender.KINDS) {
                    if (skipped.contains(kind)) {
                        continue;
                    }
                    BenchMain.log(workload.label + ", " + kind + ": MONITOR round");
                    try (MonitorTap tap = MonitorTap.open(server)) {
                        FamilyRound round = runRound(result, workload, kind, target, name(workload, kind, "trace"),
                                Duration.ofMillis(300), plan.traceSpan(), tap);
                        if (round != null && round.measured()) {
                            traces.put(kind, new Trace(round.opsForCommands, tap.sent(), tap.inScripts()));
                        }
                    } catch (RuntimeException e) {
                        result.anomalies.add(workload.label + ", " + kind + ": MONITOR round failed:\n"
                                + HandoffScenario.stackTrace(e));
                    }
                }
            }
        }
        return result;
    }

    /** One round, or null (and an anomaly) if it threw. */
    private static FamilyRound runRound(Result result, FamilyWorkload workload, String kind, RedisTarget target,
                                        String name, Duration warmup, Duration measure, RedisAdmin admin) {
        try {
            return workload.run(kind, target, name, warmup, measure, admin);
        } catch (Exception | Error e) {
            result.anomalies.add(workload.label + ", " + kind + " failed:\n" + HandoffScenario.stackTrace(e));
            return null;
        }
    }

    private static String name(FamilyWorkload workload, String kind, String round) {
        return "bench:family:" + workload.name().toLowerCase(Locale.ROOT) + ":" + kind + ":" + round;
    }
}
