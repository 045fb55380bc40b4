package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * A {@link DataRedisConnectionDetails} bean that is not Boot's reading of {@code spring.data.redis.*} (a service
 * connection: Testcontainers' {@code @ServiceConnection}, Docker Compose, or the application's own bean) as a
 * {@link ConnectionSource}. Such a bean replaces the properties, url included, as it does for Spring Data Redis.
 *
 * <p>The only class of the starter that names a type of Boot's data-redis module, which is optional: it is loaded only
 * once {@link BatonAutoConfiguration} has found the module on the application's class path. Immutable; thread-safe.
 */
final class ServiceConnectionDetails implements ConnectionSource {
    private final DataRedisConnectionDetails details;

    private ServiceConnectionDetails(DataRedisConnectionDetails details) {
        this.details = details;
    }

    /**
     * The service connection, if the context has one.
     *
     * @param beans the application's beans
     * @return the service connection's details, or null when there is none (no details bean, or only Boot's own,
     *         made from {@code spring.data.redis.*}, which the starter reads itself)
     */
    static ConnectionSource find(BeanFactory beans) {
        DataRedisConnectionDetails details = beans.getBeanProvider(DataRedisConnectionDetails.class).getIfAvailable();
        return details == null || RedisUrlCheck.isBootsPropertiesDetails(details) ? null
                : new ServiceConnectionDetails(details);
    }

    @Override
    public String username() {
        return details.getUsername();
    }

    @Override
    public String password() {
        return details.getPassword();
    }

    @Override
    public SslBundle sslBundle() {
        return details.getSslBundle();
    }

    @Override
    public Standalone standalone() {
        DataRedisConnectionDetails.Standalone server = details.getStandalone();
        return new Standalone(server.getHost(), server.getPort(), server.getDatabase());
    }

    @Override
    public Sentinel sentinel() {
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        return sentinel == null ? null : new Sentinel(sentinel.getDatabase(), sentinel.getMaster(),
                nodes(sentinel.getNodes()), sentinel.getUsername(), sentinel.getPassword());
    }

    @Override
    public List<Node> clusterNodes() {
        DataRedisConnectionDetails.Cluster cluster = details.getCluster();
        return cluster == null ? null : nodes(cluster.getNodes());
    }

    @Override
    public boolean masterReplica() {
        return details.getMasterReplica() != null;
    }

    private static List<Node> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes == null ? List.of() : nodes.stream().map(node -> new Node(node.host(), node.port())).toList();
    }
}
