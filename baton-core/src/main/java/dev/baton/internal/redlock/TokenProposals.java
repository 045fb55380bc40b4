package dev.baton.internal.redlock;

import dev.baton.internal.runtime.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fencing tokens this Baton proposes to a Redlock's masters (see {@code redlock-acquire.lua}): on the scale of the
 * masters' clocks in microseconds, so that a token stays above the tokens of the past even on a master that lost its
 * counter (docs/redlock.md), and strictly increasing within this Baton.
 *
 * <p>Every master's reply carries its clock and, where it refused, its counter; a proposal is this process's
 * monotonic clock plus the largest offset seen so far, so it tracks the fastest master's clock and never falls back
 * below a counter it was told about. Until the first reply, {@link #next()} is 0, which masters answer with their
 * clock and counter without granting anything. Only this process's monotonic clock is read, never its wall clock.
 *
 * <p>Thread-safe.
 */
final class TokenProposals {
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final Ticker ticker;
    /**
     * The ticker's reading when this was made: microseconds are counted from it, so that a reading that wraps (the
     * monotonic clock may start anywhere) still gives the right differences.
     */
    private final long originNanos;
    /** What to add to the ticker's microseconds to be at or above every master's clock and counter seen. */
    private final AtomicLong offset = new AtomicLong(UNKNOWN);
    private final AtomicLong last = new AtomicLong();

    TokenProposals(Ticker ticker) {
        this.ticker = ticker;
        this.originNanos = ticker.nanos();
    }

    /** The next proposal: above every earlier one of this Baton; 0 until a master was heard. */
    long next() {
        long o = offset.get();
        if (o == UNKNOWN) {
            return 0;
        }
        long proposal = micros() + o;
        return last.accumulateAndGet(proposal, (previous, p) -> Math.max(previous + 1, p));
    }

    /** A master's clock, in microseconds. */
    void clock(long masterMicros) {
        offset.accumulateAndGet(masterMicros - micros(), Math::max);
    }

    /** A master's counter: later proposals must exceed it. */
    void above(long counter) {
        offset.accumulateAndGet(counter + 1 - micros(), Math::max);
    }

    /** Microseconds of the local monotonic clock since {@link #originNanos}: a difference first, then divided. */
    private long micros() {
        return (ticker.nanos() - originNanos) / 1_000;
    }
}
