package dev.baton.bench.spring;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
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
 * One thread takes a free lock, does the work, lets go, again and again: the starter's {@code @DistributedLock}
 * against the same through Baton's API and against ShedLock's {@code @SchedulerLock}, all in one Spring Boot
 * application on one Redis.
 *
 * <ul>
 *   <li>{@value #BATON_DIRECT}: {@code lock.acquire(Duration.ZERO)} (watchdog lease), work, {@code lease.close()};
 *       the lock object made once.</li>
 *   <li>{@value #BATON_ANNOTATED}: {@code @DistributedLock(key = "'bench:lock:' + #id", waitTime = "0")}.</li>
 *   <li>{@value #BATON_DIRECT_JOB}: {@code lock.tryAcquire(Duration.ZERO, 30 s)} (fixed lease), work,
 *       {@code lease.close()}.</li>
 *   <li>{@value #BATON_ANNOTATED_JOB}: {@code @DistributedLock(key = "'bench:job'", waitTime = "0", leaseTime =
 *       "30s", whenNotAcquired = SKIP)}: ShedLock's job.</li>
 *   <li>{@value #SHEDLOCK_DIRECT}: ShedLock's {@code LockProvider.lock(...)} for 30 s, work, {@code unlock()}.</li>
 *   <li>{@value #SHEDLOCK}: {@code @SchedulerLock(name = "bench-shedlock", lockAtMostFor = "30s")}.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class LockAnnotationBenchmark {
    static final String BATON_DIRECT = "baton-direct";
    static final String BATON_ANNOTATED = "baton-annotated";
    static final String BATON_DIRECT_JOB = "baton-direct-job";
    static final String BATON_ANNOTATED_JOB = "baton-annotated-job";
    static final String SHEDLOCK_DIRECT = "shedlock-direct";
    static final String SHEDLOCK = "shedlock";

    /** Every contender, in the order of the report. */
    static final List<String> CONTENDERS = List.of(BATON_DIRECT, BATON_ANNOTATED, BATON_DIRECT_JOB,
            BATON_ANNOTATED_JOB, SHEDLOCK_DIRECT, SHEDLOCK);

    private static final Duration JOB_LEASE = Duration.ofSeconds(30);

    /** Which contender this trial measures. */
    @Param({BATON_DIRECT, BATON_ANNOTATED, BATON_DIRECT_JOB, BATON_ANNOTATED_JOB, SHEDLOCK_DIRECT, SHEDLOCK})
    public String contender;

    private BenchApp app;
    private GuardedCall call;
    private TrialCheck check;

    /** Starts the application and picks the contender's call. */
    @Setup(Level.Trial)
    public void start() {
        app = BenchApp.start(SpringBenchEnv.redisUri());
        WorkCounter work = app.bean(WorkCounter.class);
        call = guardedCall(contender, app, work);
        check = new TrialCheck(work, contender, SpringBenchEnv.redisUri());
    }

    /** Checks that every call ran its work, then stops the application. */
    @TearDown(Level.Trial)
    public void stop() {
        try (TrialCheck closing = check; BenchApp stopping = app) {
            check.verify(SpringBenchRun.LOCKS, SpringBenchEnv.statsFile());
        }
    }

    /**
     * One guarded call.
     *
     * @throws Exception if the contender fails
     */
    @Benchmark
    public void lockWorkUnlock() throws Exception {
        call.call();
        check.called();
    }

    static GuardedCall guardedCall(String contender, BenchApp app, WorkCounter work) {
        switch (contender) {
            case BATON_DIRECT: {
                DistributedLock lock = app.bean(Baton.class).lock("bench:lock:direct");
                return () -> {
                    try (Lease lease = lock.acquire(Duration.ZERO)) {
                        work.run();
                    }
                };
            }
            case BATON_ANNOTATED: {
                BatonLockedCalls calls = app.bean(BatonLockedCalls.class);
                return () -> calls.perKey("annotated");
            }
            case BATON_DIRECT_JOB: {
                DistributedLock lock = app.bean(Baton.class).lock("bench:job:direct");
                return () -> {
                    Optional<Lease> lease = lock.tryAcquire(Duration.ZERO, JOB_LEASE);
                    if (lease.isPresent()) {
                        try (Lease held = lease.get()) {
                            work.run();
                        }
                    }
                };
            }
            case BATON_ANNOTATED_JOB: {
                BatonLockedCalls calls = app.bean(BatonLockedCalls.class);
                return calls::job;
            }
            case SHEDLOCK_DIRECT: {
                LockProvider provider = app.bean(LockProvider.class);
                Clock clock = Clock.systemUTC();
                return () -> {
                    Optional<SimpleLock> lock = provider.lock(new LockConfiguration(clock.instant(),
                            "bench-shedlock-direct", JOB_LEASE, Duration.ZERO));
                    if (lock.isPresent()) {
                        try {
                            work.run();
                        } finally {
                            lock.get().unlock();
                        }
                    }
                };
            }
            case SHEDLOCK: {
                ShedLockedCalls calls = app.bean(ShedLockedCalls.class);
                return calls::job;
            }
            default:
                throw new IllegalArgumentException("contender: unknown lock contender '" + contender
                        + "', expected one of " + CONTENDERS);
        }
    }
}
