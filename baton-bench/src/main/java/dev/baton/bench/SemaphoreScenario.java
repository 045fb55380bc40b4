package dev.baton.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Workload (s): one semaphore of {@value #PERMITS} permits, 8 threads over 4 clients (2 each), each acquiring one
 * permit and releasing it again and again, so that half the threads wait at any moment. Measured: acquisitions per
 * second and the time each {@code acquire()} took. A counter raised and lowered while a permit is held checks that
 * never more than {@value #PERMITS} holders are inside at once.
 */
final class SemaphoreScenario {
    static final int CLIENTS = 4;
    static final int THREADS_PER_CLIENT = 2;
    static final int PERMITS = 4;
    static final String ACQUIRE = "acquire()";

    private SemaphoreScenario() {
    }

    static FamilyRound run(FamilyRound round, List<FamilyContender> clients, String name, Duration warmup,
                           Duration measure, RedisAdmin admin, List<Long> redisPids) {
        FamilyContender.Semaphore[] semaphores = new FamilyContender.Semaphore[CLIENTS];
        for (int c = 0; c < CLIENTS; c++) {
            semaphores[c] = clients.get(c).semaphore(name, PERMITS);
        }
        AtomicLong acquisitions = new AtomicLong();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        Samples waits = new Samples(1 << 21);

        Map<String, TimedThreads.Operation> threads = new LinkedHashMap<>();
        for (int t = 0; t < CLIENTS * THREADS_PER_CLIENT; t++) {
            FamilyContender.Semaphore semaphore = semaphores[t / THREADS_PER_CLIENT];
            threads.put("sem-" + round.contender + "-c" + (t / THREADS_PER_CLIENT) + "-t" + t, () -> {
                long called = System.nanoTime();
                FamilyContender.Permit permit = semaphore.acquire();
                long acquired = System.nanoTime();
                int now = inside.incrementAndGet();
                if (now > PERMITS) {
                    violations.incrementAndGet();
                }
                maxInside.accumulateAndGet(now, Math::max);
                inside.decrementAndGet();
                permit.release();
                waits.add(acquired - called);
                acquisitions.incrementAndGet();
            });
        }

        TimedThreads.Outcome outcome = FamilyWorkload.warmThenMeasure(round, threads, acquisitions::get, () -> {
            acquisitions.set(0);
            violations.set(0);
            maxInside.set(0);
            waits.reset();
        }, warmup, measure, admin, redisPids);
        round.exclusionViolations = violations.get();
        round.maxInside = maxInside.get();
        if (outcome == null) {
            return round;
        }
        round.ops = outcome.opsAtStop;
        round.latencies.put(ACQUIRE, waits.toArray());
        return round;
    }
}
