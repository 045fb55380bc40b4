package dev.baton.spring.autoconfigure;

import dev.baton.BatonConfig;
import dev.baton.spring.autoconfigure.ConnectionSource.Node;
import io.lettuce.core.SslOptions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where and how Baton connects, translated from a {@link ConnectionSource} into
 * {@link BatonConfig.Builder} settings: the topology Boot would pick (Sentinel, else Cluster, else one server), the
 * credentials of the data nodes and of the sentinels, and TLS, from an SSL bundle (turned into Lettuce
 * {@link SslOptions}) or the JVM's trust store. {@code spring.data.redis.url}, when it applies, is handed to Baton as a
 * string ({@link RedisUrl}) and wins over the details' server and credentials, as in Boot. Misconfiguration fails with
 * an exception that names the {@code spring.data.redis.*} property and never quotes a password. Stateless.
 */
final class RedisConnectionSettings {

    private RedisConnectionSettings() {
    }

    /**
     * Applies the connection to the builder.
     *
     * @param details          where to connect; when {@code url} is given, only its Sentinel, Cluster, master/replica
     *                         and SSL bundle are read (the url wins over its server and credentials, as in Boot)
     * @param url              {@code spring.data.redis.url}, checked by Baton's parser, or null when it does not
     *                         apply (not set, or the details come from a service connection)
     * @param tlsWithoutBundle whether TLS is asked for without a bundle ({@code ssl.enabled})
     * @param handshakeTimeout the bound of a TLS handshake built from a bundle
     * @param builder          the builder to fill
     */
    static void apply(ConnectionSource details, RedisUrl url, boolean tlsWithoutBundle,
                      Duration handshakeTimeout, BatonConfig.Builder builder) {
        SslBundle bundle = details.sslBundle();
        boolean tls = bundle != null || tlsWithoutBundle || (url != null && url.tls());
        ConnectionSource.Sentinel sentinel = details.sentinel();
        List<Node> cluster = details.clusterNodes();
        if (sentinel != null) {
            builder.uri(sentinelUri(sentinel, url, tls));
            sentinelCredentials(sentinel, builder);
        } else if (cluster != null) {
            if (cluster.isEmpty()) {
                throw new InvalidConfigurationPropertyValueException("spring.data.redis.cluster.nodes", null,
                        "a cluster needs at least one node (host:port)");
            }
            builder.cluster(cluster.stream().map(n -> url != null ? url.clusterSeed(tls, hostAndPort(n))
                    : scheme(tls) + "://" + hostAndPort(n)).toArray(String[]::new));
        } else if (details.masterReplica()) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.masterreplica.nodes", null,
                    "Baton does not support static master/replica setups: its locks must be written to the master, "
                            + "which Sentinel (spring.data.redis.sentinel.*) finds and follows");
        } else if (url != null) {
            builder.uri(url.server(tls));
        } else {
            ConnectionSource.Standalone server = details.standalone();
            builder.uri(scheme(tls) + "://" + hostAndPort(new Node(server.host(), server.port())) + "/"
                    + server.database());
        }
        // With a url, its credentials (if any) are in the URIs above, and Boot ignores username and password.
        if (url == null) {
            credentials(details.username(), details.password(), "spring.data.redis", builder);
        }
        if (bundle != null) {
            builder.sslOptions(sslOptions(bundle, handshakeTimeout));
        }
    }

    private static String sentinelUri(ConnectionSource.Sentinel sentinel, RedisUrl url, boolean tls) {
        String master = sentinel.master();
        if (master == null || master.isBlank()) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.sentinel.master", master,
                    "Sentinel needs the name of the master it monitors");
        }
        List<Node> nodes = sentinel.nodes();
        if (nodes.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.sentinel.nodes", null,
                    "Sentinel needs at least one sentinel (host:port)");
        }
        String sentinels = nodes.stream().map(RedisConnectionSettings::hostAndPort).collect(Collectors.joining(","));
        if (url != null) {
            return url.sentinel(tls, sentinels, master);
        }
        return scheme(tls) + "-sentinel://" + sentinels + "/" + sentinel.database() + "#" + master;
    }

    private static void sentinelCredentials(ConnectionSource.Sentinel sentinel, BatonConfig.Builder builder) {
        String username = blankToNull(sentinel.username());
        String password = emptyToNull(sentinel.password());
        if (username != null && password == null) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.sentinel.password", null,
                    "spring.data.redis.sentinel.username is set, so the sentinels need its password too");
        }
        if (password != null) {
            builder.sentinelPassword(password.toCharArray());
        }
        if (username != null) {
            builder.sentinelUsername(username);
        }
    }

    private static void credentials(String rawUsername, String rawPassword, String prefix,
                                    BatonConfig.Builder builder) {
        String username = blankToNull(rawUsername);
        String password = emptyToNull(rawPassword);
        if (username != null && password == null) {
            throw new InvalidConfigurationPropertyValueException(prefix + ".password", null,
                    prefix + ".username is set, so Redis needs its password too");
        }
        if (password != null) {
            builder.password(password.toCharArray());
        }
        if (username != null) {
            builder.username(username);
        }
    }

    /**
     * Lettuce options from a bundle: its key and trust managers, protocols and ciphers; the handshake bounded like
     * any other command, where Lettuce's own default would wait 10 s.
     */
    private static SslOptions sslOptions(SslBundle bundle, Duration handshakeTimeout) {
        SslOptions.Builder options = SslOptions.builder().jdkSslProvider()
                .keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory())
                .handshakeTimeout(handshakeTimeout);
        String[] ciphers = bundle.getOptions().getCiphers();
        if (ciphers != null) {
            options.cipherSuites(ciphers);
        }
        String[] protocols = bundle.getOptions().getEnabledProtocols();
        if (protocols != null) {
            options.protocols(protocols);
        }
        return options.build();
    }

    private static String scheme(boolean tls) {
        return tls ? "rediss" : "redis";
    }

    private static String hostAndPort(Node node) {
        String host = node.host();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + node.port();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
