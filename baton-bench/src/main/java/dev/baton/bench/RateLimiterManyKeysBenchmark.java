package dev.baton.bench;

import java.util.concurrent.ThreadLocalRandom;
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
 * Scenario (r2): 8 threads share one client; every call picks one of 10,000 limiters (distinct names) at random and
 * asks it for one permit. Each limiter allows {@link RateLimiterContender.Rate#PER_KEY} (100 per second, burst 100),
 * far more than the few calls per second a single name gets here, so nearly every decision is a grant: the
 * per-customer limiter of a busy service, with its state spread over many keys. ({@code --smoke} sets fewer
 * limiters through the {@link #keys} parameter: the smoke test's Redisson would spend most of its time setting up
 * 10,000.)
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(8)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class RateLimiterManyKeysBenchmark {
    static final int KEYS = 10_000;
    /** The name of the {@link #keys} parameter. */
    static final String KEYS_PARAM = "keys";

    /** How many limiters: {@link #KEYS} but in {@code --smoke} runs. */
    @Param("" + KEYS)
    public int keys;

    @Param({RateLimiterContender.BATON, RateLimiterContender.BATON_SCRIPT, RateLimiterContender.REDISSON,
            RateLimiterContender.BUCKET4J})
    public String contender;

    private RateLimiterContender client;
    private RateLimiterContender.Limiter[] limiters;

    @Setup(Level.Trial)
    public void open() {
        client = RateLimiterContender.open(contender, BenchEnv.redisUri());
        limiters = new RateLimiterContender.Limiter[keys];
        for (int i = 0; i < keys; i++) {
            limiters[i] = client.limiter("bench:r2:" + contender + ":" + i, RateLimiterContender.Rate.PER_KEY);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public boolean tryAcquire(CommandAccounting accounting) {
        boolean allowed = limiters[ThreadLocalRandom.current().nextInt(limiters.length)].tryAcquire();
        if (allowed) {
            accounting.acquired.increment();
        }
        accounting.ops.increment();
        return allowed;
    }
}
