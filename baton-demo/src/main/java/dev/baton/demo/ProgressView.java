package dev.baton.demo;

import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;

/**
 * Live progress of a run. On a terminal it rewrites one line in place; otherwise (CI logs, pipes, tests) it prints a
 * plain line at every quarter of the work or every few seconds, so a log stays short and readable.
 */
final class ProgressView {

    private static final long TERMINAL_REFRESH_NANOS = 100_000_000;
    private static final long LOG_INTERVAL_NANOS = 5_000_000_000L;
    /** Beyond this many workers the per-worker counts would not fit on one line. */
    private static final int MAX_WORKERS_SHOWN = 8;

    private final PrintStream out;
    private final boolean terminal;
    private final long total;
    /** Whether the run takes the lock: only then are there acquisitions and fencing tokens to show. */
    private final boolean locked;
    private long lastPrintNanos;
    private long lastPrintedDone = -1;
    private int lastLength;

    ProgressView(PrintStream out, boolean terminal, long total, boolean locked) {
        this.out = out;
        this.terminal = terminal;
        this.total = total;
        this.locked = locked;
        this.lastPrintNanos = System.nanoTime();
    }

    /** Whether {@link System#out} is an interactive terminal, where rewriting a line with {@code \r} works. */
    static boolean stdoutIsTerminal() {
        Console console = System.console();
        if (console == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try {
            // Since Java 22 a Console may exist without a terminal; isTerminal() tells, but is not in Java 17's API.
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException e) {
            return true; // before Java 22, a console exists only on a terminal
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Called often; prints only when it is time to. */
    void update(List<WorkerProcess> workers, long elapsedNanos) {
        long now = System.nanoTime();
        long done = done(workers);
        if (terminal) {
            if (now - lastPrintNanos >= TERMINAL_REFRESH_NANOS) {
                rewrite(line(workers, done, elapsedNanos));
                lastPrintNanos = now;
            }
        } else if (quarter(done) > quarter(lastPrintedDone) || now - lastPrintNanos >= LOG_INTERVAL_NANOS) {
            printLine(workers, done, elapsedNanos, now);
        }
    }

    /** Shows the final state and ends the line, so that what follows starts on a fresh one. */
    void finish(List<WorkerProcess> workers, long elapsedNanos) {
        long done = done(workers);
        if (terminal) {
            rewrite(line(workers, done, elapsedNanos));
            out.println();
        } else if (done != lastPrintedDone) {
            printLine(workers, done, elapsedNanos, System.nanoTime());
        }
        out.flush();
    }

    private void printLine(List<WorkerProcess> workers, long done, long elapsedNanos, long now) {
        out.println(line(workers, done, elapsedNanos));
        lastPrintNanos = now;
        lastPrintedDone = done;
    }

    private void rewrite(String line) {
        // Pad with blanks over the previous text instead of ANSI erase codes, which not every terminal honours.
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    private String line(List<WorkerProcess> workers, long done, long elapsedNanos) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "progress: %d/%d (%3d%%)", done, total,
                total == 0 ? 100 : done * 100 / total));
        if (workers.size() <= MAX_WORKERS_SHOWN) {
            sb.append("  per worker");
            for (WorkerProcess w : workers) {
                sb.append(' ').append(done(w));
            }
        }
        if (locked) {
            long token = workers.stream().mapToLong(WorkerProcess::lastToken).max().orElse(0);
            sb.append(String.format(Locale.ROOT, "  last token %d", token));
        }
        sb.append(String.format(Locale.ROOT, "  %.1f s", elapsedNanos / 1e9));
        return sb.toString();
    }

    private int quarter(long done) {
        return done < 0 || total == 0 ? -1 : (int) (done * 4 / total);
    }

    private long done(List<WorkerProcess> workers) {
        return workers.stream().mapToLong(this::done).sum();
    }

    private int done(WorkerProcess worker) {
        return locked ? worker.acquired() : worker.incremented();
    }
}
