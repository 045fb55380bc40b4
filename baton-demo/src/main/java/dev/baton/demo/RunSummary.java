package dev.baton.demo;

import dev.baton.LockInfo;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The verdict of the run with the lock: a table per worker, then the checks that matter, and a legend of the columns
 * of both runs ({@link UnlockedSummary} is the run without the lock). The run passes only if every worker
 * completed, the counter equals workers x acquisitions (no increment was lost to a race), no fencing token was
 * rejected, and the resource saw one strictly increasing token per acquisition.
 */
final class RunSummary {

    /**
     * What became of one worker.
     *
     * @param id         worker number, from 1
     * @param report     its final line, empty if it did not get that far
     * @param progress   acquisitions it had reported progress for (a lower bound if it did not complete)
     * @param exitCode   empty if it was still running when the run was given up
     * @param outputTail its last stderr lines, for the failure report
     */
    record WorkerOutcome(int id, Optional<WorkerReport> report, int progress, OptionalInt exitCode,
                         List<String> outputTail) {
        static WorkerOutcome of(WorkerProcess worker) {
            return new WorkerOutcome(worker.id(), worker.report(), worker.acquired(), worker.exitCode(),
                    worker.outputTail());
        }

        /** Acquisitions as reported at the end, or as far as progress went for a worker that did not report. */
        int acquisitions() {
            return report.map(WorkerReport::acquisitions).orElse(progress);
        }

        boolean completed() {
            return report.isPresent() && exitCode.isPresent() && exitCode.getAsInt() == 0;
        }
    }

    /**
     * The reason, from lock-acquire.lua and docs/fencing-tokens.md: taking the clock lets Baton expire the counter of
     * a lock unused for fencingTokenRetention (default a day, which the demo keeps), so it does not keep a counter per
     * lock name forever; the next token, the clock again, is still above every earlier one as long as the Redis
     * clock has not stepped back by that long.
     */
    static final String WHY_TOKENS_ARE_LARGE = "a token is max(last token + 1, the Redis clock in microseconds), so a"
            + " lock's counter may expire after a day unused and tokens still keep increasing";

    /** What each column and line of the two summaries means, printed once before the result. */
    static final String LEGEND = """
            what the columns mean:
              worker        a worker process (a JVM of its own), numbered from 1
              increments    unsafe GET/SET increments of the shared counter, without the lock (first run)
              acquisitions  times the worker took the lock, incremented the counter and released it (second run)
              first token   the fencing token of its first acquisition: Baton issues them strictly increasing, so a
                            resource can refuse a holder whose lease has run out (a stale token)
              last token    the fencing token of its last acquisition
              violations    accesses the resource caught as unsafe: another worker inside its GET/SET at the same
                            time, or (second run) a fencing token not above the highest it had seen
              exit          the worker's exit code: 0 when it completed, killed if it was still running when the
                            run was given up
              final counter what the counter reads after the run: each increment lost to a race leaves it short
                            of workers x increments
            """;

    private final DemoOptions options;
    private final List<WorkerOutcome> workers;
    private final OptionalLong counter;
    private final List<Long> tokenLog;
    private final Duration elapsed;
    private final Optional<LockInfo> lockAfterRun;

    /**
     * @param counter      final counter value, empty if it could not be read
     * @param tokenLog     tokens in the order the resource saw them
     * @param elapsed      from releasing the workers to the last one finishing
     * @param lockAfterRun what {@code Baton.inspect} says about the lock afterwards, if it could be asked
     */
    RunSummary(DemoOptions options, List<WorkerOutcome> workers, OptionalLong counter, List<Long> tokenLog,
               Duration elapsed, Optional<LockInfo> lockAfterRun) {
        this.options = options;
        this.workers = List.copyOf(workers);
        this.counter = counter;
        this.tokenLog = List.copyOf(tokenLog);
        this.elapsed = elapsed;
        this.lockAfterRun = lockAfterRun;
    }

    long acquisitions() {
        return workers.stream().mapToLong(WorkerOutcome::acquisitions).sum();
    }

    private boolean allCompleted() {
        return workers.stream().allMatch(WorkerOutcome::completed);
    }

    long violations() {
        return workers.stream().flatMap(w -> w.report().stream()).mapToLong(WorkerReport::violations).sum();
    }

    boolean counterMatches() {
        return counter.isPresent() && counter.getAsLong() == options.expectedAcquisitions();
    }

    /** Index of the first token not above its predecessor in the resource's log, or -1 if there is none. */
    int firstTokenDrop() {
        for (int i = 1; i < tokenLog.size(); i++) {
            if (tokenLog.get(i) <= tokenLog.get(i - 1)) {
                return i;
            }
        }
        return -1;
    }

    boolean passed() {
        return allCompleted()
                && acquisitions() == options.expectedAcquisitions()
                && counterMatches()
                && violations() == 0
                && tokenLog.size() == acquisitions()
                && firstTokenDrop() < 0;
    }

    void print(PrintStream out) {
        // Tokens start from the Redis clock in microseconds (16 digits), so their columns are sized to fit them.
        int tokenWidth = Math.max(11, Long.toString(tokenLog.stream().mapToLong(Long::longValue).max().orElse(0))
                .length());
        String row = "%6s  %12s  %" + tokenWidth + "s  %" + tokenWidth + "s  %10s  %5s";
        out.println();
        printRow(out, row, "worker", "acquisitions", "first token", "last token", "violations", "exit");
        for (WorkerOutcome w : workers) {
            Optional<WorkerReport> r = w.report();
            printRow(out, row, w.id(),
                    w.acquisitions(),
                    r.map(x -> Long.toString(x.firstToken())).orElse("-"),
                    r.map(x -> Long.toString(x.lastToken())).orElse("-"),
                    r.map(x -> Integer.toString(x.violations())).orElse("-"),
                    w.exitCode().isPresent() ? Integer.toString(w.exitCode().getAsInt()) : "killed");
        }
        printRow(out, row, "total", acquisitions(), "", "", violations(), "");
        out.println();
        out.println("fencing tokens: " + describeTokens());
        if (!tokenLog.isEmpty()) {
            out.println("why so large:   " + WHY_TOKENS_ARE_LARGE);
        }
        out.println("final counter:  " + (counter.isPresent() ? Long.toString(counter.getAsLong()) : "unreadable")
                + ", expected " + options.expectedAcquisitions() + " (" + options.workers() + " workers x "
                + options.acquisitions() + " acquisitions): " + (counterMatches() ? "OK" : "MISMATCH"));
        out.println("violations:     " + violations() + (violations() == 0 ? ""
                : " (the resource caught two holders at once, or rejected a stale fencing token)"));
        if (elapsed.isZero()) {
            out.println("elapsed:        - (the workers were never released)");
        } else {
            double seconds = elapsed.toNanos() / 1e9;
            out.printf(Locale.ROOT, "elapsed:        %.2f s, %.0f acquisitions/s%n", seconds, acquisitions() / seconds);
        }
        lockAfterRun.ifPresent(info -> out.println("lock after run: " + info.holder()
                .map(h -> "held by pid " + h.pid() + " (thread " + h.thread() + "), lease ends in "
                        + h.remainingLease().toMillis() + " ms")
                .orElse("free") + ", last fencing token issued " + info.lastFencingToken()));
        for (WorkerOutcome w : workers) {
            if (!w.completed()) {
                printFailure(out, w);
            } else if (!w.outputTail().isEmpty()) {
                // A worker's stderr holds its log warnings (a failed renewal, a reconnect): worth showing even when
                // it completed.
                out.println("worker " + w.id() + " completed; last output:");
                w.outputTail().forEach(line -> out.println("    " + line));
            }
        }
        out.println();
        out.print(LEGEND);
        out.println("result:         " + (passed() ? "PASS" : "FAIL"));
    }

    private static void printRow(PrintStream out, String format, Object... cells) {
        out.println(String.format(Locale.ROOT, format, cells).stripTrailing());
    }

    private String describeTokens() {
        if (tokenLog.isEmpty()) {
            return "none seen by the resource";
        }
        long min = tokenLog.stream().mapToLong(Long::longValue).min().orElseThrow();
        long max = tokenLog.stream().mapToLong(Long::longValue).max().orElseThrow();
        int drop = firstTokenDrop();
        String order = drop < 0 ? "yes"
                : "NO (position " + drop + ": " + tokenLog.get(drop) + " after " + tokenLog.get(drop - 1) + ")";
        // Unfinished workers report progress only every few acquisitions, so their counts cannot be compared.
        String count = tokenLog.size() == acquisitions() || !allCompleted() ? ""
                : " (but " + acquisitions() + " acquisitions were reported)";
        return tokenLog.size() + " seen by the resource" + count + ", min " + min + ", max " + max
                + ", strictly increasing in acquisition order: " + order;
    }

    private static void printFailure(PrintStream out, WorkerOutcome w) {
        String how = w.exitCode().isEmpty() ? "was still running and was killed"
                : w.report().isEmpty() ? "died with exit code " + w.exitCode().getAsInt()
                : "exited with code " + w.exitCode().getAsInt();
        out.println("worker " + w.id() + " " + how + (w.outputTail().isEmpty() ? "" : "; last output:"));
        w.outputTail().forEach(line -> out.println("    " + line));
    }
}
