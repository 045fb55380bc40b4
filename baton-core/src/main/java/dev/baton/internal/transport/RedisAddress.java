package dev.baton.internal.transport;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A Redis URI taken apart by Baton itself, strictly, so that a mistake is reported as what it is and never through a
 * fragment of the password: {@code redis://[[user]:password@]host[:port][/database][?option=value&...]},
 * {@code rediss://...} for TLS, {@code redis-sentinel://[[user]:password@]host[:port][,host[:port]...][/database]#master},
 * {@code rediss-sentinel://...} for Sentinel over TLS (to the sentinels and to the data nodes).
 *
 * <p>Why not {@code java.net.URI} or Lettuce's parser: a password with an unencoded {@code /}, {@code #} or
 * {@code @} makes them read part of the password as the host, the path or the fragment, and their errors then echo
 * it ("For input string: ..." or "Redis at ss:6379 could not be reached"). Here the user info is found first and is
 * never part of any message: every error is an {@link IllegalArgumentException} naming what is wrong, and where the
 * user info may be at fault it says how to percent-encode it.
 *
 * <p>The user info follows the usual Redis convention: {@code user:password}, {@code :password} (the default user), or
 * {@code password} alone. Both parts are percent-decoded as UTF-8.
 *
 * @param scheme     {@code redis}, {@code rediss}, {@code redis-sentinel} or {@code rediss-sentinel}
 * @param hosts      one for {@code redis}/{@code rediss}; one or more sentinels for the Sentinel schemes
 * @param database   the database number, 0 unless given
 * @param username   the ACL user, if any
 * @param password   the password, if any (a fresh array per parse: callers may clear it)
 * @param master     the Sentinel master name (Sentinel schemes only)
 * @param clientName the {@code clientName} option, if any
 * @param verifyPeer the {@code verifyPeer} option for TLS: {@code FULL} (default), {@code CA} or {@code NONE}
 */
public record RedisAddress(String scheme, List<HostAndPort> hosts, int database, Optional<String> username,
                           Optional<char[]> password, Optional<String> master, Optional<String> clientName,
                           String verifyPeer) {

    /** One host of a URI, with its port (the scheme's default when none was given). */
    public record HostAndPort(String host, int port) {
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private static final String ENCODING_HINT = "percent-encode reserved characters in the user name and password "
            + "(%40 for @, %2F for /, %3A for :, %23 for #, %3F for ?, %25 for %), or pass the credentials with "
            + "BatonConfig.Builder.username(...) and password(...) instead";

    /** Whether this address is TLS. */
    public boolean tls() {
        return scheme.equals("rediss") || scheme.equals("rediss-sentinel");
    }

    /** Whether this address names Sentinels rather than the server itself. */
    public boolean sentinel() {
        return scheme.equals("redis-sentinel") || scheme.equals("rediss-sentinel");
    }

    /** Whether the URI carried credentials (a user name or a password). */
    public boolean hasCredentials() {
        return username.isPresent() || password.isPresent();
    }

    /** The hosts as {@code host:port}, comma-separated: safe for messages and logs. */
    public String endpoint() {
        StringBuilder b = new StringBuilder();
        for (HostAndPort h : hosts) {
            b.append(b.length() == 0 ? "" : ",").append(h);
        }
        return sentinel() ? "sentinel " + b + " (master " + master.orElse("?") + ")" : b.toString();
    }

    /**
     * The URI with any user info replaced by {@code ***}: safe for messages and logs, even for a URI that does not
     * parse (everything up to the last {@code @} is hidden, wherever it stands).
     *
     * @param uri any string
     * @return the string without anything that may be credentials
     */
    public static String redacted(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return uri;
        }
        return (scheme >= 0 && scheme < at ? uri.substring(0, scheme + 3) : "") + "***@" + uri.substring(at + 1);
    }

    /**
     * Takes a URI apart, checking every part.
     *
     * @param uri the URI as the user gave it
     * @return its parts
     * @throws IllegalArgumentException naming what is wrong, never quoting the user info
     */
    public static RedisAddress parse(String uri) {
        String shown = redacted(uri);
        int schemeEnd = uri.indexOf("://");
        String scheme = schemeEnd < 0 ? "" : uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss") && !scheme.equals("redis-sentinel")
                && !scheme.equals("rediss-sentinel")) {
            throw new IllegalArgumentException(
                    "uri must start with redis://, rediss://, redis-sentinel:// or rediss-sentinel://: " + shown);
        }
        String rest = uri.substring(schemeEnd + 3);
        int authorityEnd = indexOfAny(rest, "/?#");
        if (rest.indexOf('@', authorityEnd) >= 0) {
            // An '@' after the host part: the user info must hold an unencoded '/', '?' or '#', so the URI cannot be
            // read safely. Say so without quoting any of it.
            throw new IllegalArgumentException("uri is malformed: an '@' follows a '/', '?' or '#', which means the "
                    + "user name or password contains one of them unencoded; " + ENCODING_HINT);
        }
        String authority = rest.substring(0, authorityEnd);
        int at = authority.lastIndexOf('@');
        Optional<String> username = Optional.empty();
        Optional<char[]> password = Optional.empty();
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = Optional.of(decodeSecret(userInfo).toCharArray());
            } else {
                String user = decodeSecret(userInfo.substring(0, colon));
                username = user.isEmpty() ? Optional.empty() : Optional.of(user);
                password = Optional.of(decodeSecret(userInfo.substring(colon + 1)).toCharArray());
            }
        }
        String hostPart = authority.substring(at + 1);
        boolean sentinel = scheme.endsWith("-sentinel");
        List<HostAndPort> hosts = new ArrayList<>();
        for (String h : (sentinel ? hostPart.split(",", -1) : new String[] {hostPart})) {
            hosts.add(hostAndPort(h, sentinel ? 26379 : 6379, shown));
        }

        String afterAuthority = rest.substring(authorityEnd);
        String fragment = null;
        int hash = afterAuthority.indexOf('#');
        if (hash >= 0) {
            fragment = afterAuthority.substring(hash + 1);
            afterAuthority = afterAuthority.substring(0, hash);
        }
        String query = null;
        int question = afterAuthority.indexOf('?');
        if (question >= 0) {
            query = afterAuthority.substring(question + 1);
            afterAuthority = afterAuthority.substring(0, question);
        }
        int database = database(afterAuthority, shown);
        Optional<String> master = fragment == null || fragment.isEmpty() ? Optional.empty()
                : Optional.of(decode(fragment, "master name"));
        Optional<String> clientName = Optional.empty();
        String verifyPeer = "FULL";
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1), "option " + key);
                switch (key) {
                    case "database", "db" -> database = databaseNumber(value, shown);
                    case "clientName" -> clientName = Optional.of(value);
                    case "sentinelMasterId" -> master = Optional.of(value);
                    case "verifyPeer" -> verifyPeer = verifyPeer(value);
                    default -> throw new IllegalArgumentException("uri option '" + key + "' is not supported "
                            + "(supported: database, clientName, verifyPeer, sentinelMasterId; timeouts are set "
                            + "with BatonConfig.Builder): " + shown);
                }
            }
        }
        if (sentinel && master.isEmpty()) {
            throw new IllegalArgumentException("a " + scheme + " uri needs the master name after '#', e.g. "
                    + scheme + "://127.0.0.1:26379#mymaster: " + shown);
        }
        if (!sentinel && fragment != null) {
            throw new IllegalArgumentException("uri has a '#' part, which only redis-sentinel:// takes (the master "
                    + "name); if it belongs to the password, " + ENCODING_HINT);
        }
        return new RedisAddress(scheme, List.copyOf(hosts), database, username, password, master, clientName,
                verifyPeer);
    }

    private static HostAndPort hostAndPort(String text, int defaultPort, String shown) {
        String host;
        String port = null;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("uri has an IPv6 host without its closing ']': " + shown);
            }
            host = text.substring(1, close);
            String after = text.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw new IllegalArgumentException("uri has characters after the IPv6 host: " + shown);
                }
                port = after.substring(1);
            }
        } else {
            int colon = text.lastIndexOf(':');
            host = colon < 0 ? text : text.substring(0, colon);
            port = colon < 0 ? null : text.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("uri has no host: " + shown);
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean ok = c < 0x80 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_'
                    || (text.startsWith("[") && (c == ':' || c == '%')));
            if (!ok) {
                throw new IllegalArgumentException("uri host contains '" + c + "', which no host name has; if it "
                        + "belongs to the password, " + ENCODING_HINT);
            }
        }
        if (port == null) {
            return new HostAndPort(host, defaultPort);
        }
        int p = -1;
        if (!port.isEmpty() && port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            p = Integer.parseInt(port);
        }
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("uri port must be a number from 1 to 65535, was '" + port + "': "
                    + shown);
        }
        return new HostAndPort(host, p);
    }

    private static int database(String path, String shown) {
        if (path.isEmpty() || path.equals("/")) {
            return 0;
        }
        return databaseNumber(path.substring(1), shown);
    }

    private static int databaseNumber(String text, String shown) {
        if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("uri database must be a number such as /0 or /3, was '" + text
                    + "': " + shown);
        }
        return Integer.parseInt(text);
    }

    private static String verifyPeer(String value) {
        return switch (value.toUpperCase(Locale.ROOT)) {
            case "FULL", "TRUE" -> "FULL";
            case "CA" -> "CA";
            case "NONE", "FALSE" -> "NONE";
            default -> throw new IllegalArgumentException(
                    "uri option verifyPeer must be FULL, CA or NONE, was '" + value + "'");
        };
    }

    /** Percent-decodes user info; its errors never show it. */
    private static String decodeSecret(String text) {
        try {
            return percentDecode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("uri user info has a '%' that is not followed by two hex digits; "
                    + ENCODING_HINT);
        }
    }

    private static String decode(String text, String what) {
        try {
            return percentDecode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("uri " + what + " has a '%' that is not followed by two hex digits");
        }
    }

    private static String percentDecode(String text) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (c == '%') {
                if (i + 2 >= text.length()) {
                    throw new IllegalArgumentException();
                }
                int hi = Character.digit(text.charAt(i + 1), 16);
                int lo = Character.digit(text.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException();
                }
                bytes.write(hi * 16 + lo);
                i += 3;
            } else {
                int cp = text.codePointAt(i);
                byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
                i += Character.charCount(cp);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return s.length();
    }

    @Override
    public String toString() {
        return scheme + "://" + (hasCredentials() ? "***@" : "") + String.join(",",
                hosts.stream().map(HostAndPort::toString).toList()) + "/" + database
                + master.map(m -> "#" + m).orElse("");
    }
}
