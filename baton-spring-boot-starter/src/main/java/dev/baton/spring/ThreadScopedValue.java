package dev.baton.spring;

import java.util.Objects;

/**
 * A value current on one thread for a span of code, spans nesting: opening makes a value current and remembers the
 * one before; closing the span makes that one current again. What {@link LockContext} (the lease of a
 * {@code @DistributedLock} method) and {@link LeadershipContext} (the leadership of a {@code @LeaderOnly} method) both
 * are; each keeps its own public {@code Scope} type (part of the starter's API) around the {@link Span} opened here.
 * Thread-safe: the state is per thread; a span belongs to the thread that opened it.
 *
 * @param <T> the value's type
 */
final class ThreadScopedValue<T> {
    private final ThreadLocal<T> current = new ThreadLocal<>();

    /** The innermost value current on this thread, or null. */
    T get() {
        return current.get();
    }

    /** Makes {@code value} current on this thread until the span is closed. */
    Span open(T value, String name) {
        Objects.requireNonNull(value, name);
        Span span = new Span(current.get());
        current.set(value);
        return span;
    }

    /** One span: closing it (once; later calls do nothing) makes the value current before it current again. */
    final class Span {
        private final T previous;
        private boolean closed;

        private Span(T previous) {
            this.previous = previous;
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (previous == null) {
                current.remove();
            } else {
                current.set(previous);
            }
        }
    }
}
