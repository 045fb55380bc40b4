package dev.baton.bench;

import java.util.Arrays;
import java.util.List;

/** Nearest-rank percentiles of a sample of nanosecond durations. */
final class Percentiles {
    private final long[] sorted;

    Percentiles(long[] values, int count) {
        this.sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
    }

    static Percentiles pooled(List<long[]> samples) {
        long[] all = samples.stream().flatMapToLong(Arrays::stream).toArray();
        return new Percentiles(all, all.length);
    }

    int count() {
        return sorted.length;
    }

    /** The {@code p}-th percentile (0 < p <= 100) in nanoseconds, or NaN if there are no values. */
    double nanos(double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    double micros(double p) {
        return nanos(p) / 1_000.0;
    }
}
