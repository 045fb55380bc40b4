package dev.baton.internal.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} for unit tests: nothing runs until the test calls {@link #advance} (or {@link #runDue}), which
 * moves the {@link FakeTicker} from one due task to the next and runs each on the test's thread at its own instant.
 * So a test states a timeline ("31 s later the lease is lost") and nothing in it sleeps or races.
 */
public final class ManualScheduler implements Scheduler {
    private final FakeTicker ticker;
    private final List<Task> tasks = new ArrayList<>();
    private long sequence;
    private boolean shutDown;

    public ManualScheduler(FakeTicker ticker) {
        this.ticker = ticker;
    }

    public FakeTicker ticker() {
        return ticker;
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return shutDown ? null : add(task, Math.max(0, delayNanos), 0);
    }

    @Override
    public synchronized void scheduleRepeating(Runnable task, long periodNanos) {
        if (!shutDown) {
            add(task, periodNanos, periodNanos);
        }
    }

    @Override
    public synchronized int pendingTasks() {
        return tasks.size();
    }

    @Override
    public synchronized void shutdown() {
        shutDown = true;
        tasks.clear();
    }

    /** Runs every task due now, including those that they schedule for now. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /**
     * Moves the ticker on by {@code by}, stopping at each task that falls due on the way (in order of due time, then
     * of scheduling) to run it; a repeating task is due again one period after its run.
     */
    public void advance(Duration by) {
        long target = ticker.nanos() + by.toNanos();
        while (true) {
            Task next = nextDueBy(target);
            if (next == null) {
                break;
            }
            ticker.set(next.due);
            next.task.run();
            synchronized (this) {
                next.ran = true;
                if (next.period > 0 && !next.cancelled && !shutDown) {
                    next.due = ticker.nanos() + next.period;
                    next.order = sequence++;
                    tasks.add(next);
                }
            }
        }
        ticker.set(target);
    }

    /**
     * A pause of the whole process ({@code SIGSTOP}, a long GC): the ticker jumps on by {@code by} while nothing runs,
     * then every task that fell due meanwhile runs once, late, at the new instant (a repeating one is next due one
     * period after that run).
     */
    public void pause(Duration by) {
        long target = ticker.nanos() + by.toNanos();
        ticker.set(target);
        while (true) {
            Task next = nextDueBy(target);
            if (next == null) {
                return;
            }
            next.task.run();
            synchronized (this) {
                next.ran = true;
                if (next.period > 0 && !next.cancelled && !shutDown) {
                    next.due = ticker.nanos() + next.period;
                    next.order = sequence++;
                    tasks.add(next);
                }
            }
        }
    }

    /** When the next task is due, from now; null if none is pending. */
    public synchronized Duration nextDue() {
        Task first = earliest();
        return first == null ? null : Duration.ofNanos(Math.max(0, first.due - ticker.nanos()));
    }

    private synchronized Task nextDueBy(long target) {
        Task first = earliest();
        if (first == null || first.due - target > 0) {
            return null;
        }
        tasks.remove(first);
        return first;
    }

    private Task earliest() {
        Task first = null;
        for (Task t : tasks) {
            // Readings are compared as differences: the fake ticker starts just before a long wraps.
            if (first == null || t.due - first.due < 0 || (t.due == first.due && t.order < first.order)) {
                first = t;
            }
        }
        return first;
    }

    private Task add(Runnable task, long delayNanos, long periodNanos) {
        Task t = new Task(task, ticker.nanos() + delayNanos, periodNanos, sequence++);
        tasks.add(t);
        return t;
    }

    private final class Task implements ScheduledFuture<Object> {
        final Runnable task;
        final long period;
        long due;
        long order;
        boolean cancelled;
        boolean ran;

        Task(Runnable task, long due, long period, long order) {
            this.task = task;
            this.due = due;
            this.period = period;
            this.order = order;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (ManualScheduler.this) {
                if (cancelled || (ran && period == 0)) {
                    return false;
                }
                cancelled = true;
                tasks.remove(this);
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (ManualScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (ManualScheduler.this) {
                return cancelled || (ran && period == 0);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - ticker.nanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("nothing waits for a timer of the manual scheduler");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("nothing waits for a timer of the manual scheduler");
        }
    }
}
