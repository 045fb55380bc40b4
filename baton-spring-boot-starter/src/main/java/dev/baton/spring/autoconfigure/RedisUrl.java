package dev.baton.spring.autoconfigure;

import dev.baton.BatonConfig;
import java.util.Locale;

/**
 * {@code spring.data.redis.url}, read by Baton's own parser: the string goes to {@link BatonConfig.Builder#uri(String)}
 * as the user wrote it, so a malformed URL fails with the message {@code Baton.connect} would give (which says what is
 * wrong and how to percent-encode a password, never quoting any part of the user info), and a well-formed one is taken
 * apart, percent-decoded and checked there too. Neither {@code java.net.URI} nor Boot's reading of the URL, which take
 * part of a password with an unencoded {@code /}, {@code ?} or {@code #} for the host, decides where Baton connects.
 *
 * <p>As in Boot, the URL is {@code redis://} or {@code rediss://} (Sentinel has its own properties) and it wins over
 * {@code host}, {@code port}, {@code database}, {@code username} and {@code password}. With
 * {@code spring.data.redis.sentinel.*} or {@code cluster.*}, the URL gives the data nodes' credentials (and the
 * Sentinel database), which this class moves, still percent-encoded, into the URIs Baton gets, for Baton to decode.
 * Immutable; thread-safe.
 */
final class RedisUrl {
    private static final String PROPERTY = "spring.data.redis.url";

    /** The URL as written, trimmed; accepted by core. */
    private final String url;
    private final boolean tls;
    /** {@code user:password@} as written (still percent-encoded), or empty. */
    private final String userInfo;
    /** The host and port as written. */
    private final String hostAndPort;
    /** The path and query as written ({@code /3?clientName=x}), or empty. */
    private final String pathAndQuery;

    private RedisUrl(String url) {
        this.url = url;
        int schemeEnd = url.indexOf("://");
        this.tls = url.substring(0, schemeEnd).equalsIgnoreCase("rediss");
        // Core has accepted the URL, so it has this shape: scheme://[userinfo@]host[:port][/database][?options], no
        // '@' after the host and no '#' part. The user info ends at the authority's last '@', as core reads it.
        String rest = url.substring(schemeEnd + 3);
        int authorityEnd = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            if (rest.charAt(i) == '/' || rest.charAt(i) == '?') {
                authorityEnd = i;
                break;
            }
        }
        String authority = rest.substring(0, authorityEnd);
        int at = authority.lastIndexOf('@');
        this.userInfo = authority.substring(0, at + 1);
        this.hostAndPort = authority.substring(at + 1);
        this.pathAndQuery = rest.substring(authorityEnd);
    }

    /**
     * Checks the URL with Baton's parser.
     *
     * @param value {@code spring.data.redis.url}, possibly null or blank
     * @return the URL, or null when the property is not set
     * @throws IllegalStateException naming the property, with Baton's message for what is wrong (never the value,
     *                               which may hold a password)
     */
    static RedisUrl of(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String url = value.trim();
        try {
            BatonConfig.builder().uri(url).build();
        } catch (IllegalArgumentException e) {
            // Not Boot's InvalidConfigurationPropertyValueException: its failure analysis quotes the property's value
            // from the environment, password and all.
            throw new IllegalStateException(PROPERTY + " cannot be used: " + e.getMessage(), e);
        }
        String scheme = url.substring(0, url.indexOf("://")).toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalStateException(PROPERTY + " must be a redis:// or rediss:// URL, was " + scheme
                    + "://...: configure Sentinel with spring.data.redis.sentinel.master and sentinel.nodes");
        }
        return new RedisUrl(url);
    }

    /** Whether the URL asks for TLS ({@code rediss://}). */
    boolean tls() {
        return tls;
    }

    /**
     * The URI of one server: the URL itself, with {@code rediss://} when TLS is asked for elsewhere
     * ({@code ssl.enabled}, an SSL bundle).
     *
     * @param tls whether the connection uses TLS
     * @return the URI for {@link BatonConfig.Builder#uri(String)}
     */
    String server(boolean tls) {
        return tls == this.tls ? url : scheme(tls) + "://" + userInfo + hostAndPort + pathAndQuery;
    }

    /**
     * The URI of a Sentinel setup: the sentinels and master from {@code spring.data.redis.sentinel.*}, the data
     * nodes' credentials and the database (and options) from the URL.
     *
     * @param tls       whether the connections use TLS
     * @param sentinels the sentinels, as {@code host:port,host:port}
     * @param master    the master's name, as the sentinels know it
     * @return the URI for {@link BatonConfig.Builder#uri(String)}
     */
    String sentinel(boolean tls, String sentinels, String master) {
        return scheme(tls) + "-sentinel://" + userInfo + sentinels + pathAndQuery + "#" + master;
    }

    /**
     * The URI of one cluster node, with the URL's credentials (a cluster has only database 0).
     *
     * @param tls  whether the connections use TLS
     * @param node the node, as {@code host:port}
     * @return a seed for {@link BatonConfig.Builder#cluster(String...)}
     */
    String clusterSeed(boolean tls, String node) {
        return scheme(tls) + "://" + userInfo + node;
    }

    private static String scheme(boolean tls) {
        return tls ? "rediss" : "redis";
    }

    @Override
    public String toString() {
        return "RedisUrl{" + scheme(tls) + "://" + (userInfo.isEmpty() ? "" : "***@") + hostAndPort + "}";
    }
}
