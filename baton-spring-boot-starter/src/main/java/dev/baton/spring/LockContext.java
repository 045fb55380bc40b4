package dev.baton.spring;

import dev.baton.Lease;

import java.util.Optional;

/**
 * The lock a {@link DistributedLock} method is running under, for code inside that method (on its thread): pass the
 * fencing token to the resource the lock protects, so that it can refuse a holder whose lease has lapsed.
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #item")
 * public void buy(String item) {
 *     long token = LockContext.currentFencingToken();
 *     stock.decrement(item, token);      // the store refuses a token lower than the last it saw
 * }
 * }</pre>
 *
 * <p>Nested annotated methods see the innermost lock; once a method returns, the enclosing one's is current again.
 * Thread-safe: the state is per thread.
 */
public final class LockContext {

    private static final ThreadScopedValue<Lease> CURRENT = new ThreadScopedValue<>();

    private LockContext() {
    }

    /**
     * The lease of the innermost {@link DistributedLock} method running on this thread.
     *
     * @return the lease, or empty outside such a method
     */
    public static Optional<Lease> currentLease() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * The fencing token of the innermost {@link DistributedLock} method running on this thread.
     *
     * @return the token
     * @throws IllegalStateException outside such a method
     */
    public static long currentFencingToken() {
        Lease lease = CURRENT.get();
        if (lease == null) {
            throw new IllegalStateException("no @DistributedLock method is running on this thread");
        }
        return lease.fencingToken();
    }

    /**
     * Makes a lease current on this thread until the returned scope is closed, which makes the one current before
     * current again. The starter's {@code @DistributedLock} interceptor uses it around each method; code that takes a
     * lease itself ({@code baton.lock(name).acquire(wait)}) may too, so that what it calls finds the token the same
     * way.
     * Scopes must be closed in the reverse order of opening, on the thread that opened them (try-with-resources).
     *
     * <pre>{@code
     * try (LockContext.Scope scope = LockContext.open(lease)) {
     *     work();                               // LockContext.currentFencingToken() is lease.fencingToken()
     * }
     * }</pre>
     *
     * @param lease the lease the code runs under
     * @return the scope to close when that code is done
     * @throws NullPointerException if {@code lease} is null
     */
    public static Scope open(Lease lease) {
        return new Scope(CURRENT.open(lease, "lease"));
    }

    /**
     * The span of code during which a lease is current, from {@link #open(Lease)} to {@link #close()}. Not
     * thread-safe: it belongs to the thread that opened it.
     */
    public static final class Scope implements AutoCloseable {
        private final ThreadScopedValue<Lease>.Span span;

        private Scope(ThreadScopedValue<Lease>.Span span) {
            this.span = span;
        }

        /** Makes the lease that was current before {@link #open(Lease)} current again; a second call does nothing. */
        @Override
        public void close() {
            span.close();
        }
    }
}
