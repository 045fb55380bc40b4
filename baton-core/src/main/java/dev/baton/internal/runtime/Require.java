package dev.baton.internal.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/** Argument checks that run before any Redis call; every message names the parameter. */
public final class Require {
    static final int MAX_NAME_BYTES = 1024;
    /**
     * Longest lease or wait: its nanoseconds must still fit a long with room to add to a ticker reading. That is
     * about 146 years, which no real lease comes near; the bound exists so that arithmetic can never overflow.
     */
    static final Duration MAX_DURATION = Duration.ofSeconds(Long.MAX_VALUE / 2_000_000_000L - 1);

    private Require() {
    }

    public static String lockName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(
                    "name must be at most " + MAX_NAME_BYTES + " bytes of UTF-8, was " + bytes + " bytes");
        }
        return name;
    }

    /** A lease: at least 1 ms (Redis expiry resolution) and at most about 292 years. */
    public static Duration positive(Duration value, String parameter) {
        Objects.requireNonNull(value, parameter);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(parameter + " must be positive: " + value);
        }
        if (value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(parameter + " must be at most " + MAX_DURATION.toDays()
                    + " days (about 146 years): " + value);
        }
        if (value.toNanos() < 1_000_000) {
            throw new IllegalArgumentException(parameter + " must be at least 1 ms: " + value);
        }
        return value;
    }

    /** A count (permits): at least 1. */
    public static int positive(int value, String parameter) {
        if (value < 1) {
            throw new IllegalArgumentException(parameter + " must be at least 1: " + value);
        }
        return value;
    }

    public static Duration notNegative(Duration value, String parameter) {
        Objects.requireNonNull(value, parameter);
        if (value.isNegative()) {
            throw new IllegalArgumentException(parameter + " must not be negative: " + value);
        }
        return value;
    }
}
