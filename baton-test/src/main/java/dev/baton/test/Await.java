package dev.baton.test;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Waiting for a topology to reach a state, by polling with a deadline: on a loaded machine nothing happens within a
 * fixed time, so every wait of the kit is a condition checked until it holds or a generous deadline passes.
 */
final class Await {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private Await() {
    }

    /**
     * Polls {@code unmet} until it returns null. It returns a description of what is still missing otherwise; a
     * {@link RuntimeException} it throws (e.g. a node that cannot be reached yet) counts as unmet too.
     *
     * @param goal        what is awaited, for the failure message, e.g. {@code "the cluster to be ready"}
     * @param diagnostics appended to the failure message, e.g. the tail of the relevant logs; only computed then
     * @throws IllegalStateException if the deadline passes (naming the goal, the last unmet condition and the
     *                               diagnostics), or the thread is interrupted (its interrupt flag stays set)
     */
    static void until(String goal, Duration timeout, Supplier<String> unmet, Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String missing;
            try {
                missing = unmet.get();
            } catch (RuntimeException e) {
                missing = e.toString();
            }
            if (missing == null) {
                return;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted while waiting for " + goal + "; last: " + missing);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + goal
                        + "; still: " + missing + diagnostics.get());
            }
            LockSupport.parkNanos(POLL_INTERVAL.toNanos());
        }
    }
}
