package dev.baton.bench.spring;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

/**
 * ShedLock's Spring integration doing the job of {@link BatonLockedCalls#job()}: {@code @SchedulerLock} with a fixed
 * "lock at most for" and nothing to keep after the method returns. ShedLock intercepts any bean method so annotated
 * ({@code EnableSchedulerLock.InterceptMode.PROXY_METHOD}), not only {@code @Scheduled} ones.
 */
public class ShedLockedCalls {
    private final WorkCounter work;

    /**
     * Creates the bean.
     *
     * @param work the work done under the lock
     */
    public ShedLockedCalls(WorkCounter work) {
        this.work = work;
    }

    /** Runs the work if this instance gets the lock, as {@link BatonLockedCalls#job()} does. */
    @SchedulerLock(name = "bench-shedlock", lockAtMostFor = "30s")
    public void job() {
        work.run();
    }
}
