package dev.baton;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of a {@link Baton}. Build one with {@link #builder()}; every setting but {@link Builder#uri}
 * has a default. Invalid values are rejected by the builder, before any connection is made, with a message that
 * names the setting.
 *
 * <p>{@link #toString()} never shows the password of the URI.
 */
public final class BatonConfig {
    private final String uri;
    private final String namespace;
    private final Duration watchdogLease;
    private final Duration commandTimeout;
    private final Duration recheckInterval;
    private final Duration fencingTokenRetention;
    private final int localHandoffLimit;

    private BatonConfig(Builder b) {
        this.uri = b.uri;
        this.namespace = b.namespace;
        this.watchdogLease = b.watchdogLease;
        this.commandTimeout = b.commandTimeout;
        this.recheckInterval = b.recheckInterval;
        this.fencingTokenRetention = b.fencingTokenRetention;
        this.localHandoffLimit = b.localHandoffLimit;
    }

    /** A builder with every default set; only {@link Builder#uri(String)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The Redis URI: {@code redis://[user:pass@]host:port[/db]}, {@code rediss://...} for TLS. */
    public String uri() {
        return uri;
    }

    /** Prefix of every key and channel Baton uses (default {@code "baton"}). */
    public String namespace() {
        return namespace;
    }

    /** Lease of a lock acquired without an explicit lease (default 30 s); renewed every third of it while held. */
    public Duration watchdogLease() {
        return watchdogLease;
    }

    /** Longest time any call waits for Redis to answer (default 3 s), apart from a wait the caller asked for. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Longest time a waiter sleeps before checking the lock again even without a release notification (default 1 s).
     * It bounds what a lost pub/sub message can cost.
     */
    public Duration recheckInterval() {
        return recheckInterval;
    }

    /**
     * How long the last fencing token of an unused lock name is kept in Redis (default 1 day). Tokens stay strictly
     * increasing as long as the Redis server clock does not step back by more than this; see docs/fencing-tokens.md.
     */
    public Duration fencingTokenRetention() {
        return fencingTokenRetention;
    }

    /**
     * How many times in a row a lock released by one thread of this Baton may go straight to another thread of this
     * Baton that waits for it (default 8; 0 turns it off). A handoff takes one Redis round trip instead of a release,
     * a notification and a new acquisition, and the lock is never free in between; after this many, the lock is
     * released to everyone, so threads of other processes get their turn.
     */
    public int localHandoffLimit() {
        return localHandoffLimit;
    }

    @Override
    public String toString() {
        return "BatonConfig{uri=" + redactedUri(uri) + ", namespace=" + namespace + ", watchdogLease=" + watchdogLease
                + ", commandTimeout=" + commandTimeout + ", recheckInterval=" + recheckInterval
                + ", fencingTokenRetention=" + fencingTokenRetention + ", localHandoffLimit=" + localHandoffLimit
                + "}";
    }

    /** The URI with any user info replaced by {@code ***}; safe for logs and messages. */
    static String redactedUri(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return uri;
        }
        return uri.substring(0, scheme + 3) + "***@" + uri.substring(at + 1);
    }

    /** Builder of {@link BatonConfig}. Not thread-safe. */
    public static final class Builder {
        private String uri;
        private String namespace = "baton";
        private Duration watchdogLease = Duration.ofSeconds(30);
        private Duration commandTimeout = Duration.ofSeconds(3);
        private Duration recheckInterval = Duration.ofSeconds(1);
        private Duration fencingTokenRetention = Duration.ofDays(1);
        private int localHandoffLimit = 8;

        private Builder() {
        }

        /** Required. {@code redis://[user:pass@]host:port[/db]} or {@code rediss://...}. */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** See {@link BatonConfig#namespace()}; non-blank, without braces. */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** See {@link BatonConfig#watchdogLease()}; positive. */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = Objects.requireNonNull(watchdogLease, "watchdogLease");
            return this;
        }

        /** See {@link BatonConfig#commandTimeout()}; positive. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
            return this;
        }

        /** See {@link BatonConfig#recheckInterval()}; positive. */
        public Builder recheckInterval(Duration recheckInterval) {
            this.recheckInterval = Objects.requireNonNull(recheckInterval, "recheckInterval");
            return this;
        }

        /** See {@link BatonConfig#fencingTokenRetention()}; not shorter than the watchdog lease. */
        public Builder fencingTokenRetention(Duration fencingTokenRetention) {
            this.fencingTokenRetention = Objects.requireNonNull(fencingTokenRetention, "fencingTokenRetention");
            return this;
        }

        /** See {@link BatonConfig#localHandoffLimit()}; 0 turns local handoffs off. */
        public Builder localHandoffLimit(int localHandoffLimit) {
            this.localHandoffLimit = localHandoffLimit;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the URI is missing or malformed, the namespace is blank or contains
         *         braces, a duration is not positive, the handoff limit is negative, or the fencing token retention is
         *         shorter than the watchdog lease
         */
        public BatonConfig build() {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("uri is required, e.g. redis://localhost:6379");
            }
            checkUri(uri);
            if (namespace.isBlank() || namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
                throw new IllegalArgumentException(
                        "namespace must be non-blank and contain no braces (they would break Cluster hash tags): '"
                                + namespace + "'");
            }
            requirePositive(watchdogLease, "watchdogLease");
            requirePositive(commandTimeout, "commandTimeout");
            requirePositive(recheckInterval, "recheckInterval");
            requirePositive(fencingTokenRetention, "fencingTokenRetention");
            if (localHandoffLimit < 0) {
                throw new IllegalArgumentException("localHandoffLimit must not be negative: " + localHandoffLimit);
            }
            if (fencingTokenRetention.compareTo(watchdogLease) < 0) {
                throw new IllegalArgumentException("fencingTokenRetention (" + fencingTokenRetention
                        + ") must not be shorter than watchdogLease (" + watchdogLease + ")");
            }
            return new BatonConfig(this);
        }

        private static void requirePositive(Duration d, String name) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
        }

        private static void checkUri(String uri) {
            String redacted = redactedUri(uri);
            URI parsed;
            try {
                parsed = new URI(uri);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("uri is not a valid URI: " + redacted);
            }
            String scheme = parsed.getScheme();
            if (scheme == null || !(scheme.equals("redis") || scheme.equals("rediss")
                    || scheme.equals("redis-sentinel"))) {
                throw new IllegalArgumentException(
                        "uri must start with redis://, rediss:// or redis-sentinel://: " + redacted);
            }
            if (parsed.getHost() == null && !scheme.equals("redis-sentinel")) {
                throw new IllegalArgumentException("uri has no host: " + redacted);
            }
        }
    }
}
