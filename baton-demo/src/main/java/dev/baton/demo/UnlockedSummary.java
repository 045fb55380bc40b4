package dev.baton.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What the run without the lock came to: per worker, the increments it did and the violations the resource caught,
 * then the counter, short of the expected value by the increments lost to overlapping GET/SETs. It shows what the
 * lock buys, so it judges nothing but whether every worker finished it: how much is lost is a matter of timing.
 */
final class UnlockedSummary {

    /**
     * What became of one worker in the run without the lock.
     *
     * @param id         worker number, from 1
     * @param report     its report of the run, empty if it did not get that far
     * @param progress   increments it had reported progress for (a lower bound if it did not finish)
     * @param exitCode   empty while it runs (a worker that finished this run waits for the next)
     * @param outputTail its last stderr lines, for the failure report
     */
    record Outcome(int id, Optional<UnlockedReport> report, int progress, OptionalInt exitCode,
                   List<String> outputTail) {
        static Outcome of(WorkerProcess worker) {
            return new Outcome(worker.id(), worker.unlockedReport(), worker.incremented(), worker.exitCode(),
                    worker.outputTail());
        }

        int increments() {
            return report.map(UnlockedReport::increments).orElse(progress);
        }
    }

    private final DemoOptions options;
    private final List<Outcome> workers;
    private final OptionalLong counter;
    private final Duration elapsed;

    /**
     * @param counter final counter value, empty if it could not be read
     * @param elapsed from releasing the workers to the last report, zero if they were never released
     */
    UnlockedSummary(DemoOptions options, List<Outcome> workers, OptionalLong counter, Duration elapsed) {
        this.options = options;
        this.workers = List.copyOf(workers);
        this.counter = counter;
        this.elapsed = elapsed;
    }

    /** Whether every worker finished the run, so that the run with the lock can follow. */
    boolean completed() {
        return workers.stream().allMatch(w -> w.report().isPresent());
    }

    long increments() {
        return workers.stream().mapToLong(Outcome::increments).sum();
    }

    long violations() {
        return workers.stream().flatMap(w -> w.report().stream()).mapToLong(UnlockedReport::violations).sum();
    }

    void print(PrintStream out) {
        String row = "%6s  %10s  %10s";
        out.println();
        printRow(out, row, "worker", "increments", "violations");
        for (Outcome w : workers) {
            printRow(out, row, w.id(), w.increments(),
                    w.report().map(r -> Integer.toString(r.violations())).orElse("-"));
        }
        printRow(out, row, "total", increments(), violations());
        out.println();
        long expected = options.expectedAcquisitions();
        String verdict;
        if (counter.isEmpty()) {
            verdict = "unreadable";
        } else if (!completed()) {
            verdict = "the run did not complete";
        } else if (counter.getAsLong() < expected) {
            verdict = (expected - counter.getAsLong()) + " increments lost: two workers read the same value and "
                    + "both wrote it plus one";
        } else {
            verdict = "nothing lost this time (the race is a matter of timing; more workers or increments lose "
                    + "more)";
        }
        out.println("final counter:  " + (counter.isPresent() ? Long.toString(counter.getAsLong()) : "unreadable")
                + ", expected " + expected + " (" + options.workers() + " workers x " + options.acquisitions()
                + " increments): " + verdict);
        out.println("violations:     " + violations() + (violations() == 0 ? ""
                : " (increments that found another worker already inside its GET/SET)"));
        if (!elapsed.isZero()) {
            double seconds = elapsed.toNanos() / 1e9;
            out.printf(Locale.ROOT, "elapsed:        %.2f s, %.0f increments/s%n", seconds, increments() / seconds);
        }
        for (Outcome w : workers) {
            if (w.report().isEmpty()) {
                String how = w.exitCode().isEmpty() ? "was still running and was killed"
                        : "died with exit code " + w.exitCode().getAsInt();
                out.println("worker " + w.id() + " " + how + (w.outputTail().isEmpty() ? "" : "; last output:"));
                w.outputTail().forEach(line -> out.println("    " + line));
            }
        }
    }

    private static void printRow(PrintStream out, String format, Object... cells) {
        out.println(String.format(Locale.ROOT, format, cells).stripTrailing());
    }
}
