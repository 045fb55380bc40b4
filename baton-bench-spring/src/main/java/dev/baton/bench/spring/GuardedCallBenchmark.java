package dev.baton.bench.spring;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The loop both benchmarks share: one thread makes one contender's {@link GuardedCall} back to back in a Spring Boot
 * application of its own ({@link BenchApp}, started per trial), under JMH's sampling of call times; the trial is
 * checked by {@link TrialCheck} at its end. A subclass names its contenders (a JMH {@code @Param}) and builds each
 * one's call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class GuardedCallBenchmark {
    private final String benchmarkName;
    private BenchApp app;
    private GuardedCall call;
    private TrialCheck check;

    /**
     * @param benchmarkName the benchmark's name in the report: {@link SpringBenchRun#LOCKS} or
     *                      {@link SpringBenchRun#RATE_LIMITS}
     */
    protected GuardedCallBenchmark(String benchmarkName) {
        this.benchmarkName = benchmarkName;
    }

    /**
     * The contender this trial measures: the subclass's JMH parameter.
     *
     * @return its name
     */
    protected abstract String contender();

    /**
     * Builds the contender's call on the running application.
     *
     * @param app  the application
     * @param work the work a direct call must do itself
     * @return the call
     */
    abstract GuardedCall callOf(BenchApp app, WorkCounter work);

    /** Starts the application and picks the contender's call. */
    @Setup(Level.Trial)
    public void start() {
        app = BenchApp.start(SpringBenchEnv.redisUri());
        WorkCounter work = app.bean(WorkCounter.class);
        call = callOf(app, work);
        check = new TrialCheck(work, contender(), SpringBenchEnv.redisUri());
    }

    /** Checks that every call ran its work and reached Redis, then stops the application. */
    @TearDown(Level.Trial)
    public void stop() {
        try (TrialCheck closing = check; BenchApp stopping = app) {
            check.verify(benchmarkName, SpringBenchEnv.statsFile());
        }
    }

    /**
     * One guarded call.
     *
     * @throws Exception if the contender fails
     */
    @Benchmark
    public void call() throws Exception {
        call.call();
        check.called();
    }
}
