package dev.baton.bench;

import static dev.baton.bench.Report.escape;
import static dev.baton.bench.Report.met;
import static dev.baton.bench.Report.num;
import static dev.baton.bench.Report.ops;
import static dev.baton.bench.Report.percent;
import static dev.baton.bench.Report.us;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Renders the lock-family section of the report from a {@link FamilyRun.Result}. */
final class FamilyReport {
    /** Goal: Baton's fair lock at least this many times Redisson's acquisitions per second. */
    static final double FAIR_THROUGHPUT_GOAL = 3.0;
    /** Goal: the fair lock's handoff p50 at most this many PING round trips (p50). */
    static final double FAIR_HANDOFF_GOAL = 1.5;
    /** Issue 22: handoff from unlock() called at most this many PINGs timed under the same contention. */
    static final double FAIR_LOADED_HANDOFF_GOAL = 2.0;

    private final FamilyRun.Result result;
    private final Percentiles ping;

    private FamilyReport(FamilyRun.Result result) {
        this.result = result;
        this.ping = result.pingSamples.isEmpty() ? null : Percentiles.pooled(result.pingSamples);
    }

    static void append(StringBuilder md, FamilyRun.Result result) {
        new FamilyReport(result).append(md);
    }

    private void append(StringBuilder md) {
        FamilyRun.Plan plan = result.plan;
        md.append("## Lock family: Baton against Redisson\n\n");
        md.append(String.format(Locale.ROOT, "- %d round(s) per contender and workload, Baton and Redisson"
                        + " alternating (who goes first rotates), each on fresh clients and a fresh name: %.1f s of"
                        + " warm-up, then %.1f s measured%n", plan.rounds(), plan.warmup().toMillis() / 1000.0,
                plan.measure().toMillis() / 1000.0));
        if (plan.traced()) {
            md.append(String.format(Locale.ROOT, "- Round trips: one more round per contender and workload with"
                    + " MONITOR on (%.1f s, speed not reported)%n", plan.traceSpan().toMillis() / 1000.0));
        }
        if (ping != null) {
            md.append(String.format(Locale.ROOT, "- One PING round trip (idle Lettuce sync connection, timed one by"
                            + " one before each (f) round, %,d samples): p50 %.1f µs, p99 %.1f µs%n", ping.count(),
                    ping.micros(50), ping.micros(99)));
        }
        md.append('\n');
        appendSummary(md);
        appendGoals(md);
        appendFairDetails(md);
        appendReadWriteDetails(md);
        appendSemaphoreDetails(md);
        appendTraces(md);
        appendAnomalies(md);
    }

    private void appendSummary(StringBuilder md) {
        md.append("| Workload | Contender | rate (median of rounds) | per round | latency p50 / p99 µs | Redis cmds/op"
                + " | round trips/op (MONITOR) | client CPU µs/op | Redis CPU µs/op | commands per op (commandstats,"
                + " incl. those run inside scripts) |\n");
        md.append("|---|---|---:|---|---|---:|---:|---:|---:|---|\n");
        for (FamilyWorkload workload : FamilyWorkload.values()) {
            for (String contender : FamilyContender.KINDS) {
                md.append("| ").append(workload.label).append(" | ").append(contender).append(" | ");
                String notBuilt = result.notBuilt(workload, contender);
                List<FamilyRound> rounds = result.measured(workload, contender);
                if (notBuilt != null || rounds.isEmpty()) {
                    md.append(notBuilt != null ? "not built" : "failed").append(" | | | | | | | ")
                            .append(notBuilt != null ? escape(notBuilt) : "see anomalies").append(" |\n");
                    continue;
                }
                CommandStats stats = stats(rounds);
                long opsForCommands = rounds.stream().mapToLong(r -> r.opsForCommands).sum();
                FamilyRun.Trace trace = result.traces.getOrDefault(workload, Map.of()).get(contender);
                md.append(ops(medianRate(rounds))).append(' ').append(workload.rate)
                        .append(" | ").append(perRound(rounds, FamilyRound::perSecond))
                        .append(" | ").append(latencyCell(workload, rounds))
                        .append(" | ").append(num(stats.perOp(opsForCommands)))
                        .append(" | ").append(trace == null ? "" : num(trace.sentPerOp()))
                        .append(String.format(Locale.ROOT, " | %.1f | %.1f | ",
                                median(rounds, FamilyRound::clientCpuMicrosPerOp),
                                median(rounds, FamilyRound::redisCpuMicrosPerOp)))
                        .append(escape(stats.breakdown(opsForCommands))).append(" |\n");
            }
        }
        md.append("\nrate: the workload's operations per second in the measured window, median of the rounds."
                + " latency: (f) the handoff, from the holder calling unlock() to the next holder's lock() returning"
                + " (another thread; both clocks in this one JVM); (rw) the writer's wait, from its writeLock().lock()"
                + " call to the call returning; (s) one acquire() call; pooled over the rounds. Redis cmds/op: every"
                + " command Redis executed from the start of the window until every thread stopped (harness"
                + " INFO/CONFIG excluded, commands run inside scripts included), divided by the operations completed"
                + " in that span: acquisitions in (f) and (s), reads plus writes in (rw); an operation is one"
                + " acquisition and its release. round trips/op: commands the clients sent per operation in the"
                + " MONITOR round (under the same contention). CPU: the whole benchmark JVM (getProcessCpuTime) and"
                + " the redis-server process (user + system, /proc) over the same span, per operation, median of the"
                + " rounds.\n\n");
    }

    /** The workload's latency pooled over its rounds: the handoff, the writer's wait, or acquire(). */
    private static Percentiles latency(FamilyWorkload workload, List<FamilyRound> rounds) {
        return switch (workload) {
            case FAIR -> Percentiles.pooled(rounds.stream().map(r -> r.handoff.handoffFromCallNanos).toList());
            case READ_WRITE -> pooled(rounds, ReadWriteScenario.WRITER_WAIT);
            case SEMAPHORE -> pooled(rounds, SemaphoreScenario.ACQUIRE);
        };
    }

    private String latencyCell(FamilyWorkload workload, List<FamilyRound> rounds) {
        Percentiles p = latency(workload, rounds);
        String what = switch (workload) {
            case FAIR -> "handoff";
            case READ_WRITE -> "writer's wait";
            case SEMAPHORE -> "acquire()";
        };
        return what + " " + us(p.micros(50)) + " / " + us(p.micros(99));
    }

    private void appendGoals(StringBuilder md) {
        md.append("### Goals\n\n| Goal | Measured | Ratio | Met |\n|---|---|---:|---|\n");
        double baton = medianRate(result.measured(FamilyWorkload.FAIR, Contender.BATON));
        double redisson = medianRate(result.measured(FamilyWorkload.FAIR, Contender.REDISSON));
        String label = String.format(Locale.ROOT, "(f) Baton >= %.0fx Redisson's acquisitions/s", FAIR_THROUGHPUT_GOAL);
        if (!Double.isNaN(baton) && !Double.isNaN(redisson)) {
            md.append(String.format(Locale.ROOT, "| %s | Baton %s, Redisson %s acquisitions/s | %.2fx | %s |%n", label,
                    ops(baton), ops(redisson), baton / redisson, met(baton / redisson >= FAIR_THROUGHPUT_GOAL)));
        } else {
            md.append("| ").append(label).append(" | ").append(missing(FamilyWorkload.FAIR))
                    .append(" | | not measured |\n");
        }
        label = String.format(Locale.ROOT, "(f) Baton handoff p50 <= %.1fx one PING round trip", FAIR_HANDOFF_GOAL);
        List<FamilyRound> fair = result.measured(FamilyWorkload.FAIR, Contender.BATON);
        if (!fair.isEmpty() && ping != null) {
            Percentiles fromCall = Percentiles.pooled(fair.stream().map(r -> r.handoff.handoffFromCallNanos).toList());
            double ratio = fromCall.micros(50) / ping.micros(50);
            md.append(String.format(Locale.ROOT, "| %s | handoff p50 %s µs (from unlock() called), PING p50 %s µs"
                            + " | %.2fx | %s |%n", label, us(fromCall.micros(50)), us(ping.micros(50)), ratio,
                    met(ratio <= FAIR_HANDOFF_GOAL)));
        } else {
            md.append("| ").append(label).append(" | ").append(missing(FamilyWorkload.FAIR))
                    .append(" | | not measured |\n");
        }
        // The same handoff against PINGs timed on a connection of their own during Baton's (f) rounds (PingProbe.during).
        List<long[]> loadedPing = fair.stream().map(r -> r.handoff.pingUnderLoadNanos).filter(p -> p.length > 0)
                .toList();
        label = String.format(Locale.ROOT, "(f) Baton handoff p50 <= %.0fx one PING under the same contention",
                FAIR_LOADED_HANDOFF_GOAL);
        if (!loadedPing.isEmpty()) {
            Percentiles fromCall = Percentiles.pooled(fair.stream().map(r -> r.handoff.handoffFromCallNanos).toList());
            Percentiles pingLoaded = Percentiles.pooled(loadedPing);
            double ratio = fromCall.micros(50) / pingLoaded.micros(50);
            md.append(String.format(Locale.ROOT, "| %s | handoff p50 %s µs (from unlock() called), PING p50 %s µs"
                            + " (p99 %s µs, %,d samples) | %.2fx | %s |%n", label, us(fromCall.micros(50)),
                    us(pingLoaded.micros(50)), us(pingLoaded.micros(99)), pingLoaded.count(), ratio,
                    met(ratio <= FAIR_LOADED_HANDOFF_GOAL)));
        }
        appendComparison(md, FamilyWorkload.READ_WRITE, "(rw) read acquisitions/s, Baton / Redisson");
        appendWriterWait(md);
        appendComparison(md, FamilyWorkload.SEMAPHORE, "(s) acquisitions/s, Baton / Redisson");
        md.append('\n');
    }

    private void appendComparison(StringBuilder md, FamilyWorkload workload, String label) {
        double baton = medianRate(result.measured(workload, Contender.BATON));
        double redisson = medianRate(result.measured(workload, Contender.REDISSON));
        if (Double.isNaN(baton) || Double.isNaN(redisson)) {
            md.append("| ").append(label).append(" | ").append(missing(workload)).append(" | | no goal |\n");
            return;
        }
        md.append(String.format(Locale.ROOT, "| %s | Baton %s, Redisson %s | %.2fx | no goal |%n", label, ops(baton),
                ops(redisson), baton / redisson));
    }

    private void appendWriterWait(StringBuilder md) {
        String label = "(rw) writer's wait p99, Baton / Redisson";
        List<FamilyRound> baton = result.measured(FamilyWorkload.READ_WRITE, Contender.BATON);
        List<FamilyRound> redisson = result.measured(FamilyWorkload.READ_WRITE, Contender.REDISSON);
        if (baton.isEmpty() || redisson.isEmpty()) {
            md.append("| ").append(label).append(" | ").append(missing(FamilyWorkload.READ_WRITE))
                    .append(" | | no goal |\n");
            return;
        }
        double b = pooled(baton, ReadWriteScenario.WRITER_WAIT).micros(99);
        double r = pooled(redisson, ReadWriteScenario.WRITER_WAIT).micros(99);
        md.append(String.format(Locale.ROOT, "| %s | Baton %s µs, Redisson %s µs | %.2fx | no goal |%n", label, us(b),
                us(r), b / r));
    }

    private String missing(FamilyWorkload workload) {
        List<String> notBuilt = new ArrayList<>();
        for (String contender : FamilyContender.KINDS) {
            if (result.notBuilt(workload, contender) != null) {
                notBuilt.add(contender);
            }
        }
        return notBuilt.isEmpty() ? "missing results" : String.join(", ", notBuilt) + ": not built";
    }

    private void appendFairDetails(StringBuilder md) {
        md.append("### (f) fair lock in detail\n\n");
        md.append("| Contender | acquisitions/s per round | handoff from unlock() called, p50 / p90 / p99 µs"
                + " | from unlock() returned, p50 / p99 µs | unlock() call, p50 / p99 µs | handoffs to another"
                + " client | same thread re-acquired | overlaps | errors | exclusion violations |\n");
        md.append("|---|---|---|---|---|---:|---:|---:|---:|---:|\n");
        for (String contender : FamilyContender.KINDS) {
            List<FamilyRound> rounds = result.measured(FamilyWorkload.FAIR, contender);
            if (rounds.isEmpty()) {
                continue;
            }
            List<HandoffScenario.Round> hs = rounds.stream().map(r -> r.handoff).toList();
            Percentiles fromCall = Percentiles.pooled(hs.stream().map(h -> h.handoffFromCallNanos).toList());
            Percentiles fromReturn = Percentiles.pooled(hs.stream().map(h -> h.handoffNanos).toList());
            Percentiles unlock = Percentiles.pooled(hs.stream().map(h -> h.unlockNanos).toList());
            long handoffs = hs.stream().mapToLong(h -> h.handoffs).sum();
            long otherClient = hs.stream().mapToLong(h -> h.otherClientNanos.length).sum();
            long gaps = hs.stream().mapToLong(h -> h.gapNanos.length).sum();
            long same = hs.stream().mapToLong(h -> h.sameThread).sum();
            long overlaps = hs.stream().mapToLong(h -> h.overlaps).sum();
            md.append("| ").append(contender).append(" | ").append(perRound(rounds, FamilyRound::perSecond))
                    .append(" | ").append(us(fromCall.micros(50))).append(" / ").append(us(fromCall.micros(90)))
                    .append(" / ").append(us(fromCall.micros(99)))
                    .append(" | ").append(us(fromReturn.micros(50))).append(" / ").append(us(fromReturn.micros(99)))
                    .append(" | ").append(us(unlock.micros(50))).append(" / ").append(us(unlock.micros(99)))
                    .append(" | ").append(percent(otherClient, handoffs))
                    .append(" | ").append(percent(same, gaps)).append(" | ").append(percent(overlaps, gaps))
                    .append(" | ").append(errors(rounds)).append(" | ").append(violations(rounds)).append(" |\n");
        }
        md.append("\nA handoff is a passage of the lock to another thread; measured from the holder calling unlock()"
                + " it includes the release round trip and the next holder's wake-up. From unlock() returned, a"
                + " negative time (the next holder's lock() returned first: an overlap) counts as zero. unlock() call:"
                + " how long the holder's unlock() took. A strictly fair lock never lets a thread re-acquire while"
                + " others wait, so \"same thread re-acquired\" should be near zero (it is not zero when nobody else"
                + " was queued yet).\n\n");
    }

    private void appendReadWriteDetails(StringBuilder md) {
        md.append("### (rw) read-write lock in detail\n\n");
        md.append("| Contender | read acquisitions/s per round | writes/s per round | reader's lock() p50 / p99 µs"
                + " | writer's wait p50 / p99 / max µs | writer waits ended after the window | errors"
                + " | exclusion violations |\n");
        md.append("|---|---|---|---|---|---:|---:|---:|\n");
        for (String contender : FamilyContender.KINDS) {
            List<FamilyRound> rounds = result.measured(FamilyWorkload.READ_WRITE, contender);
            if (rounds.isEmpty()) {
                continue;
            }
            Percentiles read = pooled(rounds, ReadWriteScenario.READ_LOCK);
            Percentiles wait = pooled(rounds, ReadWriteScenario.WRITER_WAIT);
            long late = rounds.stream().mapToLong(r -> r.lateWaits).sum();
            md.append("| ").append(contender).append(" | ").append(perRound(rounds, FamilyRound::perSecond))
                    .append(" | ").append(perRound(rounds, FamilyRound::writesPerSecond))
                    .append(" | ").append(us(read.micros(50))).append(" / ").append(us(read.micros(99)))
                    .append(" | ").append(us(wait.micros(50))).append(" / ").append(us(wait.micros(99)))
                    .append(" / ").append(us(wait.micros(100)))
                    .append(" | ").append(late).append(" of ").append(wait.count())
                    .append(" | ").append(errors(rounds)).append(" | ").append(violations(rounds)).append(" |\n");
        }
        md.append("\nThe writer pauses ").append(ReadWriteScenario.WRITER_PAUSE_MILLIS).append(" ms after each write,"
                + " so at most about ").append(1000 / ReadWriteScenario.WRITER_PAUSE_MILLIS).append(" writes/s are"
                + " asked for. A writer wait that ended after the window closed ended because the readers stopped:"
                + " it is a lower bound of a wait the readers would have prolonged.\n\n");
    }

    private void appendSemaphoreDetails(StringBuilder md) {
        md.append("### (s) semaphore in detail\n\n");
        md.append("| Contender | acquisitions/s per round | acquire() p50 / p90 / p99 µs | most holders at once"
                + " | errors | violations (more than ").append(SemaphoreScenario.PERMITS).append(" holders) |\n");
        md.append("|---|---|---|---:|---:|---:|\n");
        for (String contender : FamilyContender.KINDS) {
            List<FamilyRound> rounds = result.measured(FamilyWorkload.SEMAPHORE, contender);
            if (rounds.isEmpty()) {
                continue;
            }
            Percentiles wait = pooled(rounds, SemaphoreScenario.ACQUIRE);
            int most = rounds.stream().mapToInt(r -> r.maxInside).max().orElse(0);
            md.append("| ").append(contender).append(" | ").append(perRound(rounds, FamilyRound::perSecond))
                    .append(" | ").append(us(wait.micros(50))).append(" / ").append(us(wait.micros(90)))
                    .append(" / ").append(us(wait.micros(99)))
                    .append(" | ").append(most).append(" | ").append(errors(rounds))
                    .append(" | ").append(violations(rounds)).append(" |\n");
        }
        md.append('\n');
    }

    private void appendTraces(StringBuilder md) {
        if (result.traces.isEmpty()) {
            return;
        }
        md.append("### Round trips per operation under contention (MONITOR)\n\n");
        md.append("| Workload | Contender | operations traced | sent by the clients per op | which | run inside"
                + " scripts per op | which |\n");
        md.append("|---|---|---:|---:|---|---:|---|\n");
        result.traces.forEach((workload, byContender) -> byContender.forEach((contender, t) ->
                md.append("| ").append(workload.label).append(" | ").append(contender)
                        .append(" | ").append(String.format(Locale.ROOT, "%,d", t.ops()))
                        .append(" | ").append(num(t.sentPerOp())).append(" | ").append(escape(t.sentBreakdown()))
                        .append(" | ").append(num(t.inScriptsPerOp())).append(" | ")
                        .append(escape(t.inScriptsBreakdown())).append(" |\n")));
        md.append("\nOne round per contender and workload with the same threads and clients as the measured ones,"
                + " MONITOR on: what the clients sent (each command one round trip; SUBSCRIBE and UNSUBSCRIBE"
                + " included, pub/sub messages pushed to the clients not) and what the scripts ran, per operation as"
                + " above. MONITOR slows Redis down, so the contention is not quite that of the measured rounds:"
                + " compare the total with the commandstats column.\n\n");
    }

    private void appendAnomalies(StringBuilder md) {
        List<String> all = new ArrayList<>(result.anomalies);
        for (List<FamilyRound> rounds : result.rounds.values()) {
            for (FamilyRound r : rounds) {
                String what = r.workload.label + " with " + r.contender;
                for (String stuck : r.stuckThreads) {
                    all.add(what + " hung: " + stuck);
                }
                if (r.exclusionViolations > 0) {
                    all.add(what + ": " + r.exclusionViolations + " exclusion violations");
                }
                for (String e : r.errors) {
                    all.add(what + " threw (" + r.errorCount + " errors in the round):\n" + e);
                }
            }
        }
        md.append("### Anomalies (lock family)\n\n");
        if (all.isEmpty()) {
            md.append("None: every round measured, no errors, no hang, no exclusion violation.\n\n");
            return;
        }
        for (String a : all) {
            md.append("- ").append(a.replace("\n", "\n    ")).append('\n');
        }
        md.append('\n');
    }

    // ---- charts ----

    /** The fair lock's, the read-write lock's and the semaphore's charts: the rate, then the workload's latency. */
    static Map<String, BarChart> charts(FamilyRun.Result result) {
        Map<String, BarChart> charts = new LinkedHashMap<>();
        for (FamilyWorkload workload : FamilyWorkload.values()) {
            List<BarChart.Bar> rates = new ArrayList<>();
            List<BarChart.Bar> latencies = new ArrayList<>();
            for (String contender : FamilyContender.KINDS) {
                List<FamilyRound> rounds = result.measured(workload, contender);
                rates.add(new BarChart.Bar(contender, rounds.isEmpty() ? Double.NaN : medianRate(rounds)));
                Percentiles latency = latency(workload, rounds);
                latencies.add(new BarChart.Bar(contender, latency.count() == 0 ? Double.NaN
                        : latency.micros(workload == FamilyWorkload.READ_WRITE ? 99 : 50)));
            }
            String title = switch (workload) {
                case FAIR -> "fair-lock";
                case READ_WRITE -> "read-write-lock";
                case SEMAPHORE -> "semaphore";
            };
            String latencyTitle = switch (workload) {
                case FAIR -> "handoff p50 µs, from unlock() called";
                case READ_WRITE -> "writer's wait p99 µs";
                case SEMAPHORE -> "acquire() p50 µs";
            };
            if (workload == FamilyWorkload.FAIR && !result.pingSamples.isEmpty()) {
                latencies.add(new BarChart.Bar("one PING round trip (floor)",
                        Percentiles.pooled(result.pingSamples).micros(50)));
            }
            charts.put(title, new BarChart(workload.label)
                    .panel(workload.rate + " (median of rounds)", rates)
                    .panel(latencyTitle, latencies));
        }
        return charts;
    }

    // ---- aggregates ----

    static double medianRate(List<FamilyRound> rounds) {
        return RateLimiterCrossCheck.median(rounds.stream().map(FamilyRound::perSecond).toList());
    }

    private static double median(List<FamilyRound> rounds, Function<FamilyRound, Double> value) {
        return RateLimiterCrossCheck.median(rounds.stream().map(value).filter(v -> !v.isNaN()).toList());
    }

    private static Percentiles pooled(List<FamilyRound> rounds, String latency) {
        return Percentiles.pooled(rounds.stream().map(r -> r.latencies.getOrDefault(latency, new long[0])).toList());
    }

    private static CommandStats stats(List<FamilyRound> rounds) {
        CommandStats sum = CommandStats.empty();
        for (FamilyRound r : rounds) {
            sum = sum.plus(r.stats);
        }
        return sum;
    }

    private static String perRound(List<FamilyRound> rounds, Function<FamilyRound, Double> value) {
        return String.join(", ", rounds.stream().map(r -> ops(value.apply(r))).toList());
    }

    private static long errors(List<FamilyRound> rounds) {
        return rounds.stream().mapToLong(r -> r.errorCount).sum();
    }

    private static long violations(List<FamilyRound> rounds) {
        return rounds.stream().mapToLong(r -> r.exclusionViolations).sum();
    }
}
