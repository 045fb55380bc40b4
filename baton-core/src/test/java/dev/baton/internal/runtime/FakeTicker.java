package dev.baton.internal.runtime;

import java.time.Duration;

/**
 * A {@link Ticker} that moves only when a test moves it (through {@link ManualScheduler#advance}, which runs the
 * timers that fall due on the way). It starts {@link #START} nanoseconds before a long wraps, so tests that run a
 * minute of fake time also check that the engine compares readings as differences.
 */
public final class FakeTicker implements Ticker {
    /** Where every fake ticker starts: 30 s before the reading wraps from {@code Long.MAX_VALUE} to negative. */
    public static final long START = Long.MAX_VALUE - Duration.ofSeconds(30).toNanos();

    private volatile long now = START;

    @Override
    public long nanos() {
        return now;
    }

    /** How far the ticker has moved since it started. */
    public Duration elapsed() {
        return Duration.ofNanos(now - START);
    }

    void set(long nanos) {
        if (nanos - now < 0) {
            throw new IllegalArgumentException("a ticker never goes back");
        }
        now = nanos;
    }
}
