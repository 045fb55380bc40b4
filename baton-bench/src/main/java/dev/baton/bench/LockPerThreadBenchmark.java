package dev.baton.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Scenario (b): 8 threads share one client, each locks and unlocks a lock of its own, so nobody ever waits for a
 * lock; what is measured is how well the client carries concurrent lock traffic. Target: Baton at least 3x
 * Redisson's throughput.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(8)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class LockPerThreadBenchmark {

    @Param({Contender.PING_FLOOR, Contender.WRITING_SCRIPT_FLOOR, Contender.SETNX_FLOOR, Contender.BATON,
            Contender.REDISSON})
    public String contender;

    private final AtomicInteger nextId = new AtomicInteger();
    private Contender client;

    @Setup(Level.Trial)
    public void open() {
        client = Contender.open(contender, BenchEnv.redisUri());
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    /** The lock of one benchmark thread. */
    @State(Scope.Thread)
    public static class OwnLock {
        Lock lock;

        @Setup(Level.Trial)
        public void pick(LockPerThreadBenchmark shared) {
            lock = shared.client.lock("bench:b:" + shared.contender + ":" + shared.nextId.incrementAndGet());
        }
    }

    @Benchmark
    public void lockUnlock(OwnLock own, CommandAccounting accounting) {
        own.lock.lock();
        own.lock.unlock();
        accounting.ops.increment();
    }
}
