package dev.baton.support;

/** The Redis deployments Baton supports, each as the test kit starts it. */
public enum Topology {
    /** One {@code redis-server} ({@link dev.baton.test.RedisServer}), reached with {@code uri("redis://...")}. */
    STANDALONE,
    /** 1 master, 2 replicas, 3 sentinels ({@link dev.baton.test.RedisSentinelGroup}), {@code redis-sentinel://}. */
    SENTINEL,
    /** 3 masters with a replica each ({@link dev.baton.test.RedisCluster}), reached with {@code cluster(...)}. */
    CLUSTER;

    /** The name shown for a test run on this topology. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
