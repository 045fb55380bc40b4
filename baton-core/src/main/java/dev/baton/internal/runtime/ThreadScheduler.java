package dev.baton.internal.runtime;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The {@link Scheduler} of a running Baton: one daemon thread of a {@link ScheduledThreadPoolExecutor}, whose delays
 * are measured on {@link System#nanoTime()}, that is on {@link Ticker#SYSTEM}. Cancelled timers leave its queue at
 * once, so the many short re-check timers of a busy lock do not pile up.
 */
public final class ThreadScheduler implements Scheduler {
    private final ScheduledThreadPoolExecutor executor;

    /** Starts the scheduler's thread, named {@code threadName}. */
    public ThreadScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            return null;
        }
    }

    @Override
    public void scheduleRepeating(Runnable task, long periodNanos) {
        try {
            executor.scheduleWithFixedDelay(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            // nothing repeats on a closed Baton
        }
    }

    @Override
    public int pendingTasks() {
        return executor.getQueue().size();
    }

    @Override
    public void shutdown() {
        executor.shutdownNow();
    }
}
