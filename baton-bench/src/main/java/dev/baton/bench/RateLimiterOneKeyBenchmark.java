package dev.baton.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Scenario (r1): 8 threads share one client and ask one limiter of {@link RateLimiterContender.Rate#ONE_KEY} (1,000
 * per second, burst 1,000) for one permit each, as fast as they can. Far more is asked than the limit grants, so
 * most decisions are refusals: what is measured is the cost of a decision on a hot key, mostly "no", with the
 * grants contending for the same state.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(8)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class RateLimiterOneKeyBenchmark {

    @Param({RateLimiterContender.BATON, RateLimiterContender.BATON_SCRIPT, RateLimiterContender.REDISSON,
            RateLimiterContender.BUCKET4J})
    public String contender;

    private RateLimiterContender client;
    private RateLimiterContender.Limiter limiter;

    @Setup(Level.Trial)
    public void open() {
        client = RateLimiterContender.open(contender, BenchEnv.redisUri());
        limiter = client.limiter("bench:r1:" + contender, RateLimiterContender.Rate.ONE_KEY);
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public boolean tryAcquire(CommandAccounting accounting) {
        boolean allowed = limiter.tryAcquire();
        if (allowed) {
            accounting.acquired.increment();
        }
        accounting.ops.increment();
        return allowed;
    }
}
