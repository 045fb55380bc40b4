package dev.baton.bench;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latency samples in ns, added by many threads at once, up to a fixed capacity (later samples are dropped and
 * counted). Read only after the adding threads stopped.
 */
final class Samples {
    private final long[] values;
    private final AtomicInteger next = new AtomicInteger();

    Samples(int capacity) {
        this.values = new long[capacity];
    }

    void add(long nanos) {
        int i = next.getAndIncrement();
        if (i < values.length) {
            values[i] = nanos;
        }
    }

    /** Forgets every sample; only while no thread adds. */
    void reset() {
        next.set(0);
    }

    /** The samples added so far (at most the capacity). */
    long[] toArray() {
        return Arrays.copyOf(values, Math.min(next.get(), values.length));
    }
}
