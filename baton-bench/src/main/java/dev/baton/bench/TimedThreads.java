package dev.baton.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs a set of named threads, each repeating one operation, for a timed window, and measures what the window cost:
 * operations, Redis commands ({@code CONFIG RESETSTAT} before, {@code INFO commandstats} after), and the CPU of this
 * JVM and of the Redis server. The threads start together on a latch after the statistics were reset; when the
 * window ends they finish the operation they are in and stop. Commands and CPU are counted until every thread
 * stopped, so they are divided by the operations completed by then ({@link Outcome#opsAtEnd}), while rates use the
 * operations completed within the window ({@link Outcome#opsAtStop}).
 *
 * <p>An operation that throws is counted as an error (the first few are kept with their stack traces) and the
 * thread goes on after 1 ms. A thread still running {@value #JOIN_SECONDS} s after the window is reported as stuck,
 * with its stack, and the command statistics of that window are not read (they would mix with what the stuck thread
 * does next).
 */
final class TimedThreads {
    private static final long JOIN_SECONDS = 30;
    private static final int KEPT_ERRORS = 3;

    /** One operation of one thread; called again and again until the window ends. */
    interface Operation {
        void run() throws Exception;
    }

    /** What one window saw. */
    static final class Outcome {
        double seconds;
        /** Operations completed within the window, by the caller's counter. */
        long opsAtStop;
        /** Operations completed until every thread stopped: the span of {@link #stats} and the CPU figures. */
        long opsAtEnd;
        CommandStats stats = CommandStats.empty();
        /** CPU time of this whole JVM over the span, in ns. */
        long clientCpuNanos;
        /** CPU time of the Redis processes over the span, in ns, or -1 if not measured. */
        long redisCpuNanos = -1;
        /** {@link System#nanoTime()} when the window ended: operations that finish later ran after the stop. */
        long stoppedAt;
        long errorCount;
        final List<String> errors = new ArrayList<>();
        final List<String> stuckThreads = new ArrayList<>();

        double perSecond() {
            return opsAtStop / seconds;
        }

        double clientCpuMicrosPerOp() {
            return opsAtEnd == 0 ? Double.NaN : clientCpuNanos / 1000.0 / opsAtEnd;
        }

        double redisCpuMicrosPerOp() {
            return opsAtEnd == 0 || redisCpuNanos < 0 ? Double.NaN : redisCpuNanos / 1000.0 / opsAtEnd;
        }
    }

    private TimedThreads() {
    }

    /**
     * Runs each operation of {@code threads} (thread name to operation) in a loop of its own for {@code duration}.
     *
     * @param ops       operations completed so far, as the operations count them
     * @param admin     where to reset and read the command statistics, or null not to
     * @param redisPids the processes whose CPU counts as Redis's (empty: not measured)
     */
    static Outcome run(Map<String, Operation> threads, LongSupplier ops, Duration duration, RedisAdmin admin,
                       List<Long> redisPids) {
        Outcome outcome = new Outcome();
        CountDownLatch start = new CountDownLatch(1);
        Stopper stopper = new Stopper();
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        long[] errorCount = new long[1];
        List<Thread> started = new ArrayList<>();
        for (Map.Entry<String, Operation> entry : threads.entrySet()) {
            Operation operation = entry.getValue();
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                while (!stopper.stop) {
                    try {
                        operation.run();
                    } catch (Exception | AssertionError e) {
                        synchronized (errorCount) {
                            if (++errorCount[0] <= KEPT_ERRORS) {
                                errors.add(Thread.currentThread().getName() + ": " + HandoffScenario.stackTrace(e));
                            }
                        }
                        if (e instanceof InterruptedException) {
                            return;
                        }
                        sleepQuietly(1);
                    }
                }
            }, entry.getKey());
            thread.setDaemon(true);
            started.add(thread);
            thread.start();
        }

        if (admin != null) {
            admin.resetStats();
        }
        long clientCpu = ConcurrentCrossCheck.clientCpuNanos();
        long redisCpu = ConcurrentCrossCheck.redisCpuNanos(redisPids);
        long begin = System.nanoTime();
        start.countDown();
        sleepQuietly(duration.toMillis());
        stopper.stop = true;
        outcome.stoppedAt = System.nanoTime();
        outcome.opsAtStop = ops.getAsLong();
        outcome.seconds = (outcome.stoppedAt - begin) / 1e9;

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_SECONDS);
        for (Thread thread : started) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                outcome.stuckThreads.add(thread.getName() + " did not stop within " + JOIN_SECONDS + " s:\n"
                        + frames(thread.getStackTrace()));
            }
        }
        outcome.opsAtEnd = ops.getAsLong();
        outcome.clientCpuNanos = ConcurrentCrossCheck.clientCpuNanos() - clientCpu;
        long redisAfter = ConcurrentCrossCheck.redisCpuNanos(redisPids);
        outcome.redisCpuNanos = redisCpu < 0 || redisAfter < 0 ? -1 : redisAfter - redisCpu;
        if (admin != null && outcome.stuckThreads.isEmpty()) {
            outcome.stats = admin.commandStats();
        }
        synchronized (errorCount) {
            outcome.errorCount = errorCount[0];
            outcome.errors.addAll(errors);
        }
        return outcome;
    }

    private static final class Stopper {
        volatile boolean stop;
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String frames(StackTraceElement[] frames) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(frames.length, 25); i++) {
            out.append("\tat ").append(frames[i]).append('\n');
        }
        return out.toString();
    }
}
