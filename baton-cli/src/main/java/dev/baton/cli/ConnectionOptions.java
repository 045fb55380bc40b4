package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.BatonUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * Where and how to reach Redis, as the library's {@link BatonConfig} does: one URI ({@code --redis}, standalone or
 * Sentinel, {@code rediss://} for TLS), Cluster seeds or Redlock masters; the namespace; credentials from the
 * environment or a file, never required on the command line, never printed (a password found in a URI is cut out of
 * every message, and a warning says it is visible to other users of the machine).
 */
public final class ConnectionOptions {
    /** Environment variable with the Redis URI ({@code --redis}). */
    public static final String ENV_URI = "BATON_REDIS_URI";
    /** Environment variable with the password. */
    public static final String ENV_PASSWORD = "BATON_REDIS_PASSWORD";
    /** Environment variable with the Sentinel password. */
    public static final String ENV_SENTINEL_PASSWORD = "BATON_SENTINEL_PASSWORD";

    @Option(names = "--redis", paramLabel = "URI", description = "Redis URI: redis://host:port[/db], rediss://... for "
            + "TLS, redis-sentinel://host:port[,host:port...]#master for Sentinel. Default: $" + ENV_URI
            + ", else redis://localhost:6379. Leave the password out: use $" + ENV_PASSWORD + " or --password-file.")
    String redis;

    @Option(names = "--cluster", paramLabel = "URI", split = ",", description = "Redis Cluster seed node URIs, "
            + "comma-separated, instead of --redis.")
    List<String> cluster;

    @Option(names = "--redlock", paramLabel = "URI", split = ",", description = "Independent Redlock master URIs, "
            + "comma-separated (an odd number, 3 or more), instead of --redis.")
    List<String> redlock;

    @Option(names = "--user", paramLabel = "NAME", description = "ACL user name (default: the URI's, else 'default').")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE", description = "Read the password from the first line of "
            + "FILE (default: $" + ENV_PASSWORD + "). It is never echoed.")
    Path passwordFile;

    @Option(names = "--sentinel-password-file", paramLabel = "FILE", description = "Read the Sentinels' password from "
            + "FILE (default: $" + ENV_SENTINEL_PASSWORD + ").")
    Path sentinelPasswordFile;

    @Option(names = "--cacert", paramLabel = "PEM", description = "Trust the CA certificates in this PEM file (TLS).")
    Path caCert;

    @Option(names = "--cert", paramLabel = "PEM", description = "Client certificate for mutual TLS (with --key).")
    Path clientCert;

    @Option(names = "--key", paramLabel = "PEM", description = "Private key of --cert (PKCS#8 PEM).")
    Path clientKey;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "Key namespace of the applications "
            + "(BatonConfig.namespace). Default: $BATON_NAMESPACE, else 'baton'.")
    String namespace;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class, description = "How long "
            + "one Redis command may take before Redis counts as unavailable. Default: 5s.")
    Duration timeout = Duration.ofSeconds(5);

    /**
     * The namespace in force.
     *
     * @return {@code --namespace}, else {@code $BATON_NAMESPACE}, else {@code baton}
     */
    public String namespace() {
        if (namespace != null) {
            return namespace;
        }
        String env = System.getenv("BATON_NAMESPACE");
        return env == null || env.isBlank() ? "baton" : env;
    }

    /**
     * Where the commands go, for messages: the endpoints without credentials.
     *
     * @return e.g. {@code redis://localhost:6379}
     */
    public String describe() {
        if (redlock != null && !redlock.isEmpty()) {
            return "redlock " + redlock.stream().map(ConnectionOptions::redacted).toList();
        }
        if (cluster != null && !cluster.isEmpty()) {
            return "cluster " + cluster.stream().map(ConnectionOptions::redacted).toList();
        }
        return redacted(uri());
    }

    /**
     * The settings these options describe, checked before any connection.
     *
     * @param err     where to warn about a password given on the command line
     * @param lease   the watchdog lease, or null for the library's default
     * @return the configuration
     * @throws CliFailure with {@link ExitStatus#USAGE} if an option is wrong
     */
    public BatonConfig config(PrintWriter err, Duration lease) {
        int forms = (redis != null ? 1 : 0) + (cluster != null ? 1 : 0) + (redlock != null ? 1 : 0);
        if (forms > 1) {
            throw new CliFailure(ExitStatus.USAGE, "give one of --redis, --cluster and --redlock");
        }
        BatonConfig.Builder b = BatonConfig.builder();
        try {
            if (redlock != null) {
                redlock.forEach(u -> checkUri("--redlock", u, err));
                b.redlock(redlock.toArray(String[]::new));
            } else if (cluster != null) {
                cluster.forEach(u -> checkUri("--cluster", u, err));
                b.cluster(cluster.toArray(String[]::new));
            } else {
                String uri = uri();
                checkUri(redis != null ? "--redis" : "$" + ENV_URI, uri, err);
                b.uri(uri);
            }
            if (user != null) {
                b.username(user);
            }
            char[] password = secret(passwordFile, "--password-file", ENV_PASSWORD);
            if (password != null) {
                b.password(password);
            }
            char[] sentinelPassword = secret(sentinelPasswordFile, "--sentinel-password-file", ENV_SENTINEL_PASSWORD);
            if (sentinelPassword != null) {
                b.sentinelPassword(sentinelPassword);
            }
            if (caCert != null) {
                b.trustedCertificates(readable(caCert, "--cacert"));
            }
            if ((clientCert == null) != (clientKey == null)) {
                throw new CliFailure(ExitStatus.USAGE, "--cert and --key go together");
            }
            if (clientCert != null) {
                b.clientCertificate(readable(clientCert, "--cert"), readable(clientKey, "--key"));
            }
            b.namespace(namespace());
            b.commandTimeout(timeout);
            if (lease != null) {
                b.watchdogLease(lease);
            }
            return b.build();
        } catch (IllegalArgumentException | NullPointerException e) {
            // The library's messages name the parameter and never quote a URI's user info.
            throw new CliFailure(ExitStatus.USAGE, e.getMessage());
        }
    }

    /**
     * Connects, turning the library's failures into the command line's exit statuses: unreachable Redis is
     * {@link ExitStatus#UNAVAILABLE}; refused credentials or settings are {@link ExitStatus#USAGE}.
     *
     * @param err   where to warn
     * @param lease the watchdog lease, or null for the default
     * @return a connected Baton; close it when done
     * @throws CliFailure if the connection cannot be made
     */
    public Baton connect(PrintWriter err, Duration lease) {
        BatonConfig config = config(err, lease);
        try {
            return Baton.connect(config);
        } catch (BatonUnavailableException e) {
            throw new CliFailure(ExitStatus.UNAVAILABLE, "Redis unavailable: " + e.getMessage());
        } catch (BatonException e) {
            throw new CliFailure(ExitStatus.USAGE, "Redis refused the connection: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitStatus.USAGE, e.getMessage());
        }
    }

    private String uri() {
        if (redis != null) {
            return redis;
        }
        String env = System.getenv(ENV_URI);
        return env == null || env.isBlank() ? "redis://localhost:6379" : env.strip();
    }

    /** Refuses what is not a Redis URI before the library sees it, and warns of a password in it. */
    private static void checkUri(String option, String uri, PrintWriter err) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (!(lower.startsWith("redis://") || lower.startsWith("rediss://") || lower.startsWith("redis-sentinel://")
                || lower.startsWith("rediss-sentinel://"))) {
            throw new CliFailure(ExitStatus.USAGE, option + ": '" + redacted(uri) + "' is not a Redis URI (expected "
                    + "redis://host:port, rediss://host:port or redis-sentinel://host:port#master)");
        }
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (at > scheme && uri.substring(scheme + 3, at).contains(":")) {
            err.println("baton: warning: the password in " + option + " is visible to other users of this machine "
                    + "(ps, shell history); use $" + ENV_PASSWORD + " or --password-file");
        }
    }

    /**
     * A URI without its user info, for messages.
     *
     * @param uri a URI
     * @return the URI with {@code user:password@} replaced by {@code ***@}
     */
    public static String redacted(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        return scheme < 0 || at < scheme ? uri : uri.substring(0, scheme + 3) + "***@" + uri.substring(at + 1);
    }

    private static char[] secret(Path file, String option, String env) {
        if (file != null) {
            try {
                byte[] bytes = Files.readAllBytes(readable(file, option));
                String text = new String(bytes, StandardCharsets.UTF_8);
                int end = text.indexOf('\n');
                String line = end < 0 ? text : text.substring(0, end);
                if (line.endsWith("\r")) {
                    line = line.substring(0, line.length() - 1);
                }
                Arrays.fill(bytes, (byte) 0);
                if (line.isEmpty()) {
                    throw new CliFailure(ExitStatus.USAGE, option + ": " + file + " is empty");
                }
                return line.toCharArray();
            } catch (IOException e) {
                throw new CliFailure(ExitStatus.USAGE, option + ": cannot read " + file + " ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        String value = System.getenv(env);
        return value == null || value.isEmpty() ? null : value.toCharArray();
    }

    private static Path readable(Path file, String option) {
        if (!Files.isReadable(file)) {
            throw new CliFailure(ExitStatus.USAGE, option + ": cannot read " + file);
        }
        return file;
    }
}
