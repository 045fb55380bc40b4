package dev.baton.bench.spring;

import static dev.baton.bench.spring.SpringBenchRun.LOCKS;
import static dev.baton.bench.spring.SpringBenchRun.RATE_LIMITS;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.ToDoubleFunction;

/**
 * The Markdown report of a run: per contender the medians over rounds, then the comparisons the run exists for,
 * each a median of ratios taken within a round (both sides measured minutes apart at most), with the spread.
 */
final class SpringBenchReport {

    /**
     * One comparison: {@code numerator}'s calls per second divided by {@code denominator}'s, round by round.
     *
     * @param label       what it answers
     * @param benchmark   which benchmark both contenders belong to
     * @param numerator   the contender on top
     * @param denominator the contender below
     */
    record Comparison(String label, String benchmark, String numerator, String denominator) {
    }

    /** The comparisons, in the order of the report. */
    static final List<Comparison> COMPARISONS = List.of(
            new Comparison("`@DistributedLock` / `lock.acquire(0)` (watchdog lease)", LOCKS,
                    LockAnnotationBenchmark.BATON_ANNOTATED, LockAnnotationBenchmark.BATON_DIRECT),
            new Comparison("`@DistributedLock` job / `lock.tryAcquire(0, 30 s)` (fixed lease)", LOCKS,
                    LockAnnotationBenchmark.BATON_ANNOTATED_JOB, LockAnnotationBenchmark.BATON_DIRECT_JOB),
            new Comparison("`@DistributedLock` job / ShedLock `@SchedulerLock`", LOCKS,
                    LockAnnotationBenchmark.BATON_ANNOTATED_JOB, LockAnnotationBenchmark.SHEDLOCK),
            new Comparison("`@DistributedLock` (watchdog) / ShedLock `@SchedulerLock`", LOCKS,
                    LockAnnotationBenchmark.BATON_ANNOTATED, LockAnnotationBenchmark.SHEDLOCK),
            new Comparison("ShedLock `@SchedulerLock` / ShedLock `LockProvider.lock`", LOCKS,
                    LockAnnotationBenchmark.SHEDLOCK, LockAnnotationBenchmark.SHEDLOCK_DIRECT),
            new Comparison("Baton `tryAcquire(0, 30 s)` / ShedLock `LockProvider.lock`", LOCKS,
                    LockAnnotationBenchmark.BATON_DIRECT_JOB, LockAnnotationBenchmark.SHEDLOCK_DIRECT),
            new Comparison("`@RateLimited` / `RateLimiter.tryAcquire()`", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BATON_ANNOTATED, RateLimitAnnotationBenchmark.BATON_DIRECT),
            new Comparison("`@RateLimited` / Bucket4j starter `@RateLimiting` (Jedis)", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BATON_ANNOTATED, RateLimitAnnotationBenchmark.BUCKET4J_STARTER),
            new Comparison("`@RateLimited` / Bucket4j on Lettuce behind a Spring interceptor", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BATON_ANNOTATED, RateLimitAnnotationBenchmark.BUCKET4J_INTERCEPTOR),
            new Comparison("Bucket4j starter / Bucket4j Jedis bucket", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BUCKET4J_STARTER, RateLimitAnnotationBenchmark.BUCKET4J_JEDIS_DIRECT),
            new Comparison("Bucket4j interceptor / Bucket4j Lettuce bucket", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BUCKET4J_INTERCEPTOR, RateLimitAnnotationBenchmark.BUCKET4J_DIRECT),
            new Comparison("`RateLimiter.tryAcquire()` / Bucket4j Lettuce bucket", RATE_LIMITS,
                    RateLimitAnnotationBenchmark.BATON_DIRECT, RateLimitAnnotationBenchmark.BUCKET4J_DIRECT));

    private final SpringBenchRun.Result result;
    private final Map<String, String> header;

    /**
     * @param result what the run measured
     * @param header lines for the top of the report (label to value), in order
     */
    SpringBenchReport(SpringBenchRun.Result result, Map<String, String> header) {
        this.result = result;
        this.header = header;
    }

    /**
     * The measurements of one contender, one per round that produced one.
     *
     * @param benchmark which benchmark
     * @param contender which contender
     * @return the measurements, in round order
     */
    List<Measurement> of(String benchmark, String contender) {
        return result.measurements.stream()
                .filter(m -> m.benchmark().equals(benchmark) && m.contender().equals(contender))
                .toList();
    }

    /**
     * A comparison's ratios of calls per second, one per round in which both contenders were measured.
     *
     * @param comparison which
     * @return the ratios, in round order
     */
    List<Double> ratios(Comparison comparison) {
        return paired(comparison, (top, bottom) -> top.callsPerSecond() / bottom.callsPerSecond());
    }

    /**
     * What the first contender of a comparison pays more than the second, one value per round in which both were
     * measured (and, for costs, counted).
     *
     * @param comparison which
     * @param difference the value of a pair: first, then second
     * @return the values, in round order
     */
    private List<Double> paired(Comparison comparison, BiFunction<Measurement, Measurement, Double> difference) {
        List<Double> values = new ArrayList<>();
        for (Measurement top : of(comparison.benchmark(), comparison.numerator())) {
            find(comparison.benchmark(), comparison.denominator(), top.round())
                    .map(bottom -> difference.apply(top, bottom))
                    .ifPresent(values::add);
        }
        return values;
    }

    /**
     * What went wrong during the run: failed forks, each naming the contender and the cause.
     *
     * @return the anomalies, in order
     */
    List<String> anomalies() {
        return List.copyOf(result.anomalies);
    }

    private Optional<Measurement> find(String benchmark, String contender, int round) {
        return of(benchmark, contender).stream().filter(m -> m.round() == round).findFirst();
    }

    /**
     * The report.
     *
     * @return Markdown
     */
    String markdown() {
        StringBuilder md = new StringBuilder("## Spring annotations: overhead and peers (one thread, uncontended)\n\n");
        header.forEach((label, value) -> md.append("- ").append(label).append(": ").append(value).append('\n'));
        md.append('\n');
        contenderTable(md, "Locks", LOCKS, LockAnnotationBenchmark.CONTENDERS);
        contenderTable(md, "Rate limiters", RATE_LIMITS, RateLimitAnnotationBenchmark.CONTENDERS);
        md.append("### Comparisons (median of the per-round ratios of calls/s; above 1 the first is faster)\n\n")
                .append("| Comparison | calls/s ratio | rounds min–max | extra µs per call (means) |"
                        + " extra client CPU µs per call |\n")
                .append("|---|---:|---:|---:|---:|\n");
        for (Comparison c : COMPARISONS) {
            List<Double> ratios = ratios(c);
            if (ratios.isEmpty()) {
                md.append("| ").append(c.label()).append(" | not measured | | | |\n");
                continue;
            }
            List<Double> extraCpu = paired(c, (top, bottom) -> top.costs() == null || bottom.costs() == null ? null
                    : top.costs().clientCpuMicros() - bottom.costs().clientCpuMicros());
            md.append(String.format(Locale.ROOT, "| %s | %.2fx | %.2f–%.2f | %+.1f | %s |%n", c.label(),
                    median(ratios), Collections.min(ratios), Collections.max(ratios),
                    median(paired(c, (top, bottom) -> top.meanMicros() - bottom.meanMicros())),
                    extraCpu.isEmpty() ? "?" : String.format(Locale.ROOT, "%+.1f", median(extraCpu))));
        }
        md.append('\n');
        if (!result.anomalies.isEmpty()) {
            md.append("### Anomalies\n\n");
            result.anomalies.forEach(a -> md.append("- ").append(a.replace("\n", " ")).append('\n'));
            md.append('\n');
        }
        return md.toString();
    }

    private void contenderTable(StringBuilder md, String title, String benchmark, List<String> contenders) {
        md.append("### ").append(title).append(" (medians over rounds)\n\n")
                .append("| Contender | calls/s | rounds min–max | mean µs | p50 µs | p99 µs | client CPU µs/call |"
                        + " Redis CPU µs/call | Redis cmds/call |"
                        + " commands per call (commandstats, incl. inside scripts) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (String contender : contenders) {
            List<Measurement> rounds = of(benchmark, contender);
            if (rounds.isEmpty()) {
                md.append("| ").append(contender).append(" | failed | | | | | | | | |\n");
                continue;
            }
            List<Double> perSecond = values(rounds, Measurement::callsPerSecond);
            List<Measurement.Costs> costs = rounds.stream().map(Measurement::costs).filter(Objects::nonNull).toList();
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f–%,.0f | %.1f | %.1f | %.1f"
                    + " | %s | %s | %s | %s |%n", contender, median(perSecond), Collections.min(perSecond),
                    Collections.max(perSecond),
                    median(values(rounds, Measurement::meanMicros)), median(values(rounds, Measurement::p50Micros)),
                    median(values(rounds, Measurement::p99Micros)),
                    costMedian(costs, Measurement.Costs::clientCpuMicros, "%.1f"),
                    costMedian(costs, Measurement.Costs::redisCpuMicros, "%.1f"),
                    costMedian(costs, Measurement.Costs::commands, "%.2f"),
                    costs.isEmpty() ? "" : costs.get(costs.size() - 1).breakdown()));
        }
        md.append('\n');
    }

    private static String costMedian(List<Measurement.Costs> costs, ToDoubleFunction<Measurement.Costs> field,
                                     String format) {
        return costs.isEmpty() ? "?" : String.format(Locale.ROOT, format,
                median(costs.stream().map(c -> field.applyAsDouble(c)).toList()));
    }

    private static List<Double> values(List<Measurement> rounds, ToDoubleFunction<Measurement> field) {
        return rounds.stream().map(m -> field.applyAsDouble(m)).toList();
    }

    /**
     * The median: the middle value, or the mean of the two middle ones.
     *
     * @param values at least one
     * @return the median
     */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("values: the median of nothing");
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
