package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * {@code spring.data.redis.*} as a {@link ConnectionSource}: what the starter connects with unless a service connection
 * replaces the properties, whether Boot's data-redis module is in the application or not, so that both cases read the
 * properties the same way. The url is not read here: {@link RedisUrl} hands it to Baton's own parser, and it wins over
 * host, port, database and the credentials as in Boot. Immutable once constructed; thread-safe.
 */
final class PropertiesConnectionDetails implements ConnectionSource {
    private final SpringDataRedisProperties properties;
    private final SslBundles sslBundles;

    /**
     * @param properties the bound {@code spring.data.redis.*}
     * @param sslBundles the application's bundles, or null when it has none
     */
    PropertiesConnectionDetails(SpringDataRedisProperties properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
    }

    @Override
    public String username() {
        return properties.username();
    }

    @Override
    public String password() {
        return properties.password();
    }

    @Override
    public SslBundle sslBundle() {
        String bundle = properties.sslBundle();
        if (bundle == null) {
            return null;
        }
        if (sslBundles == null) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.ssl.bundle", bundle,
                    "the application has no SSL bundles (spring.ssl.bundle.*)");
        }
        return sslBundles.getBundle(bundle);
    }

    @Override
    public Standalone standalone() {
        return new Standalone(properties.host(), properties.port(), properties.database());
    }

    @Override
    public Sentinel sentinel() {
        SpringDataRedisProperties.Sentinel sentinel = properties.sentinel();
        if (sentinel == null) {
            return null;
        }
        return new Sentinel(properties.database(), sentinel.master(),
                nodes(sentinel.nodes(), "spring.data.redis.sentinel.nodes"), sentinel.username(),
                sentinel.password());
    }

    @Override
    public List<Node> clusterNodes() {
        List<String> nodes = properties.clusterNodes();
        return nodes == null ? null : nodes(nodes, "spring.data.redis.cluster.nodes");
    }

    @Override
    public boolean masterReplica() {
        return !properties.masterReplicaNodes().isEmpty();
    }

    private static List<Node> nodes(List<String> nodes, String property) {
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
