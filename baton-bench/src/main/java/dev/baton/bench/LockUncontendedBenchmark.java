package dev.baton.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
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
 * Scenario (a): one thread, one lock, lock() then unlock(), nobody else around. The floor does two PINGs on the
 * same kind of client instead; the target is Baton within 1.2x of it.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class LockUncontendedBenchmark {

    @Param({Contender.PING_FLOOR, Contender.BATON, Contender.REDISSON})
    public String contender;

    private Contender client;
    private Lock lock;

    @Setup(Level.Trial)
    public void open() {
        client = Contender.open(contender, BenchEnv.redisUri());
        lock = client.lock("bench:a:" + contender);
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public void lockUnlock(CommandAccounting accounting) {
        lock.lock();
        lock.unlock();
        accounting.ops.increment();
    }
}
