package dev.baton.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * All worker processes of one demo: started together, released together by {@code go} (once for the run without the
 * lock, once for the run with it), killed together. Closing it
 * kills whatever is still running, so it is the one thing the demo's cleanup has to close.
 */
final class WorkerFleet implements AutoCloseable {

    private static final long POLL_NANOS = 20_000_000;

    private final List<WorkerProcess> workers;

    private WorkerFleet(List<WorkerProcess> workers) {
        this.workers = workers;
    }

    /** Starts {@code count} workers; if one cannot be started, those already running are killed. */
    static WorkerFleet start(int count, String redisUri, int acquisitions) throws IOException {
        List<WorkerProcess> started = new ArrayList<>();
        try {
            for (int id = 1; id <= count; id++) {
                started.add(WorkerProcess.start(id, redisUri, acquisitions));
            }
        } catch (IOException | RuntimeException e) {
            started.forEach(WorkerProcess::kill);
            throw e;
        }
        return new WorkerFleet(List.copyOf(started));
    }

    List<WorkerProcess> workers() {
        return workers;
    }

    /**
     * Waits until every worker has connected to Redis.
     *
     * @return false if a worker exited first or the deadline ({@link System#nanoTime()}) passed
     */
    boolean awaitReady(long deadlineNanos) {
        while (!workers.stream().allMatch(WorkerProcess::isReady)) {
            if (workers.stream().anyMatch(WorkerProcess::hasExited) || System.nanoTime() - deadlineNanos > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }

    /** Releases all workers into their loops at (nearly) the same instant. */
    void go() throws IOException {
        for (WorkerProcess worker : workers) {
            worker.go();
        }
    }

    /** Whether every worker has reported the run without the lock. */
    boolean allUnlockedReported() {
        return workers.stream().allMatch(w -> w.unlockedReport().isPresent());
    }

    /** Whether a worker exited before it reported the run without the lock: that run cannot complete. */
    boolean anyExitedBeforeUnlockedReport() {
        return workers.stream().anyMatch(w -> w.hasExited() && w.unlockedReport().isEmpty());
    }

    /** {@link System#nanoTime()} at which the last report of the run without the lock arrived, if all did. */
    OptionalLong lastUnlockedReportNanos() {
        if (!allUnlockedReported()) {
            return OptionalLong.empty();
        }
        return workers.stream().mapToLong(WorkerProcess::unlockedReportNanos).max();
    }

    boolean allFinished() {
        return workers.stream().allMatch(WorkerProcess::isFinished);
    }

    /**
     * Waits up to {@code maxNanos} until the last output of every worker that has exited has been read; workers still
     * running are not waited for.
     */
    void awaitExitedDrained(long maxNanos) {
        long deadline = System.nanoTime() + maxNanos;
        while (workers.stream().anyMatch(w -> w.hasExited() && !w.isFinished())
                && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** {@link System#nanoTime()} at which the last report arrived, empty if a worker has not reported. */
    OptionalLong lastReportNanos() {
        if (!workers.stream().allMatch(w -> w.report().isPresent())) {
            return OptionalLong.empty();
        }
        return workers.stream().mapToLong(WorkerProcess::reportNanos).max();
    }

    /** Kills every worker still running. Idempotent. */
    @Override
    public void close() {
        workers.forEach(WorkerProcess::kill);
    }
}
