package dev.baton.cli;

import java.time.Duration;

/**
 * Formats durations for people on a terminal: {@code 850ms}, {@code 12.4s}, {@code 3m12s}, {@code 2h05m},
 * {@code 3d04h}. JSON output carries milliseconds instead.
 */
public final class HumanDuration {
    private HumanDuration() {
    }

    /**
     * The duration, short.
     *
     * @param d a duration (negative ones are shown as 0ms)
     * @return the text
     */
    public static String format(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 1_000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            long tenths = ms / 100;
            return (tenths / 10) + "." + (tenths % 10) + "s";
        }
        long s = ms / 1000;
        if (s < 3_600) {
            return (s / 60) + "m" + pad(s % 60) + "s";
        }
        if (s < 86_400) {
            return (s / 3600) + "h" + pad(s % 3600 / 60) + "m";
        }
        return (s / 86_400) + "d" + pad(s % 86_400 / 3600) + "h";
    }

    private static String pad(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
    }
}
