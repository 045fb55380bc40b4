package dev.baton.bench.spring;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The work every guarded method and every direct call does while it holds the lock or the permit: it counts itself.
 * The count lets a benchmark prove afterwards that every call really ran, since a lock that was not acquired is
 * skipped silently by ShedLock (and by {@code @DistributedLock} with {@code whenNotAcquired = SKIP}), and a skipped
 * call costs less than a guarded one. Thread-safe.
 */
public class WorkCounter {
    private final AtomicLong runs = new AtomicLong();

    /** Does the unit of work: counts one run. */
    public void run() {
        runs.incrementAndGet();
    }

    /**
     * How many times {@link #run()} was called.
     *
     * @return the count since the application started
     */
    public long runs() {
        return runs.get();
    }
}
