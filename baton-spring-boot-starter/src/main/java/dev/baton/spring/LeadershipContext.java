package dev.baton.spring;

import dev.baton.Leadership;
import java.util.Optional;

/**
 * The leadership a {@link LeaderOnly} method is running under, for code inside that method (on its thread): hand its
 * epoch to the resource the leader writes to, so that the resource can refuse a former leader that still runs after
 * its leadership ended.
 *
 * <p>Nested {@code @LeaderOnly} methods see the innermost one's leadership; once a method returns, the enclosing
 * one's is current again. Thread-safe: the state is per thread.
 */
public final class LeadershipContext {

    private static final ThreadScopedValue<Leadership> CURRENT = new ThreadScopedValue<>();

    private LeadershipContext() {
    }

    /**
     * The leadership of the innermost {@link LeaderOnly} method running on this thread. It may have ended since the
     * method started ({@link Leadership#isValid()} says).
     *
     * @return the leadership, or empty outside such a method
     */
    public static Optional<Leadership> currentLeadership() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * The epoch of the innermost {@link LeaderOnly} method's leadership on this thread.
     *
     * @return the epoch ({@link Leadership#epoch()})
     * @throws IllegalStateException outside such a method
     */
    public static long currentEpoch() {
        Leadership leadership = CURRENT.get();
        if (leadership == null) {
            throw new IllegalStateException("no @LeaderOnly method is running on this thread");
        }
        return leadership.epoch();
    }

    /**
     * Makes a leadership current on this thread until the returned scope is closed, which makes the one current
     * before current again. The starter's {@code @LeaderOnly} interceptor uses it around each method; code that won a
     * leadership itself may too. Scopes must be closed in the reverse order of opening, on the thread that opened them
     * (try-with-resources).
     *
     * @param leadership the leadership the code runs under
     * @return the scope to close when that code is done
     * @throws NullPointerException if {@code leadership} is null
     */
    public static Scope open(Leadership leadership) {
        return new Scope(CURRENT.open(leadership, "leadership"));
    }

    /**
     * The span of code during which a leadership is current, from {@link #open(Leadership)} to {@link #close()}. Not
     * thread-safe: it belongs to the thread that opened it.
     */
    public static final class Scope implements AutoCloseable {
        private final ThreadScopedValue<Leadership>.Span span;

        private Scope(ThreadScopedValue<Leadership>.Span span) {
            this.span = span;
        }

        /** Makes the leadership current before {@link #open(Leadership)} current again; a second call does nothing. */
        @Override
        public void close() {
            span.close();
        }
    }
}
