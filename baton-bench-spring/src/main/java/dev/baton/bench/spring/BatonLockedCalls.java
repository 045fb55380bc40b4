package dev.baton.bench.spring;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.WhenNotAcquired;

/**
 * The starter's {@link DistributedLock} as applications write it, around {@link WorkCounter#run()}. Called by one
 * thread at a time in the benchmark, so every lock is free when asked for.
 */
public class BatonLockedCalls {
    private final WorkCounter work;

    /**
     * Creates the bean.
     *
     * @param work the work done under the lock
     */
    public BatonLockedCalls(WorkCounter work) {
        this.work = work;
    }

    /**
     * The common case: a lock per business key taken from an argument, held with the watchdog; one attempt.
     *
     * @param id the key the lock's name is made of
     */
    @DistributedLock(key = "'bench:lock:' + #id", waitTime = "0")
    public void perKey(String id) {
        work.run();
    }

    /**
     * ShedLock's case: a constant name, a fixed lease, skipped (not thrown) when another instance holds it.
     */
    @DistributedLock(key = "'bench:job'", waitTime = "0", leaseTime = "30s", whenNotAcquired = WhenNotAcquired.SKIP)
    public void job() {
        work.run();
    }
}
