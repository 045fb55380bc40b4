package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * One limit of a {@link RateLimiter}: {@code permits} per {@code period}, with an {@link Algorithm} and, for GCRA,
 * a burst. Immutable, so thread-safe; invalid values are rejected when the limit is built, before any Redis call.
 *
 * <pre>{@code
 * RateLimit.of(100, Duration.ofSeconds(1))                                  // GCRA, bursts of up to 100
 * RateLimit.builder(100, Duration.ofSeconds(1)).burst(200).build()          // GCRA, bursts of up to 200
 * RateLimit.builder(1000, Duration.ofHours(1)).algorithm(Algorithm.SLIDING_WINDOW_LOG).build()
 * }</pre>
 *
 * <p>Limits:
 * <ul>
 *   <li>{@code permits} from 1 to 2<sup>40</sup>; {@code period} from 1 ms, a whole number of microseconds;</li>
 *   <li>{@code burst × period} at most 2<sup>51</sup> µs (about 71 years), so that Redis's Lua computes exactly;</li>
 *   <li>a {@link Algorithm#SLIDING_WINDOW_LOG} limit at most {@value #MAX_LOG_PERMITS} permits, since its memory
 *       grows with them.</li>
 * </ul>
 */
public final class RateLimit {
    /** Largest {@code permits} of a {@link Algorithm#SLIDING_WINDOW_LOG} limit. */
    public static final long MAX_LOG_PERMITS = 100_000;
    /** Largest {@code permits} of any limit: keeps the script's arithmetic exact. */
    public static final long MAX_PERMITS = 1L << 40;
    private static final long MAX_TICKS = 1L << 51;

    /**
     * How a limit counts. Accuracy and memory of each are in {@code docs/rate-limiting.md}.
     */
    public enum Algorithm {
        /**
         * Generic cell rate algorithm (the default): permits are replenished continuously, one every
         * {@code period / permits}, and up to {@code burst} can be taken at once. Exact to the microsecond; one small
         * string key per limit whatever the rate.
         */
        GCRA,
        /**
         * Exact "at most {@code permits} in any window of length {@code period}": a log of the decisions of the last
         * period (one sorted-set entry per admitted call, however many permits it took). Memory grows with the
         * admitted calls per period.
         */
        SLIDING_WINDOW_LOG,
        /**
         * At most {@code permits} per calendar-aligned window of length {@code period} (aligned to multiples of the
         * period since the Unix epoch, on the Redis clock). The cheapest: one counter per limit; but up to twice
         * {@code permits} can pass around a window boundary.
         */
        FIXED_WINDOW
    }

    private final long permits;
    private final Duration period;
    private final long burst;
    private final Algorithm algorithm;

    private RateLimit(Builder b) {
        this.permits = b.permits;
        this.period = b.period;
        this.burst = b.burst;
        this.algorithm = b.algorithm;
    }

    /**
     * A GCRA limit of {@code permits} per {@code period}, with bursts of up to {@code permits}.
     *
     * @param permits permits replenished per period, from 1 to {@link #MAX_PERMITS}
     * @param period  the period, from 1 ms, a whole number of microseconds
     * @return the limit
     * @throws IllegalArgumentException if a value is outside the limits listed on this class
     */
    public static RateLimit of(long permits, Duration period) {
        return builder(permits, period).build();
    }

    /**
     * A builder for {@code permits} per {@code period}; GCRA with a burst of {@code permits} unless changed.
     *
     * @param permits permits replenished per period, from 1 to {@link #MAX_PERMITS}
     * @param period  the period, from 1 ms, a whole number of microseconds
     * @return a new builder
     * @throws IllegalArgumentException if {@code permits} or {@code period} is out of range (checked at once; the
     *                                  combination with the other settings is checked by {@link Builder#build()})
     */
    public static Builder builder(long permits, Duration period) {
        return new Builder(permits, period);
    }

    /**
     * Permits replenished per {@link #period()}.
     *
     * @return the permits, at least 1
     */
    public long permits() {
        return permits;
    }

    /**
     * The period over which {@link #permits()} are replenished (for the window algorithms, the window length).
     *
     * @return the period, at least 1 ms
     */
    public Duration period() {
        return period;
    }

    /**
     * Most permits that can be taken at once after the limit has been idle.
     *
     * @return for GCRA the burst as built; for the window algorithms always {@link #permits()}
     */
    public long burst() {
        return burst;
    }

    /**
     * How this limit counts.
     *
     * @return the algorithm ({@link Algorithm#GCRA} unless the builder chose another)
     */
    public Algorithm algorithm() {
        return algorithm;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RateLimit r && r.permits == permits && r.period.equals(period) && r.burst == burst
                && r.algorithm == algorithm;
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, period, burst, algorithm);
    }

    @Override
    public String toString() {
        return permits + " per " + period + (burst != permits ? " (burst " + burst + ")" : "") + " " + algorithm;
    }

    /**
     * Builds a {@link RateLimit}; {@link #build()} checks the combination of settings. Not thread-safe; may be reused
     * to build several limits.
     */
    public static final class Builder {
        private final long permits;
        private final Duration period;
        private long burst = -1;
        private Algorithm algorithm = Algorithm.GCRA;

        private Builder(long permits, Duration period) {
            Objects.requireNonNull(period, "period");
            if (permits < 1) {
                throw new IllegalArgumentException("permits must be at least 1: " + permits);
            }
            if (permits > MAX_PERMITS) {
                throw new IllegalArgumentException("permits must be at most 2^40: " + permits);
            }
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("period must be positive: " + period);
            }
            if (period.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("period must be at least 1 ms: " + period);
            }
            if (period.getNano() % 1000 != 0) {
                throw new IllegalArgumentException("period must be a whole number of microseconds: " + period);
            }
            this.permits = permits;
            this.period = period;
        }

        /**
         * Most permits that can be taken at once (GCRA only; default {@code permits}). A burst below
         * {@code permits} smooths traffic: at most {@code burst} at once, and the rest spread over the period.
         *
         * @param burst the most permits taken at once, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code burst} is below 1
         */
        public Builder burst(long burst) {
            if (burst < 1) {
                throw new IllegalArgumentException("burst must be at least 1: " + burst);
            }
            this.burst = burst;
            return this;
        }

        /**
         * How the limit counts (default {@link Algorithm#GCRA}).
         *
         * @param algorithm the algorithm
         * @return this builder
         */
        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            return this;
        }

        /**
         * Checks the settings together and builds the limit.
         *
         * @return the limit
         * @throws IllegalArgumentException if a burst was set on a window algorithm, if {@code burst × period}
         *                                  exceeds 2<sup>51</sup> µs, or if a sliding-window log would keep more than
         *                                  {@value #MAX_LOG_PERMITS} permits
         */
        public RateLimit build() {
            if (algorithm != Algorithm.GCRA && burst != -1 && burst != permits) {
                throw new IllegalArgumentException("burst applies to GCRA only: a " + algorithm
                        + " limit admits exactly its permits (" + permits + ") per period, burst was " + burst);
            }
            if (burst == -1) {
                burst = permits;
            }
            long periodMicros = periodMicros(period);
            if (periodMicros == -1 || burst > MAX_TICKS / periodMicros) {
                throw new IllegalArgumentException("burst × period must be at most 2^51 µs (about 71 years): burst "
                        + burst + ", period " + period);
            }
            if (algorithm == Algorithm.SLIDING_WINDOW_LOG && permits > MAX_LOG_PERMITS) {
                throw new IllegalArgumentException("permits of a SLIDING_WINDOW_LOG limit must be at most "
                        + MAX_LOG_PERMITS + " (its log keeps an entry per admitted call; use GCRA): " + permits);
            }
            return new RateLimit(this);
        }

        private static long periodMicros(Duration period) {
            try {
                return Math.multiplyExact(period.getSeconds(), 1_000_000L) + period.getNano() / 1000;
            } catch (ArithmeticException e) {
                return -1;
            }
        }
    }
}
