package dev.baton.support;

import dev.baton.RateLimit.Algorithm;
import java.util.Arrays;

/**
 * Decides whether a rate limiter's refusal could have been right, given the admissions of the same limiter, when
 * every decision is only known to lie somewhere in its interval {@code [sent, received]} (microseconds of the clock
 * Redis reads). The judge takes the most lenient reading of that uncertainty, so that it never condemns a correct
 * limiter however long the decisions took, and still catches one that refused with room to spare.
 *
 * <p>The reading at a moment {@code t}: every admission sent by {@code t} may have been decided before {@code t},
 * at the latest moment it could have been ({@code min(received, t)}); those sent later cannot have been. Each
 * algorithm's state only grows with more and with later admissions, so this reading leaves at most as many permits
 * free as the limiter really had at {@code t}:
 * <ul>
 *   <li>fixed window: the admissions that may lie in {@code t}'s window (aligned to multiples of the period) and
 *       before {@code t};</li>
 *   <li>sliding-window log: the admissions that may lie in {@code (t - period, t]} (the script may still count
 *       expired entries it has not trimmed yet, but it trims 256 per call and never holds more than
 *       {@code permits}, so for requests of one permit, as judged here, it refuses only a full window);</li>
 *   <li>GCRA: the theoretical arrival time {@code TAT} after replaying those admissions in time order
 *       ({@code TAT = max(TAT, a) + T}, with the emission interval {@code T = period / permits}); one permit is
 *       free at {@code t} iff {@code TAT - t <= (burst - 1) * T}.</li>
 * </ul>
 *
 * <p>A refusal is justified if at some moment {@code t} in {@code [sent - 1 µs, received]} that reading leaves less
 * than one permit free. The script's own moment lies in {@code [sent, received]}; the one microsecond before is for
 * refusals a {@code RateLimiter} object repeats without asking Redis ({@code KnownRefusal}). It repeats a refusal
 * until {@code retryAfter} has passed since the request was sent, which is no later than the script's moment plus
 * {@code retryAfter}. The script reads its clock truncated to the microsecond and rounds {@code retryAfter} up to
 * one, so the last repeat may fall in the microsecond in which the permit came back; the microsecond before it was
 * still refused. No other slack is needed: a later or longer answer only widens the interval.
 *
 * <p>Only the moments where the reading can change need checking: the ends of the interval, each admission's
 * {@code sent} within it (where an admission joins), and the last microsecond of each fixed window in it. Between
 * them the free permits only grow or stay.
 */
public final class RefusalJudge {
    private final Algorithm algorithm;
    private final long permits;
    private final long period;
    private final long burst;
    /** The admissions' sent times, sorted; open ones (unknown outcome) included. */
    private final long[] sent;
    /** The answered admissions' received times, sorted. */
    private final long[] received;
    /** GCRA: TAT in ticks of 1/permits µs from {@link #base} after the first k answered admissions at received. */
    private final long[] tat;
    private final long base;

    /**
     * @param periodMicros the limit's period
     * @param burst        GCRA's burst; the window algorithms take {@code permits}
     * @param admissions   every admission of the limiter in the run, and every request of unknown outcome (an open
     *                     interval: it may have been admitted at any time after it was sent)
     */
    public RefusalJudge(Algorithm algorithm, long permits, long periodMicros, long burst, Intervals admissions) {
        this.algorithm = algorithm;
        this.permits = permits;
        this.period = periodMicros;
        this.burst = burst;
        int n = admissions.size();
        sent = new long[n];
        long[] answered = new long[n];
        int closed = 0;
        for (int i = 0; i < n; i++) {
            sent[i] = admissions.sent(i);
            if (admissions.received(i) != Intervals.OPEN) {
                answered[closed++] = admissions.received(i);
            }
        }
        Arrays.sort(sent);
        received = Arrays.copyOf(answered, closed);
        Arrays.sort(received);
        base = n == 0 ? 0 : sent[0];
        tat = new long[closed + 1];
        tat[0] = Long.MIN_VALUE / 2;
        for (int k = 0; k < closed; k++) {
            // In ticks of 1/permits µs the emission interval is exactly `period`, as in the script.
            tat[k + 1] = Math.max(tat[k], ticks(received[k])) + period;
        }
    }

    /** Whether the refusal of a request sent and answered at these times could have been right. */
    public boolean justified(long sentMicros, long receivedMicros) {
        return fewestFree(sentMicros, receivedMicros) < scale();
    }

    /**
     * The fewest permits the most lenient reading leaves free at any moment of {@code [sent - 1 µs, received]}: the
     * refusal was justified iff this is below 1. (For diagnosis; fractional for GCRA.)
     */
    public double freePermits(long sentMicros, long receivedMicros) {
        return (double) fewestFree(sentMicros, receivedMicros) / scale();
    }

    /** Free permits, times {@link #scale()}, minimised over the moments where the reading can change. */
    private long fewestFree(long from, long to) {
        long first = from - 1;
        long fewest = Math.min(free(first), free(to));
        for (int j = countAtMost(sent, sent.length, first); j < sent.length && sent[j] <= to; j++) {
            fewest = Math.min(fewest, free(sent[j]));
        }
        if (algorithm == Algorithm.FIXED_WINDOW) {
            for (long start = windowStart(first); start <= to; start += period) {
                fewest = Math.min(fewest, free(Math.min(to, start + period - 1)));
            }
        }
        return fewest;
    }

    /** The permits the reading leaves free at {@code t}, times {@link #scale()}. */
    private long free(long t) {
        int sentByT = countAtMost(sent, sent.length, t);
        return switch (algorithm) {
            // Sent by t, and not answered before t's window began.
            case FIXED_WINDOW -> permits - (sentByT - countAtMost(received, received.length, windowStart(t) - 1));
            // Sent by t, and not answered by t - period (an entry is live while its time > now - period).
            case SLIDING_WINDOW_LOG -> permits - (sentByT - countAtMost(received, received.length, t - period));
            case GCRA -> {
                // Answered by t: replayed at their received times; in flight at t: all at t, after them.
                int answered = countAtMost(received, received.length, t);
                long now = ticks(t);
                long debt = Math.max(tat[answered], now) + (long) (sentByT - answered) * period - now;
                yield burst * period - debt;
            }
        };
    }

    /** GCRA counts in ticks of 1/permits µs (so that the emission interval is `period` ticks); windows in permits. */
    private long scale() {
        return algorithm == Algorithm.GCRA ? period : 1;
    }

    private long ticks(long micros) {
        return (micros - base) * permits;
    }

    private long windowStart(long t) {
        return t - Math.floorMod(t, period);
    }

    /** How many of the first {@code n} (sorted) values are at most {@code x}. */
    private static int countAtMost(long[] sorted, int n, long x) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
