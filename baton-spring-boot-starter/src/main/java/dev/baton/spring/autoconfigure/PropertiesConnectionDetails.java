package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * {@code spring.data.redis.*} seen as {@link DataRedisConnectionDetails}, for applications where Boot's own details
 * bean is absent (its Redis auto-configuration excluded), or where {@code spring.data.redis.url} is set (Boot's bean
 * would read the url with {@code java.net.URI}), so that the starter reads one shape whatever the source. The url is
 * not read here: {@link RedisUrl} hands it to Baton's own parser, and it wins over host, port, database and the
 * credentials as in Boot. Immutable once constructed; thread-safe.
 */
final class PropertiesConnectionDetails implements DataRedisConnectionDetails {
    private final DataRedisProperties properties;
    private final SslBundles sslBundles;

    /**
     * @param properties the bound {@code spring.data.redis.*}
     * @param sslBundles the application's bundles, or null when it has none
     */
    PropertiesConnectionDetails(DataRedisProperties properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
    }

    @Override
    public String getUsername() {
        return properties.getUsername();
    }

    @Override
    public String getPassword() {
        return properties.getPassword();
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
        return Standalone.of(properties.getHost(), properties.getPort(), properties.getDatabase());
    }

    @Override
    public Sentinel getSentinel() {
        DataRedisProperties.Sentinel sentinel = properties.getSentinel();
        if (sentinel == null) {
            return null;
        }
        int database = properties.getDatabase();
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
}
