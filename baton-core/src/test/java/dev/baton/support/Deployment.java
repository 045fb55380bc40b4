package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * A running Redis deployment of one {@link Topology}, as a test sees it: how to connect a {@link Baton} to it, and
 * where its keys live, so that a test can look at or disturb the server that holds a lock or a rate limiter whatever
 * the topology. On a standalone server every key lives on that server; behind Sentinel on the current master; on a
 * cluster on the master that owns the key's hash slot.
 *
 * <p>Thread-safe: every question is asked anew of the deployment (who is master may change during a test).
 */
public abstract class Deployment {
    private static final Duration SETTLE = Duration.ofSeconds(60);

    private final Topology topology;

    private Deployment(Topology topology) {
        this.topology = topology;
    }

    /** A deployment on one server, asked for lazily: the extension that owns it may replace it between tests. */
    static Deployment standalone(Supplier<RedisServer> server) {
        return new Standalone(server);
    }

    static Deployment sentinel(RedisSentinelGroup group) {
        return new Sentinel(group);
    }

    static Deployment cluster(RedisCluster cluster) {
        return new Cluster(cluster);
    }

    public final Topology topology() {
        return topology;
    }

    /**
     * A configuration builder that reaches this deployment, with the short test durations of {@link TestBatons} set
     * (each may be overridden).
     */
    public final BatonConfig.Builder builder() {
        return address(BatonConfig.builder()).watchdogLease(TestBatons.LEASE).commandTimeout(TestBatons.TIMEOUT)
                .recheckInterval(TestBatons.RECHECK);
    }

    /**
     * A configuration builder that reaches this deployment, with the patient durations of
     * {@link TestBatons#patientConfig} (each may be overridden): for tests that are not about timeouts or expiry.
     */
    public final BatonConfig.Builder patientBuilder() {
        return address(BatonConfig.builder()).watchdogLease(TestBatons.PATIENT_LEASE)
                .commandTimeout(TestBatons.PATIENT_TIMEOUT).recheckInterval(TestBatons.RECHECK);
    }

    /** A Baton with the short test durations of {@link TestBatons}. */
    public final Baton connect() {
        return Baton.connect(builder().build());
    }

    /** Sets the address of this deployment ({@code uri(...)} or {@code cluster(...)}) on a builder. */
    public abstract BatonConfig.Builder address(BatonConfig.Builder builder);

    /** The master that holds {@code key} right now. */
    public abstract RedisServer master(String key);

    /** The masters right now: the one server, the Sentinel master, or the cluster's masters. */
    public abstract List<RedisServer> masters();

    /** Every data node (not the sentinels), whatever its role or state. */
    public abstract List<RedisServer> nodes();

    /** Runs a command on the master that holds {@code key}, as {@link RedisServer#command} does. */
    public final String command(String key, String... command) {
        return master(key).command(command);
    }

    /**
     * Subscribers of a channel over all data nodes that answer (PUBSUB NUMSUB counts only a node's own clients, and
     * a Baton's subscription may sit on any node of a cluster, or on a demoted master behind Sentinel).
     */
    public final long subscribers(String channel) {
        return answering(nodes()).stream().mapToLong(node -> Measure.subscribers(node, channel)).sum();
    }

    /** Scripts run by all masters, as {@link Measure#scriptsRun} counts them. */
    public final long scriptsRun() {
        return masters().stream().mapToLong(Measure::scriptsRun).sum();
    }

    /** The keys matching a pattern over all masters. */
    public final List<String> keys(String pattern) {
        List<String> keys = new ArrayList<>();
        for (RedisServer master : masters()) {
            Arrays.stream(master.command("KEYS", pattern).split("\n")).map(String::trim).filter(k -> !k.isEmpty())
                    .forEach(keys::add);
        }
        return keys;
    }

    /** Deletes every key and cached script on every master. */
    public final void flush() {
        for (RedisServer master : masters()) {
            master.command("FLUSHALL");
            master.command("SCRIPT", "FLUSH");
        }
    }

    /** Waits until the deployment serves again (a master that accepts writes; a settled cluster), then flushes it. */
    abstract void settleAndFlush();

    @Override
    public String toString() {
        return topology.label();
    }

    private static List<RedisServer> answering(List<RedisServer> nodes) {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).toList();
    }

    private static final class Standalone extends Deployment {
        private final Supplier<RedisServer> server;

        Standalone(Supplier<RedisServer> server) {
            super(Topology.STANDALONE);
            this.server = server;
        }

        @Override
        public BatonConfig.Builder address(BatonConfig.Builder builder) {
            return builder.uri(server.get().uri());
        }

        @Override
        public RedisServer master(String key) {
            return server.get();
        }

        @Override
        public List<RedisServer> masters() {
            return List.of(server.get());
        }

        @Override
        public List<RedisServer> nodes() {
            return List.of(server.get());
        }

        @Override
        void settleAndFlush() {
            // RedisExtension heals and flushes its server before every test.
        }
    }

    private static final class Sentinel extends Deployment {
        private final RedisSentinelGroup group;

        Sentinel(RedisSentinelGroup group) {
            super(Topology.SENTINEL);
            this.group = group;
        }

        @Override
        public BatonConfig.Builder address(BatonConfig.Builder builder) {
            return builder.uri(group.sentinelUri());
        }

        @Override
        public RedisServer master(String key) {
            return group.master();
        }

        @Override
        public List<RedisServer> masters() {
            return List.of(group.master());
        }

        @Override
        public List<RedisServer> nodes() {
            return group.dataNodes();
        }

        @Override
        void settleAndFlush() {
            group.awaitMaster(SETTLE);
            flush();
        }
    }

    private static final class Cluster extends Deployment {
        private final RedisCluster cluster;

        Cluster(RedisCluster cluster) {
            super(Topology.CLUSTER);
            this.cluster = cluster;
        }

        @Override
        public BatonConfig.Builder address(BatonConfig.Builder builder) {
            return builder.cluster(cluster.seedUris().toArray(String[]::new));
        }

        @Override
        public RedisServer master(String key) {
            return cluster.masterForKey(key);
        }

        @Override
        public List<RedisServer> masters() {
            return cluster.masters();
        }

        @Override
        public List<RedisServer> nodes() {
            return cluster.nodes();
        }

        @Override
        void settleAndFlush() {
            cluster.awaitStable(SETTLE);
            flush();
        }
    }
}
