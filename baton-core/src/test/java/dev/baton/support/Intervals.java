package dev.baton.support;

import java.util.Arrays;

/**
 * A growable list of time intervals {@code [sent, received]} in whole microseconds of the wall clock, one per
 * decision a {@link RateLimitWorker} observed, and its one-line text form for the worker's stdout.
 *
 * <p>An interval with no end ({@link #OPEN}) is a request whose outcome is unknown: it was sent, and Redis may run
 * it at any time after (a command that timed out is not withdrawn).
 *
 * <p>Text form: {@code -} for an empty list, else comma-separated entries {@code DELTA.WIDTH} in base 36, where
 * {@code DELTA} is {@code sent} less the previous entry's {@code sent} (the first entry's is counted from 0) and
 * {@code WIDTH} is {@code received - sent}; an open interval has no {@code .WIDTH}. Tens of thousands of entries
 * cross a pipe per run, and deltas of neighbours in time take two or three characters where an epoch microsecond
 * takes eleven.
 */
public final class Intervals {
    /** The {@code received} of a request whose outcome is unknown. */
    public static final long OPEN = Long.MAX_VALUE;

    private long[] sent = new long[256];
    private long[] received = new long[256];
    private int size;

    public void add(long sentMicros, long receivedMicros) {
        if (receivedMicros < sentMicros) {
            throw new IllegalArgumentException("received " + receivedMicros + " before sent " + sentMicros);
        }
        if (size == sent.length) {
            sent = Arrays.copyOf(sent, size * 2);
            received = Arrays.copyOf(received, size * 2);
        }
        sent[size] = sentMicros;
        received[size] = receivedMicros;
        size++;
    }

    public void addAll(Intervals other) {
        for (int i = 0; i < other.size; i++) {
            add(other.sent[i], other.received[i]);
        }
    }

    public int size() {
        return size;
    }

    public long sent(int i) {
        return sent[i];
    }

    public long received(int i) {
        return received[i];
    }

    /** Intervals with an end: the decisions that were answered. */
    public int closed() {
        int n = 0;
        for (int i = 0; i < size; i++) {
            if (received[i] != OPEN) {
                n++;
            }
        }
        return n;
    }

    public String encode() {
        if (size == 0) {
            return "-";
        }
        StringBuilder out = new StringBuilder(size * 7);
        long previous = 0;
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(Long.toString(sent[i] - previous, 36));
            if (received[i] != OPEN) {
                out.append('.').append(Long.toString(received[i] - sent[i], 36));
            }
            previous = sent[i];
        }
        return out.toString();
    }

    public static Intervals decode(String text) {
        Intervals list = new Intervals();
        if (text.equals("-")) {
            return list;
        }
        long previous = 0;
        for (String entry : text.split(",")) {
            int dot = entry.indexOf('.');
            long s = previous + Long.parseLong(dot < 0 ? entry : entry.substring(0, dot), 36);
            list.add(s, dot < 0 ? OPEN : s + Long.parseLong(entry.substring(dot + 1), 36));
            previous = s;
        }
        return list;
    }
}
