package dev.baton.bench.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs every contender of both benchmarks in rounds: in each round one JMH fork per contender, the order rotated
 * from round to round, so that a noisy minute on a shared machine lands on different contenders and the ratios can
 * be taken within a round (see {@link SpringBenchReport}). A fork that fails is recorded, and the run goes on.
 *
 * <p>{@link #smoke} checks the same contenders without JMH: each one's call in a loop of this JVM, all on one
 * application, through the same {@link TrialCheck}; it proves that every contender works and is guarded in seconds,
 * where a fork per contender (each a Spring Boot application and a JVM) takes minutes, and its figures mean nothing.
 */
final class SpringBenchRun {
    static final String LOCKS = "locks";
    static final String RATE_LIMITS = "rate limits";

    /**
     * How long to measure.
     *
     * @param rounds                how many times every contender runs
     * @param warmupIterations      JMH warm-up iterations per fork
     * @param warmup                length of each
     * @param measurementIterations JMH measurement iterations per fork
     * @param measurement           length of each
     */
    record Plan(int rounds, int warmupIterations, Duration warmup, int measurementIterations, Duration measurement) {
        /** The full run: 3 rounds of 3 x 2 s warm-up and 5 x 2 s measurement per fork, about 12 minutes. */
        static final Plan FULL = new Plan(3, 3, Duration.ofSeconds(2), 5, Duration.ofSeconds(2));
        /** Smoke-test settings: one round of one short iteration each; the figures mean nothing. */
        static final Plan QUICK = new Plan(1, 1, Duration.ofMillis(300), 1, Duration.ofMillis(500));

        Plan {
            if (rounds < 1 || warmupIterations < 0 || measurementIterations < 1) {
                throw new IllegalArgumentException("plan: at least one round and one measurement iteration");
            }
            Objects.requireNonNull(warmup, "warmup");
            Objects.requireNonNull(measurement, "measurement");
        }

        /** Rounds changed. */
        Plan withRounds(int n) {
            return new Plan(n, warmupIterations, warmup, measurementIterations, measurement);
        }

        @Override
        public String toString() {
            return rounds + " rounds; per contender and round 1 fork of " + warmupIterations + " x "
                    + warmup.toMillis() + " ms warm-up and " + measurementIterations + " x " + measurement.toMillis()
                    + " ms measurement";
        }
    }

    /** What a run produced: the measurements, and what went wrong. */
    static final class Result {
        final List<Measurement> measurements = new ArrayList<>();
        final List<String> anomalies = new ArrayList<>();
    }

    private SpringBenchRun() {
    }

    /**
     * Runs the plan against the redis-server at {@code redisUri}.
     *
     * @param redisUri the server every contender uses
     * @param plan     how long
     * @return the measurements
     */
    static Result run(String redisUri, Plan plan) {
        Result result = new Result();
        Path statsFile;
        try {
            statsFile = Files.createTempFile("baton-bench-spring-", ".tsv");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the command-count file", e);
        }
        try {
            runRounds(redisUri, plan, statsFile, result);
        } finally {
            try {
                Files.deleteIfExists(statsFile);
            } catch (IOException e) {
                result.anomalies.add("could not delete " + statsFile + ": " + e);
            }
        }
        return result;
    }

    /**
     * Calls each contender of both benchmarks {@code calls} times in this JVM, all on one {@link BenchApp} on
     * {@code redisUri}, each checked by a {@link TrialCheck} as a JMH trial is: one measurement per contender, round 0,
     * whose latencies come from {@link System#nanoTime()} around each call. A contender that fails is recorded as an
     * anomaly, and the run goes on.
     *
     * @param redisUri the server every contender uses
     * @param calls    calls per contender, at least 1
     * @return the measurements
     */
    static Result smoke(String redisUri, int calls) {
        if (calls < 1) {
            throw new IllegalArgumentException("calls: at least one call per contender");
        }
        Result result = new Result();
        try {
            Path statsFile = Files.createTempFile("baton-bench-spring-", ".tsv");
            long startNanos = System.nanoTime();
            try (BenchApp app = BenchApp.start(redisUri)) {
                SpringBenchMain.log(String.format(Locale.ROOT, "smoke: application started in %.1f s",
                        (System.nanoTime() - startNanos) / 1e9));
                for (String contender : LockAnnotationBenchmark.CONTENDERS) {
                    LockAnnotationBenchmark benchmark = new LockAnnotationBenchmark();
                    benchmark.contender = contender;
                    callInProcess(app, benchmark, LOCKS, contender, redisUri, calls, statsFile, result);
                }
                for (String contender : RateLimitAnnotationBenchmark.CONTENDERS) {
                    RateLimitAnnotationBenchmark benchmark = new RateLimitAnnotationBenchmark();
                    benchmark.contender = contender;
                    callInProcess(app, benchmark, RATE_LIMITS, contender, redisUri, calls, statsFile, result);
                }
            } finally {
                Files.deleteIfExists(statsFile);
            }
        } catch (IOException | RuntimeException e) {
            result.anomalies.add("smoke run failed: " + rootCause(e));
        }
        return result;
    }

    private static void callInProcess(BenchApp app, GuardedCallBenchmark benchmark, String benchmarkName,
                                      String contender, String redisUri, int calls, Path statsFile, Result result) {
        long startNanos = System.nanoTime();
        try {
            WorkCounter work = app.bean(WorkCounter.class);
            GuardedCall call = benchmark.callOf(app, work);
            long[] nanos = new long[calls];
            try (TrialCheck check = new TrialCheck(work, contender, redisUri)) {
                for (int i = 0; i < calls; i++) {
                    long start = System.nanoTime();
                    call.call();
                    nanos[i] = System.nanoTime() - start;
                    check.called();
                }
                Files.writeString(statsFile, "");
                check.verify(benchmarkName, statsFile);
            }
            SpringBenchMain.log(String.format(Locale.ROOT, "smoke, %s: %s, %d calls checked in %.1f s",
                    benchmarkName, contender, calls, (System.nanoTime() - startNanos) / 1e9));
            Arrays.sort(nanos);
            double meanMicros = Arrays.stream(nanos).average().orElseThrow() / 1e3;
            result.measurements.add(new Measurement(benchmarkName, contender, 0, meanMicros,
                    nanos[(calls - 1) / 2] / 1e3, nanos[(int) Math.ceil(calls * 0.99) - 1] / 1e3, calls,
                    costsOf(statsFile, benchmarkName, contender)));
        } catch (Exception e) {
            result.anomalies.add(benchmarkName + ", " + contender + ", smoke failed: " + rootCause(e));
        }
    }

    /**
     * One JMH fork of one contender, as {@link #run} makes each: for a check that the forked path (the fork's own
     * application, the settings it gets through system properties, the costs it writes back) works, without paying
     * for a fork per contender.
     *
     * @param redisUri  the server
     * @param plan      how long; its rounds are ignored (one fork)
     * @param benchmark {@link #LOCKS} or {@link #RATE_LIMITS}
     * @param contender one of that benchmark's contenders
     * @return the fork's measurement, or its anomaly
     */
    static Result forkOne(String redisUri, Plan plan, String benchmark, String contender) {
        Class<?> type = switch (benchmark) {
            case LOCKS -> LockAnnotationBenchmark.class;
            case RATE_LIMITS -> RateLimitAnnotationBenchmark.class;
            default -> throw new IllegalArgumentException("benchmark: unknown '" + benchmark + "'");
        };
        Result result = new Result();
        Path statsFile;
        try {
            statsFile = Files.createTempFile("baton-bench-spring-", ".tsv");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the command-count file", e);
        }
        try {
            measure(redisUri, statsFile, plan, benchmark, type, contender, 0, result);
        } finally {
            try {
                Files.deleteIfExists(statsFile);
            } catch (IOException e) {
                result.anomalies.add("could not delete " + statsFile + ": " + e);
            }
        }
        return result;
    }

    private static void runRounds(String redisUri, Plan plan, Path statsFile, Result result) {
        for (int round = 0; round < plan.rounds(); round++) {
            for (String contender : rotated(LockAnnotationBenchmark.CONTENDERS, round)) {
                measure(redisUri, statsFile, plan, LOCKS, LockAnnotationBenchmark.class, contender, round, result);
            }
            for (String contender : rotated(RateLimitAnnotationBenchmark.CONTENDERS, round)) {
                measure(redisUri, statsFile, plan, RATE_LIMITS, RateLimitAnnotationBenchmark.class, contender, round,
                        result);
            }
        }
    }

    /** The list started {@code round} places further on, so each contender runs at a different point each round. */
    static List<String> rotated(List<String> contenders, int round) {
        List<String> order = new ArrayList<>(contenders.size());
        for (int i = 0; i < contenders.size(); i++) {
            order.add(contenders.get((i + round) % contenders.size()));
        }
        return order;
    }

    /** The costs the trial of {@code contender} appended (the last, should there be several). */
    private static Measurement.Costs costsOf(Path statsFile, String benchmark, String contender) throws IOException {
        Measurement.Costs costs = null;
        for (String line : Files.readAllLines(statsFile)) {
            String[] fields = line.split("\t", -1);
            if (fields.length == 6 && fields[0].equals(benchmark) && fields[1].equals(contender)) {
                costs = new Measurement.Costs(Double.parseDouble(fields[2]), fields[3], Double.parseDouble(fields[4]),
                        Double.parseDouble(fields[5]));
            }
        }
        return costs;
    }

    /** The innermost cause, looking also into what JMH attaches as suppressed (the fork's own exceptions). */
    static String rootCause(Throwable e) {
        Throwable t = e;
        while (true) {
            if (t.getCause() != null && t.getCause() != t) {
                t = t.getCause();
            } else if (t.getSuppressed().length > 0) {
                t = t.getSuppressed()[0];
            } else {
                return t.toString();
            }
        }
    }

    private static void measure(String redisUri, Path statsFile, Plan plan, String benchmark, Class<?> type,
                                String contender, int round, Result result) {
        SpringBenchMain.log("round " + (round + 1) + "/" + plan.rounds() + ", " + benchmark + ": " + contender);
        Options options = new OptionsBuilder()
                .include("^" + Pattern.quote(type.getName()) + "\\.")
                .param("contender", contender)
                .forks(1)
                .warmupIterations(plan.warmupIterations())
                .warmupTime(TimeValue.milliseconds(plan.warmup().toMillis()))
                .measurementIterations(plan.measurementIterations())
                .measurementTime(TimeValue.milliseconds(plan.measurement().toMillis()))
                .jvmArgsAppend("-D" + SpringBenchEnv.REDIS_URI + "=" + redisUri,
                        "-D" + SpringBenchEnv.STATS_FILE + "=" + statsFile)
                .shouldFailOnError(true)
                .timeout(TimeValue.seconds(60))
                .build();
        try {
            Files.writeString(statsFile, "");
            Collection<RunResult> runs = new Runner(options).run();
            Measurement.Costs costs = costsOf(statsFile, benchmark, contender);
            if (runs.isEmpty()) {
                result.anomalies.add(benchmark + ", " + contender + ", round " + (round + 1) + ": no result");
            }
            for (RunResult run : runs) {
                Statistics stats = run.getPrimaryResult().getStatistics();
                result.measurements.add(new Measurement(benchmark, contender, round, stats.getMean(),
                        stats.getPercentile(50), stats.getPercentile(99), stats.getN(), costs));
            }
        } catch (RunnerException | IOException | RuntimeException e) {
            result.anomalies.add(benchmark + ", " + contender + ", round " + (round + 1) + " failed: " + rootCause(e));
        }
    }
}
