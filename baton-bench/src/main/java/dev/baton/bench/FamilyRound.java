package dev.baton.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one measured round of one lock-family workload saw for one contender: the operations, the Redis commands and
 * CPU they cost, the latencies the workload records, and everything that went wrong. Filled in by
 * {@link FamilyWorkload}.
 */
final class FamilyRound {
    final FamilyWorkload workload;
    final String contender;
    /** Why the contender could not run this workload (a Baton primitive not built yet), or null. */
    String notBuilt;
    double seconds;
    /** The workload's main operations within the timed window: acquisitions, or read acquisitions. */
    long ops;
    /** Writes within the window (read-write lock only). */
    long writes;
    /** Every operation (reads and writes) until the threads stopped: what commands and CPU are divided by. */
    long opsForCommands;
    CommandStats stats = CommandStats.empty();
    long clientCpuNanos;
    long redisCpuNanos = -1;
    /** Named latency samples in ns, e.g. the writer's wait. */
    final Map<String, long[]> latencies = new LinkedHashMap<>();
    /** Writer waits that ended after the window closed, so after the readers stopped (read-write lock only). */
    long lateWaits;
    /** Most holders seen inside at once (semaphore only). */
    int maxInside;
    long exclusionViolations;
    long errorCount;
    final List<String> errors = new ArrayList<>();
    final List<String> stuckThreads = new ArrayList<>();
    /** The handoff accounting of a fair-lock round, or null. */
    HandoffScenario.Round handoff;

    FamilyRound(FamilyWorkload workload, String contender) {
        this.workload = workload;
        this.contender = contender;
    }

    double perSecond() {
        return ops / seconds;
    }

    double writesPerSecond() {
        return writes / seconds;
    }

    boolean measured() {
        return notBuilt == null && stuckThreads.isEmpty() && seconds > 0;
    }

    double clientCpuMicrosPerOp() {
        return opsForCommands == 0 ? Double.NaN : clientCpuNanos / 1000.0 / opsForCommands;
    }

    double redisCpuMicrosPerOp() {
        return opsForCommands == 0 || redisCpuNanos < 0 ? Double.NaN : redisCpuNanos / 1000.0 / opsForCommands;
    }

    /** Copies what the timed runner measured. */
    void take(TimedThreads.Outcome outcome) {
        seconds = outcome.seconds;
        opsForCommands = outcome.opsAtEnd;
        stats = outcome.stats;
        clientCpuNanos = outcome.clientCpuNanos;
        redisCpuNanos = outcome.redisCpuNanos;
        errorCount += outcome.errorCount;
        errors.addAll(outcome.errors);
        stuckThreads.addAll(outcome.stuckThreads);
    }
}
