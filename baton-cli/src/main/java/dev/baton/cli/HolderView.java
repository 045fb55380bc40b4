package dev.baton.cli;

import dev.baton.LockInfo;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One holder as operators read it. "Held since" comes from the fencing token: Baton mints each token from Redis's
 * clock in microseconds (docs/fencing-tokens.md), so a token is the instant its hold began, by Redis's clock, unless
 * tokens of the name were minted faster than one a microsecond (then it is within microseconds of it). A token too
 * small to be a time (a counter restored from elsewhere) gives no "since".
 */
final class HolderView {
    /** Tokens below this (2001-09-09 in microseconds) are not read as times. */
    private static final long FIRST_TIME_TOKEN = 1_000_000_000_000_000L;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneId.systemDefault());

    private HolderView() {
    }

    /** When the hold of this token began, if the token is a time. */
    static Optional<Instant> since(long token) {
        if (token < FIRST_TIME_TOKEN) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochSecond(token / 1_000_000, token % 1_000_000 * 1000));
    }

    /** "2026-11-27 12:00:01 (12.4s ago)", or "-". */
    static String sinceText(long token, Instant now) {
        return since(token).map(s -> CLOCK.format(s) + " ("
                + HumanDuration.format(java.time.Duration.between(s, now)) + " ago)").orElse("-");
    }

    /** "reader", "writer", "lease", "thread" (how the hold is owned, with the side of a read-write lock). */
    static String owner(LockInfo.Holder h) {
        String side = switch (h.kind()) {
            case READ -> "reader, ";
            case WRITE -> "writer, ";
            default -> "";
        };
        return side + (h.leaseOwned() ? "lease" : "thread");
    }

    /** The JSON object of a holder: stable field names, durations in milliseconds, times in epoch milliseconds. */
    static Map<String, Object> json(LockInfo.Holder h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("instance", h.batonInstance());
        m.put("host", h.host());
        m.put("pid", h.pid());
        m.put("thread", h.thread());
        m.put("side", switch (h.kind()) {
            case READ -> "read";
            case WRITE -> "write";
            default -> null;
        });
        m.put("leaseOwned", h.leaseOwned());
        m.put("holdCount", h.holdCount());
        m.put("permits", h.permits());
        m.put("leaseLeftMs", h.remainingLease().toMillis());
        m.put("fencingToken", h.fencingToken());
        m.put("heldSinceMs", since(h.fencingToken()).map(Instant::toEpochMilli).orElse(null));
        return m;
    }
}
