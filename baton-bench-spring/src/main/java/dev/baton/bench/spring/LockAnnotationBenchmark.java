package dev.baton.bench.spring;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.Param;

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
public class LockAnnotationBenchmark extends GuardedCallBenchmark {
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

    /** The benchmark, for JMH. */
    public LockAnnotationBenchmark() {
        super(SpringBenchRun.LOCKS);
    }

    @Override
    protected String contender() {
        return contender;
    }

    @Override
    GuardedCall callOf(BenchApp app, WorkCounter work) {
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
