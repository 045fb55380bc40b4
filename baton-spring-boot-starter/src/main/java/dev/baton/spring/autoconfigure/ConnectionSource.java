package dev.baton.spring.autoconfigure;

import java.util.List;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the auto-configured Baton connects, in one shape whatever the source: {@code spring.data.redis.*} read by the
 * starter itself ({@link PropertiesConnectionDetails}), or the connection details of a service connection from Boot's
 * data-redis module ({@link ServiceConnectionDetails}). The starter's own type rather than Boot's
 * {@code DataRedisConnectionDetails}, so that it runs without that module: an application that only wants Baton gets
 * no Spring Data Redis client, connection or health component beside Baton's.
 */
interface ConnectionSource {

    /** @return the data nodes' user name, or null */
    String username();

    /** @return the data nodes' password, or null */
    String password();

    /** @return the SSL bundle to connect with, or null for none */
    SslBundle sslBundle();

    /** @return the one server to connect to, when neither Sentinel nor Cluster is configured */
    Standalone standalone();

    /** @return the Sentinel setup, or null when Sentinel is not configured */
    Sentinel sentinel();

    /** @return the cluster's seed nodes (possibly empty), or null when Cluster is not configured */
    List<Node> clusterNodes();

    /** @return whether a static master/replica setup is configured (which Baton refuses) */
    boolean masterReplica();

    /**
     * A node's address.
     *
     * @param host host name or IP address (an IPv6 address without brackets)
     * @param port TCP port
     */
    record Node(String host, int port) {
    }

    /**
     * One server.
     *
     * @param host     host name or IP address
     * @param port     TCP port
     * @param database the database index
     */
    record Standalone(String host, int port, int database) {
    }

    /**
     * A Sentinel setup.
     *
     * @param database the database index on the master
     * @param master   the master's name, as the sentinels know it (may be blank: refused later, with its property)
     * @param nodes    the sentinels
     * @param username the sentinels' own user name, or null
     * @param password the sentinels' own password, or null
     */
    record Sentinel(int database, String master, List<Node> nodes, String username, String password) {
        @Override
        public String toString() {
            // A record's own toString would print the password.
            return "Sentinel[database=" + database + ", master=" + master + ", nodes=" + nodes + "]";
        }
    }
}
