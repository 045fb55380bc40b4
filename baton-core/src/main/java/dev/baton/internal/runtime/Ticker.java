package dev.baton.internal.runtime;

/**
 * Where the engine reads the time: a monotonic count of nanoseconds, meaningful only as the difference of two
 * readings (it may start anywhere and wrap, so compare readings as {@code a - b < 0}, never {@code a < b}). Baton
 * uses it for what this process measures by itself: how long a caller has waited, when a wait's deadline passes,
 * and the local estimate of a lease. What Redis decides (leases, tokens, rate-limit state) uses Redis's own clock.
 *
 * <p>One ticker belongs to each {@link BatonRuntime}, paired with the {@link Scheduler} that runs its timers; unit
 * tests pass a fake that they move by hand, together with a scheduler driven by it.
 */
@FunctionalInterface
public interface Ticker {
    /** {@link System#nanoTime()}, which the thread scheduler of a running Baton also measures its delays in. */
    Ticker SYSTEM = System::nanoTime;

    /** The current reading, in nanoseconds. */
    long nanos();
}
