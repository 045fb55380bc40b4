package dev.baton.cli;

import dev.baton.BatonAdmin;
import dev.baton.LockType;

/**
 * The names operators see for Baton's kinds: the key words of docs/key-layout.md ({@code lock}, {@code fair},
 * {@code rw}, {@code semaphore}, {@code election}, {@code latch}, {@code rate}), in text and in JSON alike, and what
 * each is called in a sentence.
 */
final class Kinds {
    private Kinds() {
    }

    /** The administrative kind an inspected object belongs to (both sides of a read-write lock are {@code rw}). */
    static BatonAdmin.Kind of(LockType type) {
        return switch (type) {
            case LOCK -> BatonAdmin.Kind.LOCK;
            case FAIR -> BatonAdmin.Kind.FAIR;
            case READ, WRITE -> BatonAdmin.Kind.READ_WRITE;
            case SEMAPHORE -> BatonAdmin.Kind.SEMAPHORE;
            case ELECTION -> BatonAdmin.Kind.ELECTION;
            case LATCH -> BatonAdmin.Kind.LATCH;
        };
    }

    /** What a kind is called in a sentence: "plain lock", "read-write lock"... */
    static String noun(BatonAdmin.Kind kind) {
        return switch (kind) {
            case LOCK -> "plain lock";
            case FAIR -> "fair lock";
            case READ_WRITE -> "read-write lock";
            case SEMAPHORE -> "semaphore";
            case ELECTION -> "election";
            case LATCH -> "count-down latch";
            case RATE_LIMITER -> "rate limiter";
        };
    }

    /**
     * Reads {@code --kind}: a key word, or a few spellings operators use.
     *
     * @throws CliFailure with {@link ExitStatus#USAGE} for an unknown kind
     */
    static BatonAdmin.Kind parse(String text) {
        String t = text.strip().toLowerCase(java.util.Locale.ROOT);
        return switch (t) {
            case "plain" -> BatonAdmin.Kind.LOCK;
            case "read-write", "readwrite" -> BatonAdmin.Kind.READ_WRITE;
            case "limiter", "rate-limiter", "ratelimiter" -> BatonAdmin.Kind.RATE_LIMITER;
            default -> BatonAdmin.Kind.ofKeyword(t).orElseThrow(() -> new CliFailure(ExitStatus.USAGE,
                    "--kind: unknown kind '" + text + "' (lock, fair, rw, semaphore, election, latch, rate)"));
        };
    }
}
