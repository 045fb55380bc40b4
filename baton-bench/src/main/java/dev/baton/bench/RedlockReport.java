package dev.baton.bench;

import static dev.baton.bench.Report.escape;
import static dev.baton.bench.Report.met;
import static dev.baton.bench.Report.num;
import static dev.baton.bench.Report.ops;
import static dev.baton.bench.Report.us;

import dev.baton.internal.redlock.RedlockStatistics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Renders the Redlock section of the report from a {@link RedlockComparison.Result}. */
final class RedlockReport {
    /** Goal: Baton's Redlock over 3 masters within this many times the single-node lock's latency (p50). */
    static final double LATENCY_GOAL = 1.5;
    private static final Set<String> SCRIPTS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro");

    private final RedlockComparison.Result result;

    private RedlockReport(RedlockComparison.Result result) {
        this.result = result;
    }

    static void append(StringBuilder md, RedlockComparison.Result result) {
        new RedlockReport(result).append(md);
    }

    private void append(StringBuilder md) {
        RedlockComparison.Plan plan = result.plan;
        md.append("## Redlock: Baton over 3 and 5 masters, the single-node lock, Redisson's RedissonRedLock\n\n");
        md.append("- ").append(RedlockComparison.MASTERS).append(" independent redis-servers (")
                .append(result.redisVersion).append("); a contender over n masters uses the first n, the"
                        + " single-node ones the first\n");
        md.append(String.format(Locale.ROOT, "- Uncontended: %d slice(s) of %.1f s per contender, all contenders"
                        + " alternating (rotating who goes first), after %.1f s of warm-up each; every operation"
                        + " timed%n", plan.slices(), plan.slice().toMillis() / 1000.0,
                plan.warmup().toMillis() / 1000.0));
        md.append(String.format(Locale.ROOT, "- Contended: %d round(s) of %.1f s per contender, 4 clients x 2 threads"
                        + " on one name, contenders alternating, each round on fresh clients after %.1f s of"
                        + " warm-up%n", plan.rounds(), plan.roundMeasure().toMillis() / 1000.0,
                plan.roundWarmup().toMillis() / 1000.0));
        if (!result.idleCpuNanosPerSecond.isEmpty()) {
            md.append("- Idle CPU of each master with the uncontended clients connected (subtracted): ")
                    .append(String.join(", ", result.idleCpuNanosPerSecond.stream()
                            .map(v -> String.format(Locale.ROOT, "%.2f%%", v / 1e7)).toList()))
                    .append(" of a core\n");
        }
        md.append('\n');
        appendUncontended(md);
        appendGoal(md);
        appendContended(md);
        appendRounds(md);
        appendFirst(md);
        appendAnomalies(md);
    }

    /** Every contender's lock+unlock ops/s on one thread, then the lock contenders' acquisitions/s under contention. */
    static BarChart chart(RedlockComparison.Result result) {
        return new BarChart("Redlock: Baton over 3 and 5 masters, the single-node lock, RedissonRedLock")
                .panel(RedlockComparison.UNCONTENDED + ": ops/s (median)",
                        Report.bars(result.uncontended, RedlockComparison.Slices::medianOps))
                .panel(RedlockComparison.CONTENDED + ": acquisitions/s (median of rounds)",
                        Report.bars(result.contended, rounds -> RateLimiterCrossCheck.median(
                                rounds.stream().map(HandoffScenario.Round::perSecond).toList())));
    }

    private void appendUncontended(StringBuilder md) {
        if (result.uncontended.isEmpty()) {
            return;
        }
        md.append("### ").append(RedlockComparison.UNCONTENDED).append("\n\n");
        md.append("| Contender | masters | ops/s (median) | ops/s min–max | p50 µs | p99 µs | p50 / same library"
                + " on 1 node | client CPU µs/op | Redis CPU µs/op, all masters | Redis cmds/op, all masters"
                + " | scripts sent/op | commands per op (commandstats, all masters, incl. those run in scripts) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<String, RedlockComparison.Slices> e : result.uncontended.entrySet()) {
            String kind = e.getKey();
            RedlockComparison.Slices r = e.getValue();
            Percentiles p = Percentiles.pooled(r.latencies);
            RedlockComparison.Slices base = result.uncontended.get(singleNode(kind));
            String ratio = base == null || base == r ? ""
                    : String.format(Locale.ROOT, "%.2fx", p.micros(50) / Percentiles.pooled(base.latencies).micros(50));
            md.append("| ").append(kind).append(" | ").append(RedlockComparison.masters(kind)).append(" | ")
                    .append(ops(r.medianOps())).append(" | ").append(ops(min(r.opsPerSecond))).append("–")
                    .append(ops(max(r.opsPerSecond))).append(" | ").append(us(p.micros(50))).append(" | ")
                    .append(us(p.micros(99))).append(" | ").append(ratio).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f", RateLimiterCrossCheck.median(r.clientCpuMicros)))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f", RateLimiterCrossCheck.median(r.redisCpuMicros)))
                    .append(" | ").append(num(r.stats.perOp(r.ops))).append(" | ").append(num(scriptsPerOp(r)))
                    .append(" | ").append(escape(r.stats.breakdown(r.ops))).append(" |\n");
        }
        md.append("\nops/s: median of the slices; p50/p99: every lock()+unlock() of every slice, pooled. CPU: this"
                + " JVM (all threads) and the contender's redis-server processes (user + system, /proc, less their"
                + " idle use), median of the slices. Commands: `CONFIG RESETSTAT` on every master before each slice,"
                + " `INFO commandstats` on the contender's masters after it, summed over the slices. Scripts"
                + " sent: EVAL/EVALSHA calls per operation over all masters, i.e. script round trips counted once"
                + " per master. The ping floors send one PING to each master at once for \"lock\" and for"
                + " \"unlock\" and go on at a majority of answers.\n\n");
    }

    /** The single-node contender of the same library: the reference of the "p50 / 1 node" column. */
    private static String singleNode(String kind) {
        if (kind.startsWith("ping")) {
            return RedlockComparison.PING_1;
        }
        return kind.startsWith("redisson") ? RedlockComparison.REDISSON : RedlockComparison.BATON;
    }

    private static double scriptsPerOp(RedlockComparison.Slices r) {
        long scripts = r.stats.calls().entrySet().stream().filter(e -> SCRIPTS.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        return r.ops == 0 ? Double.NaN : (double) scripts / r.ops;
    }

    private void appendGoal(StringBuilder md) {
        RedlockComparison.Slices single = result.uncontended.get(RedlockComparison.BATON);
        RedlockComparison.Slices three = result.uncontended.get(RedlockComparison.BATON_3);
        RedlockComparison.Slices five = result.uncontended.get(RedlockComparison.BATON_5);
        if (single == null || three == null || single.latencies.isEmpty()) {
            return;
        }
        md.append("### Goal: Baton's Redlock over 3 masters within ").append(LATENCY_GOAL)
                .append("x the single-node lock's latency\n\n");
        md.append("| Measure | baton-redlock-3 / baton | baton-redlock-5 / baton |\n|---|---:|---:|\n");
        md.append("| lock+unlock p50, pooled | ").append(ratio(p50(three), p50(single))).append(" | ")
                .append(five == null ? "" : ratio(p50(five), p50(single))).append(" |\n");
        md.append("| lock+unlock p50, median of the per-slice ratios | ").append(sliceRatios(three, single))
                .append(" | ").append(five == null ? "" : sliceRatios(five, single)).append(" |\n");
        md.append("| mean latency (1 / median ops/s) | ").append(ratio(single.medianOps(), three.medianOps()))
                .append(" | ").append(five == null ? "" : ratio(single.medianOps(), five.medianOps())).append(" |\n");
        md.append("| lock+unlock p99, pooled | ").append(ratio(p(three, 99), p(single, 99))).append(" | ")
                .append(five == null ? "" : ratio(p(five, 99), p(single, 99))).append(" |\n");
        RedlockComparison.Slices ping1 = result.uncontended.get(RedlockComparison.PING_1);
        RedlockComparison.Slices ping3 = result.uncontended.get(RedlockComparison.PING_3);
        RedlockComparison.Slices ping5 = result.uncontended.get(RedlockComparison.PING_5);
        if (ping1 != null && ping3 != null) {
            md.append("| the same for the ping floors (p50, pooled): ping-floor-n / ping-floor | ")
                    .append(ratio(p50(ping3), p50(ping1))).append(" | ")
                    .append(ping5 == null ? "" : ratio(p50(ping5), p50(ping1))).append(" |\n");
            RedlockComparison.Slices ping3on1 = result.uncontended.get(RedlockComparison.PING_3_ON_1);
            if (ping3on1 != null) {
                md.append("| ping-floor-3-on-1 / ping-floor (p50): the same fan-out, one server process | ")
                        .append(ratio(p50(ping3on1), p50(ping1))).append(" | |\n");
            }
            md.append(String.format(Locale.ROOT, "| p50 above its ping floor, µs (baton: %s) | %s | %s |%n",
                    us(p50(single) - p50(ping1)), us(p50(three) - p50(ping3)),
                    five == null || ping5 == null ? "" : us(p50(five) - p50(ping5))));
        }
        md.append(String.format(Locale.ROOT, "| client CPU per op (baton: %.1f µs) | %s | %s |%n",
                RateLimiterCrossCheck.median(single.clientCpuMicros),
                ratio(RateLimiterCrossCheck.median(three.clientCpuMicros),
                        RateLimiterCrossCheck.median(single.clientCpuMicros)),
                five == null ? "" : ratio(RateLimiterCrossCheck.median(five.clientCpuMicros),
                        RateLimiterCrossCheck.median(single.clientCpuMicros))));
        double goal = p50(three) / p50(single);
        md.append("\nGoal (p50, pooled): ").append(String.format(Locale.ROOT, "%.2fx", goal)).append(" against <= ")
                .append(LATENCY_GOAL).append("x: ").append(met(goal <= LATENCY_GOAL)).append(".\n\n");
    }

    private static double p50(RedlockComparison.Slices s) {
        return p(s, 50);
    }

    private static double p(RedlockComparison.Slices s, double percentile) {
        return Percentiles.pooled(s.latencies).micros(percentile);
    }

    /** The median over slices of slice p50 / reference's slice p50 (slice s of both ran in the same rotation). */
    private static String sliceRatios(RedlockComparison.Slices of, RedlockComparison.Slices reference) {
        List<Double> ratios = new ArrayList<>();
        for (int s = 0; s < Math.min(of.latencies.size(), reference.latencies.size()); s++) {
            ratios.add(of.sliceMicros(s, 50) / reference.sliceMicros(s, 50));
        }
        return String.format(Locale.ROOT, "%.2fx (%.2f–%.2f)", RateLimiterCrossCheck.median(ratios), min(ratios),
                max(ratios));
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) ? "?" : String.format(Locale.ROOT, "%.2fx", a / b);
    }

    private void appendContended(StringBuilder md) {
        if (result.contended.isEmpty()) {
            return;
        }
        md.append("### ").append(RedlockComparison.CONTENDED).append("\n\n");
        md.append("| Contender | masters | acquisitions/s (median) | min–max | handoffs | handoff p50 / p99 µs"
                + " (from unlock() returned) | Redis cmds/acq, all masters | client CPU µs/acq"
                + " | Redis CPU µs/acq, all masters | commands per acquisition |\n");
        md.append("|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n");
        for (String kind : RedlockComparison.LOCKS) {
            List<HandoffScenario.Round> rounds = result.contended.get(kind);
            if (rounds == null || rounds.isEmpty()) {
                continue;
            }
            List<Double> rates = rounds.stream().map(HandoffScenario.Round::perSecond).toList();
            List<long[]> handoffs = rounds.stream().map(r -> r.handoffNanos).toList();
            Percentiles h = Percentiles.pooled(handoffs);
            long cmdOps = rounds.stream().mapToLong(r -> r.acquisitionsForCommands).sum();
            CommandStats stats = rounds.stream().map(r -> r.stats).reduce(CommandStats.empty(), CommandStats::plus);
            double clientCpu = rounds.stream().mapToLong(r -> r.clientCpuNanos).sum() / 1000.0 / cmdOps;
            boolean redisMeasured = rounds.stream().allMatch(r -> r.redisCpuNanos >= 0);
            double redisCpu = rounds.stream().mapToLong(r -> r.redisCpuNanos).sum() / 1000.0 / cmdOps;
            md.append("| ").append(kind).append(" | ").append(RedlockComparison.masters(kind)).append(" | ")
                    .append(ops(RateLimiterCrossCheck.median(rates))).append(" | ").append(ops(min(rates)))
                    .append("–").append(ops(max(rates))).append(" | ")
                    .append(rounds.stream().mapToLong(r -> r.handoffs).sum()).append(" | ")
                    .append(h.count() == 0 ? "" : us(h.micros(50)) + " / " + us(h.micros(99))).append(" | ")
                    .append(num(stats.perOp(cmdOps))).append(" | ")
                    .append(String.format(Locale.ROOT, "%.0f", clientCpu)).append(" | ")
                    .append(redisMeasured ? String.format(Locale.ROOT, "%.0f", redisCpu) : "?").append(" | ")
                    .append(escape(stats.breakdown(cmdOps))).append(" |\n");
        }
        md.append("\nacquisitions/s: median of the rounds; handoff: from one holder's unlock() returning to the next"
                + " holder's (another thread's) lock() returning, negative gaps as 0, pooled; commands and CPU over"
                + " every round, divided by the acquisitions completed until every thread stopped.\n\n");
    }

    /**
     * Rounds per acquisition and split votes under contention: counted by Baton ({@link RedlockStatistics}), inferred
     * from the scripts its masters ran for Redisson, which cannot be asked.
     */
    private void appendRounds(StringBuilder md) {
        List<String> redlocks = List.of(RedlockComparison.BATON_3, RedlockComparison.BATON_5,
                RedlockComparison.REDISSON_3, RedlockComparison.REDISSON_5);
        if (redlocks.stream().noneMatch(result.contended::containsKey)) {
            return;
        }
        md.append("### Rounds per acquisition and split votes (").append(RedlockComparison.CONTENDED)
                .append(")\n\n");
        md.append("| Contender | masters | scripts/acq, all masters | scripts/acq per master | acquisition rounds/acq"
                + " (counted) | first-master calls/acq (counted) | round trips/acq (counted) | split votes / 1,000 acq"
                + " (counted) | first master lost / 1,000 acq | holds taken by handover | holds counted |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String kind : redlocks) {
            List<HandoffScenario.Round> rounds = result.contended.get(kind);
            if (rounds == null || rounds.isEmpty()) {
                continue;
            }
            long cmdOps = rounds.stream().mapToLong(r -> r.acquisitionsForCommands).sum();
            CommandStats stats = rounds.stream().map(r -> r.stats).reduce(CommandStats.empty(), CommandStats::plus);
            long scripts = stats.calls().entrySet().stream().filter(e -> SCRIPTS.contains(e.getKey()))
                    .mapToLong(Map.Entry::getValue).sum();
            double perAcq = cmdOps == 0 ? Double.NaN : (double) scripts / cmdOps;
            int masters = RedlockComparison.masters(kind);
            md.append("| ").append(kind).append(" | ").append(masters).append(" | ").append(num(perAcq))
                    .append(" | ").append(num(perAcq / masters)).append(" | ");
            List<RedlockStatistics.Counts> counted = result.redlockCounts.get(kind);
            if (counted == null || counted.isEmpty()) {
                md.append("not counted (≈ scripts per master − 1, see below) | | | not counted | | | |\n");
                continue;
            }
            RedlockStatistics.Counts all = counted.stream().reduce(new RedlockStatistics.Counts(0, 0, 0, 0, 0, 0, 0),
                    RedlockStatistics.Counts::plus);
            double holds = all.holds();
            md.append(num(all.roundsPerHold())).append(" | ").append(num(all.firstMasterCalls() / holds))
                    .append(" | ").append(num(all.roundTripsPerHold())).append(" | ")
                    .append(num(all.splitVotesPerThousand())).append(" | ")
                    .append(num(1000.0 * all.firstMasterLost() / holds)).append(" | ")
                    .append(all.holds() == 0 ? "" : String.format(Locale.ROOT, "%.0f%%",
                            100.0 * all.handovers() / all.holds()))
                    .append(" | ").append(all.holds()).append(" |\n");
        }
        md.append("\nScripts: EVAL/EVALSHA calls per acquisition over the contender's masters (`INFO commandstats`,"
                + " measured span), and the same divided by the number of masters: every call a Redlock sends goes to"
                + " each master, so this is its rounds of every kind per acquisition (acquire, handover, release,"
                + " undo; a Baton undo goes to one master only and counts as a fraction). Counted (Baton only,"
                + " `RedlockStatistics`, over the rounds including their warm-up): rounds of the acquire or handover"
                + " script sent to every master (or, on the two-phase path, to every master but the first), per hold"
                + " taken; first-master calls: a contended try's call to the first master alone, before the others;"
                + " round trips: both together; split votes: rounds that found the masters divided"
                + " among two or more contenders and none with a majority, as each contender saw them. Redisson"
                + " cannot be asked: `RedissonRedLock` sends one `tryLock` script per master per attempt and one"
                + " unlock per master per release (and per failed attempt's partial grants), so its attempts per"
                + " acquisition are at most its scripts per master less the one release.\n\n");
    }

    private void appendFirst(StringBuilder md) {
        if (result.first.isEmpty()) {
            return;
        }
        md.append("### A fresh client's first lock+unlock\n\n");
        md.append("| Contender | namespace | first lock+unlock µs (each probe) | second µs | commands of the first,"
                + " all masters |\n");
        md.append("|---|---|---|---|---|\n");
        for (String kind : RedlockComparison.LOCKS) {
            for (boolean fresh : new boolean[] {false, true}) {
                List<RedlockComparison.First> probes = result.first.stream()
                        .filter(f -> f.contender().equals(kind) && f.freshNamespace() == fresh).toList();
                if (probes.isEmpty()) {
                    continue;
                }
                md.append("| ").append(kind).append(" | ").append(fresh ? "never used: the first try admits the masters"
                                : "in use").append(" | ")
                        .append(String.join(", ", probes.stream().map(f -> us(f.firstNanos() / 1000.0)).toList()))
                        .append(" | ")
                        .append(String.join(", ", probes.stream().map(f -> us(f.secondNanos() / 1000.0)).toList()))
                        .append(" | ").append(escape(probes.get(0).stats().breakdown(1))).append(" |\n");
            }
        }
        md.append("\nEach probe opens a new client (connection time not counted), times its first lock()+unlock()"
                + " and then a second one. Commands: those of the first probe's first lock+unlock, over the"
                + " contender's masters.\n\n");
    }

    private void appendAnomalies(StringBuilder md) {
        List<String> all = new ArrayList<>(result.anomalies);
        result.contended.forEach((kind, rounds) -> {
            for (HandoffScenario.Round r : rounds) {
                r.stuckThreads.forEach(s -> all.add(kind + " (contended) hung: " + s));
                if (r.exclusionViolations > 0) {
                    all.add(kind + " (contended): " + r.exclusionViolations
                            + " times two threads were inside the lock at once");
                }
                r.errors.forEach(e -> all.add(kind + " (contended) threw (" + r.errorCount + " errors in the round):\n"
                        + e));
            }
        });
        md.append("### Redlock anomalies\n\n");
        if (all.isEmpty()) {
            md.append("None: no errors, no hang, no exclusion violation.\n\n");
            return;
        }
        for (String a : all) {
            md.append("- ").append(a.replace("\n", "\n    ")).append('\n');
        }
        md.append('\n');
    }

    private static double min(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
