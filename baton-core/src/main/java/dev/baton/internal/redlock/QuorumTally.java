package dev.baton.internal.redlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The replies of one call to every Redlock master, gathered as they arrive, and an outcome decided as soon as it can
 * no longer change: a quorum granted, or so many refused or failed that no quorum can form. A master that is slow
 * (paused, partitioned) therefore never holds up an operation that a majority has already decided; its reply, when it
 * comes, goes to a handler for late replies (say, to release a grant that arrived after the attempt gave up).
 *
 * <p>The deciding function is called under the tally's lock after each reply, so it sees a consistent view; it
 * returns null while undecided and must decide once every master has answered. Thread-safe.
 *
 * @param <T> a master's raw reply
 */
final class QuorumTally<T> {
    private final Object[] replies;
    private final Throwable[] failures;
    private final boolean[] answered;
    private int count;
    private boolean decided;

    private QuorumTally(int masters) {
        this.replies = new Object[masters];
        this.failures = new Throwable[masters];
        this.answered = new boolean[masters];
    }

    /**
     * Gathers {@code calls} (one per master) until {@code decide} returns an outcome.
     *
     * @param decide the outcome from the replies so far, or null while it can still change
     * @param late   told of each reply that arrives after the outcome was decided (master index, reply or null if it
     *               failed); may be null
     */
    static <T, R> CompletableFuture<R> gather(List<CompletableFuture<T>> calls, Function<QuorumTally<T>, R> decide,
                                              BiConsumer<Integer, T> late) {
        QuorumTally<T> tally = new QuorumTally<>(calls.size());
        CompletableFuture<R> outcome = new CompletableFuture<>();
        for (int i = 0; i < calls.size(); i++) {
            int index = i;
            calls.get(i).whenComplete((reply, failure) -> {
                R decision;
                boolean wasDecided;
                synchronized (tally) {
                    wasDecided = tally.decided;
                    if (!wasDecided) {
                        // Frozen once decided: a later reply goes to the late handler alone, never also into the
                        // tally that the outcome's continuation reads (a grant must be undone once, not twice).
                        tally.answered[index] = true;
                        tally.replies[index] = reply;
                        tally.failures[index] = failure;
                        tally.count++;
                    }
                    try {
                        decision = wasDecided ? null : decide.apply(tally);
                    } catch (RuntimeException e) {
                        tally.decided = true;
                        outcome.completeExceptionally(e);
                        return;
                    }
                    if (decision == null && !wasDecided && tally.count == tally.replies.length) {
                        outcome.completeExceptionally(new IllegalStateException("no outcome after every reply"));
                        tally.decided = true;
                        return;
                    }
                    if (decision != null) {
                        tally.decided = true;
                    }
                }
                if (wasDecided) {
                    if (late != null) {
                        late.accept(index, failure == null ? reply : null);
                    }
                } else if (decision != null) {
                    outcome.complete(decision);
                }
            });
        }
        return outcome;
    }

    /** How many masters there are. */
    int masters() {
        return replies.length;
    }

    /** How many masters have answered or failed so far. */
    int answered() {
        return count;
    }

    /** How many masters have not answered yet. */
    int pending() {
        return replies.length - count;
    }

    /** Whether master {@code i} answered (with a reply, not a failure). */
    boolean replied(int i) {
        return answered[i] && failures[i] == null;
    }

    /** Master {@code i}'s reply, or null if it has not replied. */
    @SuppressWarnings("unchecked")
    T reply(int i) {
        return replied(i) ? (T) replies[i] : null;
    }

    /** Master {@code i}'s failure, or null. */
    Throwable failure(int i) {
        return failures[i];
    }

    /** The first failure of any master, or null. */
    Throwable firstFailure() {
        for (Throwable f : failures) {
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /** How many masters failed (unreachable, timed out, refused the call). */
    int failed() {
        int n = 0;
        for (Throwable f : failures) {
            if (f != null) {
                n++;
            }
        }
        return n;
    }
}
