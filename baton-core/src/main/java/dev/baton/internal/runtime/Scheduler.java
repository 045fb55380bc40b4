package dev.baton.internal.runtime;

import java.util.concurrent.ScheduledFuture;

/**
 * Runs the engine's timers (wait deadlines, re-checks, lease expiries, renewal rounds) on one thread, with delays
 * measured on the runtime's {@link Ticker}. Tasks must not block: the thread serves every timer of one Baton.
 *
 * <p>A running Baton uses {@link ThreadScheduler}; unit tests use a scheduler that runs due tasks when the test moves
 * its fake ticker, so that every timer fires at an exact, repeatable instant and no test sleeps.
 */
public interface Scheduler {
    /**
     * Runs {@code task} once, {@code delayNanos} from now (at once if not positive).
     *
     * @return the handle to cancel it, or null once this scheduler is shut down
     */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos);

    /**
     * Runs {@code task} every {@code periodNanos}, each run starting that long after the previous one ended, until
     * shut down. A task that throws is not run again, so callers catch what a round may throw.
     */
    void scheduleRepeating(Runnable task, long periodNanos);

    /** Tasks waiting to run (repeating ones included); for leak tests. */
    int pendingTasks();

    /** Drops every pending task; later {@link #schedule} calls return null. */
    void shutdown();
}
