package dev.baton.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a duration as operators write it: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 5m}, {@code 2h},
 * {@code 1h30m}, {@code 0} (for {@code --wait 0}), or ISO-8601 ({@code PT30S}). Negative durations are refused.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * Parses a duration.
     *
     * @param value the text
     * @return the duration, never negative
     * @throws CommandLine.TypeConversionException if the text is not a duration
     */
    public static Duration parse(String value) {
        String text = value.strip().toLowerCase(java.util.Locale.ROOT);
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        if (text.startsWith("pt") || text.startsWith("p")) {
            try {
                Duration d = Duration.parse(text.toUpperCase(java.util.Locale.ROOT));
                if (!d.isNegative()) {
                    return d;
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
            throw bad(value);
        }
        Matcher m = PART.matcher(text);
        int at = 0;
        Duration total = Duration.ZERO;
        while (at < text.length() && m.find(at) && m.start() == at) {
            double amount = Double.parseDouble(m.group(1));
            long nanosPerUnit = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> 86_400_000_000_000L;
            };
            if (amount * nanosPerUnit > Long.MAX_VALUE / 4.0) {
                throw bad(value);
            }
            total = total.plusNanos(Math.round(amount * nanosPerUnit));
            at = m.end();
        }
        if (at == 0 || at != text.length()) {
            throw bad(value);
        }
        return total;
    }

    private static CommandLine.TypeConversionException bad(String value) {
        return new CommandLine.TypeConversionException("'" + value + "' is not a duration (e.g. 0, 500ms, 30s, 1.5s, "
                + "5m, 1h30m)");
    }
}
