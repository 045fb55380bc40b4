package dev.baton.bench;

import dev.baton.BatonConfig;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.config.Config;

/**
 * Where a contender connects: a standalone server, a Sentinel group (its sentinels and master name) or a Cluster (its
 * seed nodes), told to Baton and to Redisson each in its own configuration, so that both use the same servers in the
 * same way. Also knows the processes whose CPU counts as Redis's for that topology.
 *
 * @param topology   {@code standalone}, {@code sentinel} or {@code cluster}
 * @param addresses  {@code redis://host:port}: the server, the sentinels, or the cluster seeds
 * @param masterName the name the sentinels monitor (Sentinel only)
 * @param redisPids  every redis-server process of the topology (data nodes and sentinels)
 */
record RedisTarget(String topology, List<String> addresses, String masterName, List<Long> redisPids) {
    static final String STANDALONE = "standalone";
    static final String SENTINEL = "sentinel";
    static final String CLUSTER = "cluster";

    /** A standalone server known only by its URI (a JMH fork): Redis's CPU is not measured. */
    static RedisTarget standalone(String uri) {
        return new RedisTarget(STANDALONE, List.of(uri), null, List.of());
    }

    static RedisTarget of(RedisServer server) {
        return new RedisTarget(STANDALONE, List.of(server.uri()), null, List.of(server.pid()));
    }

    static RedisTarget of(RedisSentinelGroup group) {
        List<Long> pids = new ArrayList<>();
        group.dataNodes().forEach(n -> pids.add(n.pid()));
        group.sentinels().forEach(n -> pids.add(n.pid()));
        return new RedisTarget(SENTINEL, group.sentinels().stream().map(RedisServer::uri).toList(),
                group.masterName(), pids);
    }

    static RedisTarget of(RedisCluster cluster) {
        return new RedisTarget(CLUSTER, cluster.seedUris(), null,
                cluster.nodes().stream().map(RedisServer::pid).toList());
    }

    /** Baton's configuration for this target, with its defaults otherwise. */
    BatonConfig baton() {
        return batonBuilder().build();
    }

    /**
     * Baton with replica-acknowledged locks: every acquisition counts once {@code replicas} replicas have it,
     * waiting at most {@code timeout} (generous here, so that a loaded machine slows the benchmark down rather than
     * failing acquisitions). Sentinel (or standalone with replicas) only: Baton refuses it on a Cluster.
     */
    BatonConfig batonAcknowledged(int replicas, Duration timeout) {
        return batonBuilder().replicaAcknowledged(replicas, timeout).build();
    }

    private BatonConfig.Builder batonBuilder() {
        BatonConfig.Builder builder = BatonConfig.builder();
        switch (topology) {
            case SENTINEL -> builder.uri("redis-sentinel://" + String.join(",",
                    addresses.stream().map(a -> a.substring("redis://".length())).toList()) + "#" + masterName);
            case CLUSTER -> builder.cluster(addresses.toArray(String[]::new));
            default -> builder.uri(addresses.get(0));
        }
        return builder;
    }

    /** Redisson's configuration for this target, with its defaults otherwise. */
    Config redisson() {
        Config config = new Config();
        switch (topology) {
            case SENTINEL -> config.useSentinelServers().setMasterName(masterName)
                    .addSentinelAddress(addresses.toArray(String[]::new));
            case CLUSTER -> config.useClusterServers().addNodeAddress(addresses.toArray(String[]::new));
            default -> config.useSingleServer().setAddress(addresses.get(0));
        }
        return config;
    }

    /** The URI of a standalone server; the floors only run there. */
    String uri() {
        if (!topology.equals(STANDALONE)) {
            throw new IllegalStateException("the floors connect to a standalone server only, not to a " + topology);
        }
        return addresses.get(0);
    }
}
