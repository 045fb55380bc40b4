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

    private static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

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
     * Makes a lease current for the duration of a method; for the starter's own interceptor.
     *
     * @param lease the lease the method runs under
     * @return the lease that was current before, to hand back to {@link #restore(Lease)}
     */
    static Lease enter(Lease lease) {
        Lease previous = CURRENT.get();
        CURRENT.set(lease);
        return previous;
    }

    /**
     * Puts back what {@link #enter(Lease)} returned.
     *
     * @param previous the lease that was current before, or null
     */
    static void restore(Lease previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
