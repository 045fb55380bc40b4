package dev.baton.internal.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Argument and configuration checks that run before any Redis call: they fail fast, with an
 * {@link IllegalArgumentException} (or a {@link NullPointerException} for a null) whose message names the parameter.
 * A message may quote a value, so no check is ever given a secret (a password, a URI's user info) to quote.
 */
public final class Require {
    static final int MAX_NAME_BYTES = 1024;
    /**
     * Longest lease or wait: its nanoseconds must still fit a long with room to add to a ticker reading. That is
     * about 146 years, which no real lease comes near; the bound exists so that arithmetic can never overflow.
     */
    static final Duration MAX_DURATION = Duration.ofSeconds(Long.MAX_VALUE / 2_000_000_000L - 1);
    private static final String AT_MOST_MAX_DURATION = "must be at most " + MAX_DURATION.toDays()
            + " days (about 146 years)";

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
        aboveZero(value, parameter);
        rule(value, value.compareTo(MAX_DURATION) <= 0, parameter, AT_MOST_MAX_DURATION);
        return rule(value, value.toNanos() >= 1_000_000, parameter, "must be at least 1 ms");
    }

    /** A count (permits): at least 1. */
    public static int positive(int value, String parameter) {
        return rule(value, value >= 1, parameter, "must be at least 1");
    }

    /** A wait: zero or longer. */
    public static Duration notNegative(Duration value, String parameter) {
        Objects.requireNonNull(value, parameter);
        return rule(value, !value.isNegative(), parameter, "must not be negative");
    }

    /** A count that may be zero (a limit that zero turns off). */
    public static int notNegative(int value, String parameter) {
        return rule(value, value >= 0, parameter, "must not be negative");
    }

    /** A setting's duration: longer than zero, with no other bound (unlike {@link #positive(Duration, String)}). */
    public static Duration aboveZero(Duration value, String parameter) {
        Objects.requireNonNull(value, parameter);
        return rule(value, !value.isNegative() && !value.isZero(), parameter, "must be positive");
    }

    /** A duration bounded from above by another setting; both are named, with their values. */
    public static Duration notLonger(Duration value, String parameter, Duration bound, String boundParameter) {
        if (value.compareTo(bound) > 0) {
            throw new IllegalArgumentException(parameter + " (" + value + ") must not be longer than "
                    + boundParameter + " (" + bound + ")");
        }
        return value;
    }

    /** A duration bounded from below by another setting; both are named, with their values. */
    public static Duration notShorter(Duration value, String parameter, Duration bound, String boundParameter) {
        if (value.compareTo(bound) < 0) {
            throw new IllegalArgumentException(parameter + " (" + value + ") must not be shorter than "
                    + boundParameter + " (" + bound + ")");
        }
        return value;
    }

    /**
     * The elements of a varargs parameter, none of them null.
     *
     * @return them as an unmodifiable list, in the order given
     * @throws NullPointerException naming the parameter, or the null element by its index ({@code seedUris[1]})
     */
    public static List<String> noNulls(String[] values, String parameter) {
        Objects.requireNonNull(values, parameter);
        for (int i = 0; i < values.length; i++) {
            Objects.requireNonNull(values[i], parameter + "[" + i + "]");
        }
        return List.of(values);
    }

    /**
     * Any other rule: {@code valid}, or an {@link IllegalArgumentException} with this message, which must name the
     * setting and say what it takes. The message is built whether or not the rule holds: for checks that run once,
     * such as a configuration's, not in the path of every call.
     */
    public static void that(boolean valid, String message) {
        if (!valid) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * The typed checks above: {@code value} if {@code valid}, else an {@link IllegalArgumentException} whose message,
     * built only then, is {@code "<parameter> <rule>: <value>"}.
     */
    private static <T> T rule(T value, boolean valid, String parameter, String rule) {
        if (!valid) {
            throw new IllegalArgumentException(parameter + " " + rule + ": " + value);
        }
        return value;
    }
}
