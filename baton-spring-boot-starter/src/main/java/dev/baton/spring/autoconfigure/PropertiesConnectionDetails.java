package dev.baton.spring.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * {@code spring.data.redis.*} seen as {@link DataRedisConnectionDetails}, for applications where Boot's own details
 * bean is absent (its Redis auto-configuration excluded), so that the starter reads one shape whatever the source.
 * Mirrors Boot's reading: the url, when set, wins over host, port, database and the credentials. Immutable once
 * constructed; thread-safe.
 */
final class PropertiesConnectionDetails implements DataRedisConnectionDetails {
    private static final int DEFAULT_PORT = 6379;

    private final DataRedisProperties properties;
    private final SslBundles sslBundles;
    private final ParsedUrl url;

    /**
     * @param properties the bound {@code spring.data.redis.*}
     * @param sslBundles the application's bundles, or null when it has none
     * @throws InvalidConfigurationPropertyValueException if the url is malformed (the value is never quoted: it may
     *                                                    hold a password)
     */
    PropertiesConnectionDetails(DataRedisProperties properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
        this.url = properties.getUrl() == null || properties.getUrl().isBlank() ? null : ParsedUrl.of(properties.getUrl());
    }

    /** Whether the url asks for TLS ({@code rediss://}). */
    boolean urlUsesTls() {
        return url != null && url.tls();
    }

    @Override
    public String getUsername() {
        return url != null ? url.username() : properties.getUsername();
    }

    @Override
    public String getPassword() {
        return url != null ? url.password() : properties.getPassword();
    }

    @Override
    public SslBundle getSslBundle() {
        String bundle = properties.getSsl().getBundle();
        if (bundle == null || bundle.isBlank()) {
            return null;
        }
        if (sslBundles == null) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.ssl.bundle", bundle,
                    "the application has no SSL bundles (spring.ssl.bundle.*)");
        }
        return sslBundles.getBundle(bundle);
    }

    @Override
    public Standalone getStandalone() {
        if (url != null) {
            return Standalone.of(url.host(), url.port(), url.database());
        }
        return Standalone.of(properties.getHost(), properties.getPort(), properties.getDatabase());
    }

    @Override
    public Sentinel getSentinel() {
        DataRedisProperties.Sentinel sentinel = properties.getSentinel();
        if (sentinel == null) {
            return null;
        }
        int database = url != null ? url.database() : properties.getDatabase();
        List<Node> nodes = nodes(sentinel.getNodes(), "spring.data.redis.sentinel.nodes");
        return new Sentinel() {
            @Override
            public int getDatabase() {
                return database;
            }

            @Override
            public String getMaster() {
                return sentinel.getMaster();
            }

            @Override
            public List<Node> getNodes() {
                return nodes;
            }

            @Override
            public String getUsername() {
                return sentinel.getUsername();
            }

            @Override
            public String getPassword() {
                return sentinel.getPassword();
            }
        };
    }

    @Override
    public Cluster getCluster() {
        DataRedisProperties.Cluster cluster = properties.getCluster();
        if (cluster == null) {
            return null;
        }
        List<Node> nodes = nodes(cluster.getNodes(), "spring.data.redis.cluster.nodes");
        return () -> nodes;
    }

    @Override
    public MasterReplica getMasterReplica() {
        DataRedisProperties.Masterreplica replicas = properties.getMasterreplica();
        if (replicas == null || replicas.getNodes() == null || replicas.getNodes().isEmpty()) {
            return null;
        }
        List<Node> nodes = nodes(replicas.getNodes(), "spring.data.redis.masterreplica.nodes");
        return () -> nodes;
    }

    private static List<Node> nodes(List<String> nodes, String property) {
        if (nodes == null) {
            return List.of();
        }
        return nodes.stream().map(node -> node(node, property)).toList();
    }

    /** {@code host:port}, the host possibly an IPv6 address in brackets. */
    private static Node node(String node, String property) {
        int colon = node.lastIndexOf(':');
        if (colon <= 0 || colon == node.length() - 1) {
            throw new InvalidConfigurationPropertyValueException(property, node, "each node is host:port");
        }
        String host = node.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new Node(host, Integer.parseInt(node.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationPropertyValueException(property, node, "the port of each node is a number");
        }
    }

    /** A {@code redis://} or {@code rediss://} url, read the way Boot reads {@code spring.data.redis.url}. */
    private record ParsedUrl(boolean tls, String host, int port, int database, String username, String password) {

        static ParsedUrl of(String url) {
            URI uri;
            try {
                uri = new URI(url.trim());
            } catch (URISyntaxException e) {
                throw invalid("it is not a valid URI");
            }
            String scheme = uri.getScheme();
            if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
                throw invalid("the scheme must be redis or rediss");
            }
            if (uri.getHost() == null) {
                throw invalid("it names no host");
            }
            String username = null;
            String password = null;
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                if (colon >= 0) {
                    username = colon == 0 ? null : decode(userInfo.substring(0, colon));
                    password = decode(userInfo.substring(colon + 1));
                } else {
                    password = decode(userInfo); // Boot reads a lone user-info part as the password
                }
            }
            int database = 0;
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException e) {
                    throw invalid("its path, if any, is the database number");
                }
            }
            String host = uri.getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new ParsedUrl("rediss".equals(scheme), host, uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort(),
                    database, username, password);
        }

        private static String decode(String part) {
            return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
        }

        /** The url is never quoted back: its user info may hold a password. */
        private static InvalidConfigurationPropertyValueException invalid(String reason) {
            return new InvalidConfigurationPropertyValueException("spring.data.redis.url", "(not shown)", reason);
        }

        @Override
        public String toString() {
            return "ParsedUrl{host=" + host + ", port=" + port + ", database=" + database + ", tls=" + tls + "}";
        }
    }
}
