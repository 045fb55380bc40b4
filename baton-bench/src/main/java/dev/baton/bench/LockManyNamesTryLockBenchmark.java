package dev.baton.bench;

import java.util.concurrent.ThreadLocalRandom;
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
 * Scenario (d): 16 threads share one client and pick one of 1000 lock names at random; one operation is a single
 * {@code tryLock(0, ms)} attempt, followed by {@code unlock()} when it acquired. Target: Baton at least 3x
 * Redisson's throughput.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(16)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class LockManyNamesTryLockBenchmark {
    static final int NAMES = 1000;

    @Param({Contender.PING_FLOOR, Contender.WRITING_SCRIPT_FLOOR, Contender.SETNX_FLOOR, Contender.BATON,
            Contender.REDISSON})
    public String contender;

    private Contender client;
    private Lock[] locks;

    @Setup(Level.Trial)
    public void open() {
        client = Contender.open(contender, BenchEnv.redisUri());
        locks = new Lock[NAMES];
        for (int i = 0; i < NAMES; i++) {
            locks[i] = client.lock("bench:d:" + contender + ":" + i);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public boolean tryLockZero(CommandAccounting accounting) throws InterruptedException {
        Lock lock = locks[ThreadLocalRandom.current().nextInt(NAMES)];
        boolean acquired = lock.tryLock(0, TimeUnit.MILLISECONDS);
        if (acquired) {
            lock.unlock();
            accounting.acquired.increment();
        }
        accounting.ops.increment();
        return acquired;
    }
}
