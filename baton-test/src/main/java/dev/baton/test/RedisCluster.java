package dev.baton.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of 3 masters with 1 replica each, on 6 {@link RedisServer}s: master {@code i} (nodes 0 to 2)
 * owns slots {@code 0-5460}, {@code 5461-10922} and {@code 10923-16383} respectively, and node {@code i + 3}
 * replicates it. {@link #start(RedisBinary, int)} starts one of {@code n} masters instead (for benchmarks that add
 * masters): master {@code i} (nodes 0 to {@code n - 1}) owns the {@code i}-th of {@code n} nearly equal slot ranges
 * and node {@code i + n} replicates it; everything below holds for it with {@code n} and {@code 2n} for 3 and 6. The cluster is created from Java with the kit's own RESP client ({@code CLUSTER ADDSLOTS},
 * {@code MEET}, {@code REPLICATE}), so it needs no {@code redis-cli} and works with every binary
 * {@link RedisBinary#locate()} finds (Redis 6.2 and 7.x).
 *
 * <p>Each node runs with {@code --cluster-enabled yes}, its {@code nodes.conf} in its own directory (so a
 * {@linkplain RedisServer#restart() restarted} node keeps its identity and rejoins), {@code --cluster-node-timeout
 * 3000} (a killed master is replaced by its replica within a few seconds, while a loaded machine does not make nodes
 * look failed), and {@code --cluster-replica-validity-factor 0} (a replica may take over however long its link was
 * down). Like every {@link RedisServer}, nodes keep no data across a restart: a master restarted before its replica
 * took over comes back empty, still owning its slots.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #start()} returns only once every node reports {@code cluster_state:ok}, all nodes know each other
 *       with connected links, all of them report the planned masters, slots and replicas, and every replica's
 *       replication link is up. If that does not happen, it closes every node it started and throws.</li>
 *   <li>{@link #failover(RedisServer)} and {@link #migrateSlot(int, RedisServer)} return only once the cluster has
 *       settled again as {@link #awaitStable(Duration)} describes.</li>
 *   <li>{@link #close()} is idempotent and closes every node (processes killed, directories deleted), even if closing
 *       one fails; a JVM shutdown hook covers a cluster that is never closed, as for every {@link RedisServer}.</li>
 * </ul>
 *
 * <p>Failure behaviour: waits use generous deadlines (60 s) and fail with an {@link IllegalStateException} naming
 * what was still missing, followed by the last lines of every node's log. A command that a node refuses fails with
 * an {@link IllegalStateException} carrying Redis' message; one sent to a node that must answer but cannot (e.g. the
 * replica given to {@link #failover(RedisServer)} is killed) fails with an {@link java.io.UncheckedIOException}.
 *
 * <p>Thread-safety: the queries and {@link #awaitStable(Duration)} may be called from any thread. The operations
 * that change the topology ({@link #failover(RedisServer)}, {@link #migrateSlot(int, RedisServer)}) are synchronized
 * with each other; nodes may be killed, paused or restarted concurrently through their {@link RedisServer} methods.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int DEFAULT_MASTERS = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** A manual failover that has not happened by then has timed out inside Redis (after 5 s): ask again. */
    private static final Duration FAILOVER_RETRY = Duration.ofSeconds(10);
    private static final int MIGRATE_BATCH = 100;
    private static final int MIGRATE_TIMEOUT_MILLIS = 10_000;
    private static final List<String> NODE_OPTIONS = List.of(
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", // relative to the node's own directory
            "--cluster-node-timeout", "3000",
            "--cluster-replica-validity-factor", "0",
            // 7.x syncs diskless by default and would wait 5 s for more replicas before a full sync.
            "--repl-diskless-sync-delay", "0");
    private static final List<String> TLS_NODE_OPTIONS = concat(NODE_OPTIONS,
            List.of("--tls-cluster", "yes", "--tls-replication", "yes"));

    private final List<RedisServer> nodes;
    /** How many masters the cluster is created with: nodes 0 to masterCount - 1; their replicas follow. */
    private final int masterCount;
    /** All nodes: each master and its one replica. */
    private final int nodeCount;
    /** The first slot of master i's range is firstSlots[i]; firstSlots[masterCount] is the slot count. */
    private final int[] firstSlots;
    /** Node ids, by index in {@link #nodes}; stable across restarts thanks to nodes.conf. Set once by create(). */
    private volatile List<String> ids = List.of();

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
        this.nodeCount = nodes.size();
        this.masterCount = nodeCount / 2;
        this.firstSlots = new int[masterCount + 1];
        for (int m = 0; m <= masterCount; m++) {
            // 3 masters: 0, 5461, 10923, 16384, as redis-cli splits them.
            firstSlots[m] = (int) Math.round((double) m * HashSlot.COUNT / masterCount);
        }
    }

    /**
     * Starts a cluster with the binary found by {@link RedisBinary#locate()}.
     *
     * @return the cluster, ready (see the class documentation)
     * @throws IllegalStateException if no binary is found or the cluster does not become ready (every node started
     *                               is closed then)
     */
    public static RedisCluster start() {
        return start(RedisBinary.locate());
    }

    /**
     * Starts a cluster with the given binary.
     *
     * @param binary the {@code redis-server} to run on every node
     * @return the cluster, ready (see the class documentation)
     * @throws IllegalStateException if the cluster does not become ready within 60 s (every node started is closed
     *                               then)
     */
    public static RedisCluster start(RedisBinary binary) {
        return start(binary, DEFAULT_MASTERS, null);
    }

    /**
     * Starts a cluster of {@code masters} masters with 1 replica each ({@code 2 * masters} nodes), with the given
     * binary; see the class documentation for its slots.
     *
     * @param binary  the {@code redis-server} to run on every node
     * @param masters how many masters, from 1 to 100
     * @return the cluster, ready (see the class documentation)
     * @throws IllegalArgumentException if {@code masters} is out of range
     * @throws IllegalStateException    if the cluster does not become ready within 60 s (every node started is
     *                                  closed then)
     */
    public static RedisCluster start(RedisBinary binary, int masters) {
        if (masters < 1 || masters > 100) {
            throw new IllegalArgumentException("masters must be from 1 to 100, was " + masters);
        }
        return start(binary, masters, null);
    }

    /**
     * Starts a cluster that speaks TLS only, with the binary found by {@link RedisBinary#locate()}; see
     * {@link #startTls(RedisBinary, TlsFiles)}.
     *
     * @param tls the certificates every node presents and checks its peers against
     * @return the cluster, ready (see the class documentation)
     * @throws IllegalStateException if no binary is found, it has no TLS support, or the cluster does not become
     *                               ready (every node started is closed then)
     */
    public static RedisCluster startTls(TlsFiles tls) {
        return startTls(RedisBinary.locate(), tls);
    }

    /**
     * Starts a cluster whose nodes speak TLS only ({@link RedisServer#startTls(RedisBinary, TlsFiles, List)}), to
     * clients, on the cluster bus ({@code --tls-cluster yes}) and for replication ({@code --tls-replication yes}),
     * all with the certificates of {@code tls}. The nodes announce their TLS ports, so a client that discovers the
     * cluster from {@link #seedUris()} ({@code rediss://...}) finds every node over TLS.
     *
     * @param binary the {@code redis-server} to run on every node; it must be built with TLS
     * @param tls    the certificates every node presents and checks its peers against
     * @return the cluster, ready (see the class documentation)
     * @throws IllegalStateException if the binary has no TLS support, or the cluster does not become ready within
     *                               60 s (every node started is closed then)
     */
    public static RedisCluster startTls(RedisBinary binary, TlsFiles tls) {
        return start(binary, DEFAULT_MASTERS, Objects.requireNonNull(tls, "tls"));
    }

    private static RedisCluster start(RedisBinary binary, int masters, TlsFiles tls) {
        Objects.requireNonNull(binary, "binary");
        List<RedisServer> started = new ArrayList<>(2 * masters);
        try {
            for (int i = 0; i < 2 * masters; i++) {
                started.add(tls == null ? RedisServer.start(binary, NODE_OPTIONS)
                        : RedisServer.startTls(binary, tls, TLS_NODE_OPTIONS));
            }
            RedisCluster cluster = new RedisCluster(started);
            cluster.create();
            return cluster;
        } catch (RuntimeException | Error e) {
            for (RedisServer node : started) {
                try {
                    node.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /**
     * The URIs of all nodes, for a cluster client to discover the cluster from.
     *
     * @return {@code redis://127.0.0.1:<port>} of every node ({@code rediss://} for a TLS cluster), in node order
     */
    public List<String> seedUris() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /**
     * All nodes, whatever their current role or state: the initial masters (0 to 2), then their replicas (3 to 5),
     * or with {@code n} masters, nodes 0 to {@code n - 1} then {@code n} to {@code 2n - 1}. Use their methods to
     * kill, pause or restart them.
     *
     * @return an immutable list of 6 servers ({@code 2n})
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /**
     * The masters that currently own slots, as most of the answering nodes report them.
     *
     * @return the masters, in node order
     * @throws IllegalStateException if no node answers, or they are split evenly (wait with
     *                               {@link #awaitStable(Duration)} after changing the topology)
     */
    public List<RedisServer> masters() {
        List<Integer> ports = agreed("the masters", view -> view.all().stream()
                .filter(n -> n.isMaster() && !n.slots().isEmpty()).map(ClusterNodes.Node::port).sorted()
                .collect(Collectors.toList()));
        return nodes.stream().filter(n -> ports.contains(n.port())).collect(Collectors.toUnmodifiableList());
    }

    /**
     * The nodes that replicate {@code master}, as most of the answering nodes report them.
     *
     * @param master one of this cluster's nodes
     * @return its replicas, in node order; empty if it has none (or is a replica itself)
     * @throws IllegalArgumentException if {@code master} is not a node of this cluster
     * @throws IllegalStateException    if no node answers, or they are split evenly
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = ids.get(indexOf(master));
        List<Integer> ports = agreed("the replicas of " + master, view -> view.all().stream()
                .filter(n -> !n.isMaster() && id.equals(n.masterId())).map(ClusterNodes.Node::port).sorted()
                .collect(Collectors.toList()));
        return nodes.stream().filter(n -> ports.contains(n.port())).collect(Collectors.toUnmodifiableList());
    }

    /**
     * The master that owns {@code slot}, as most of the answering nodes report it.
     *
     * @param slot a hash slot, from 0 to {@value HashSlot#COUNT} - 1
     * @return the owner
     * @throws IllegalArgumentException if {@code slot} is out of range
     * @throws IllegalStateException    if no answering node knows an owner, or they are split evenly
     */
    public RedisServer masterFor(int slot) {
        checkSlot(slot);
        int port = agreed("the owner of slot " + slot,
                view -> view.ownerOf(slot).map(ClusterNodes.Node::port).orElse(-1));
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node owns slot " + slot));
    }

    /**
     * The master that owns the slot of {@code key} (see {@link HashSlot#of(String)}).
     *
     * @param key a key
     * @return the owner
     * @throws IllegalStateException if no answering node knows an owner, or they are split evenly
     */
    public RedisServer masterForKey(String key) {
        return masterFor(HashSlot.of(key));
    }

    /**
     * Makes {@code replica} the master of its master's slots with {@code CLUSTER FAILOVER} (a manual failover: the
     * master stops accepting writes until the replica has caught up, so no acknowledged write is lost), or with
     * {@code CLUSTER FAILOVER FORCE} if Redis answers that its master is down. Returns once {@code replica} is a
     * master and the cluster has settled (see {@link #awaitStable(Duration)}); the old master, if running, is then
     * a replica of it.
     *
     * @param replica one of this cluster's nodes that is currently a replica
     * @throws IllegalArgumentException if {@code replica} is not a node of this cluster or is a master
     * @throws IllegalStateException    if the failover does not complete within 60 s
     */
    public synchronized void failover(RedisServer replica) {
        indexOf(replica);
        if (ClusterNodes.of(replica).myself().isMaster()) {
            throw new IllegalArgumentException(replica + " is a master; fail over one of its replicas instead");
        }
        requestFailover(replica);
        long[] requested = {System.nanoTime()};
        Await.until("replica " + replica + " to take over from its master", TIMEOUT, () -> {
            if (!ClusterNodes.of(replica).myself().isMaster()) {
                if (System.nanoTime() - requested[0] > FAILOVER_RETRY.toNanos()) {
                    requested[0] = System.nanoTime();
                    requestFailover(replica);
                }
                return replica + " is still a replica";
            }
            return stabilityProblem();
        }, this::logTails);
    }

    /**
     * Moves one slot and its keys to another master, as a resharding does: {@code CLUSTER SETSLOT} IMPORTING on the
     * target and MIGRATING on the current owner, {@code MIGRATE} of its keys in batches, then {@code CLUSTER SETSLOT
     * NODE} on the target, the old owner and every other running master. Returns once every running node agrees
     * that {@code target} owns the slot and the cluster has settled. Does nothing if {@code target} already owns it.
     * While it runs, clients get {@code ASK} redirections for keys already moved, as during a real migration.
     *
     * @param slot   the slot to move, from 0 to {@value HashSlot#COUNT} - 1
     * @param target a master of this cluster
     * @throws IllegalArgumentException if {@code slot} is out of range, or {@code target} is not a master of this
     *                                  cluster
     * @throws IllegalStateException    if Redis refuses a step (its message is included), or the cluster does not
     *                                  settle within 60 s
     */
    public synchronized void migrateSlot(int slot, RedisServer target) {
        checkSlot(slot);
        String targetId = ids.get(indexOf(target));
        if (!agreed("the role of " + target, view -> view.byPort(target.port()).map(ClusterNodes.Node::isMaster)
                .orElse(false))) {
            throw new IllegalArgumentException(target + " is not a master; only a master can take over slot " + slot);
        }
        RedisServer source = masterFor(slot);
        if (source.equals(target)) {
            return;
        }
        String sourceId = ids.get(indexOf(source));
        String slotArg = Integer.toString(slot);
        Replies.call(target, "CLUSTER", "SETSLOT", slotArg, "IMPORTING", sourceId);
        Replies.call(source, "CLUSTER", "SETSLOT", slotArg, "MIGRATING", targetId);
        // No new key can appear on the source meanwhile: in MIGRATING state it redirects writes of missing keys.
        Await.until("the keys of slot " + slot + " to move to " + target, TIMEOUT, () -> {
            List<?> keys = Replies.array(Replies.call(source, "CLUSTER", "GETKEYSINSLOT", slotArg,
                    Integer.toString(MIGRATE_BATCH)));
            if (keys.isEmpty()) {
                return null;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()),
                    "", "0", Integer.toString(MIGRATE_TIMEOUT_MILLIS), "REPLACE", "KEYS"));
            keys.forEach(k -> migrate.add(String.valueOf(k)));
            Replies.call(source, MIGRATE_TIMEOUT_MILLIS + 5_000, migrate.toArray(String[]::new));
            return keys.size() + " keys were just moved, more may be left";
        }, this::logTails);
        // The target first: it then bumps its config epoch, so its claim wins wherever the news arrives first.
        Replies.call(target, "CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        Replies.call(source, "CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        for (RedisServer master : masters()) {
            if (!master.equals(source) && !master.equals(target) && answers(master)) {
                Replies.call(master, "CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
            }
        }
        Await.until("every node to see slot " + slot + " at " + target, TIMEOUT, () -> {
            for (RedisServer node : live()) {
                Optional<ClusterNodes.Node> owner = ClusterNodes.of(node).ownerOf(slot);
                if (owner.isEmpty() || owner.get().port() != target.port()) {
                    return node + " sees slot " + slot + " at " + owner.map(o -> "port " + o.port()).orElse("no node");
                }
            }
            return stabilityProblem();
        }, this::logTails);
    }

    /**
     * Waits until the cluster has settled: every running node that is not paused reports {@code cluster_state:ok},
     * knows all 6 nodes ({@code 2n}), flags none of the other running, unpaused nodes as failing, has a connected link to each of
     * them and agrees with the others on every running node's role, master and slots; the running masters serve all
     * 16384 slots; and every running replica's replication link is up. Use it after killing, pausing, resuming or
     * restarting nodes, e.g. to wait until a replica has replaced a killed master.
     *
     * @param timeout how long to wait at most
     * @throws IllegalStateException if the cluster has not settled in time (with what was still missing and the
     *                               nodes' log tails), or the thread is interrupted
     */
    public void awaitStable(Duration timeout) {
        Await.until("the cluster to settle", timeout, this::stabilityProblem, this::logTails);
    }

    /**
     * Closes every node, even if closing one of them fails; the first failure is then thrown with the others
     * suppressed. Idempotent.
     */
    @Override
    public void close() {
        RedisServer.closeAll(nodes);
    }

    @Override
    public String toString() {
        return "RedisCluster" + nodes;
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Turns 6 ({@code 2n}) fresh, empty nodes into the planned cluster and waits until it is ready. */
    private void create() {
        List<String> myIds = new ArrayList<>();
        for (RedisServer node : nodes) {
            myIds.add(String.valueOf(setup(node, "CLUSTER", "MYID")));
        }
        ids = List.copyOf(myIds);
        for (int m = 0; m < masterCount; m++) {
            // Distinct epochs before the nodes meet, as redis-cli does: no epoch collision has to be resolved later.
            setup(nodes.get(m), "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(m + 1));
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS")); // ADDSLOTSRANGE is 7.0+
            for (int slot = firstSlots[m]; slot < firstSlots[m + 1]; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            setup(nodes.get(m), addSlots.toArray(String[]::new));
        }
        RedisServer first = nodes.get(0);
        for (RedisServer node : nodes.subList(1, nodeCount)) {
            setup(first, "CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
        }
        Await.until("the nodes of a new cluster to know each other", TIMEOUT, () -> {
            for (RedisServer node : nodes) {
                ClusterNodes view = ClusterNodes.of(node);
                if (view.all().size() < nodeCount || view.all().stream().anyMatch(ClusterNodes.Node::isTroubled)) {
                    return node + " knows " + view.all().size() + " of " + nodeCount + " nodes, flags: "
                            + view.all().stream().map(n -> n.port() + " " + n.flags()).collect(Collectors.toList());
                }
            }
            return null;
        }, this::logTails);
        for (int r = masterCount; r < nodeCount; r++) {
            RedisServer replica = nodes.get(r);
            String masterId = ids.get(r - masterCount);
            // Refused ("Unknown node") until the replica has learnt from gossip that this node is a master.
            Await.until(replica + " to accept replicating node " + masterId, TIMEOUT, () -> {
                Replies.call(replica, "CLUSTER", "REPLICATE", masterId);
                return null;
            }, this::logTails);
        }
        Await.until("the new cluster to be ready", TIMEOUT, () -> {
            String problem = stabilityProblem();
            return problem != null ? problem : plannedShapeProblem();
        }, this::logTails);
    }

    /** A command of the cluster's creation; a refusal fails the start with the node's log tails. */
    private Object setup(RedisServer node, String... command) {
        try {
            return Replies.call(node, command);
        } catch (RuntimeException e) {
            throw new IllegalStateException("creating the cluster failed: " + command[0] + " " + command[1] + " on "
                    + node + ": " + e.getMessage() + logTails(), e);
        }
    }

    /** What differs from the planned masters, slots and replicas in node 0's view, or null if nothing. */
    private String plannedShapeProblem() {
        ClusterNodes view = ClusterNodes.of(nodes.get(0));
        for (int m = 0; m < masterCount; m++) {
            BitSet planned = new BitSet();
            planned.set(firstSlots[m], firstSlots[m + 1]);
            Optional<ClusterNodes.Node> master = view.byId(ids.get(m));
            if (master.isEmpty() || !master.get().isMaster() || !master.get().slots().equals(planned)) {
                return "node " + m + " is not the master of slots " + ClusterNodes.ranges(planned) + ": " + master;
            }
            Optional<ClusterNodes.Node> replica = view.byId(ids.get(m + masterCount));
            if (replica.isEmpty() || !ids.get(m).equals(replica.get().masterId())) {
                return "node " + (m + masterCount) + " does not replicate node " + m + ": " + replica;
            }
        }
        return null;
    }

    /** What keeps the cluster from being settled (see {@link #awaitStable}), or null if it is. */
    private String stabilityProblem() {
        List<RedisServer> live = live();
        if (live.isEmpty()) {
            return "no node is running and unpaused";
        }
        String agreedShape = null;
        RedisServer agreedBy = null;
        for (RedisServer node : live) {
            String state = Replies.info(node, "CLUSTER", "INFO").get("cluster_state");
            if (!"ok".equals(state)) {
                return node + " reports cluster_state:" + state;
            }
            ClusterNodes view = ClusterNodes.of(node);
            if (view.all().size() < nodeCount) {
                return node + " knows only " + view.all().size() + " of " + nodeCount + " nodes";
            }
            BitSet served = new BitSet(HashSlot.COUNT);
            StringBuilder shape = new StringBuilder();
            for (RedisServer other : live) {
                Optional<ClusterNodes.Node> entry = view.byPort(other.port());
                if (entry.isEmpty()) {
                    return node + " does not know " + other;
                }
                ClusterNodes.Node n = entry.get();
                if (n.isTroubled()) {
                    return node + " flags " + other + " as " + n.flags();
                }
                if (!n.isMyself() && !n.connected()) {
                    return node + " has no connected link to " + other;
                }
                if (n.isMaster()) {
                    served.or(n.slots());
                }
                String master = n.isMaster() ? "" : view.byId(n.masterId()).map(m -> "port " + m.port())
                        .orElse("unknown node " + n.masterId());
                shape.append("\n  port ").append(other.port()).append(": ").append(n.isMaster()
                        ? "master of " + ClusterNodes.ranges(n.slots()) : "replica of " + master);
            }
            if (served.cardinality() != HashSlot.COUNT) {
                return node + " sees running masters serve only " + served.cardinality() + " slots";
            }
            if (agreedShape == null) {
                agreedShape = shape.toString();
                agreedBy = node;
            } else if (!agreedShape.equals(shape.toString())) {
                return node + " and " + agreedBy + " disagree; one sees:" + shape + "\nthe other:" + agreedShape;
            }
            if (!view.myself().isMaster()) {
                String link = Replies.info(node, "INFO", "replication").get("master_link_status");
                if (!"up".equals(link)) {
                    return "replica " + node + " has master_link_status:" + link;
                }
            }
        }
        return null;
    }

    /**
     * Asks every running, unpaused node the same question about its view, and returns the answer most of them give.
     *
     * @throws IllegalStateException if none answers, or no answer has a strict majority
     */
    private <T> T agreed(String what, Function<ClusterNodes, T> question) {
        Map<T, Integer> votes = new HashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        int answers = 0;
        for (RedisServer node : live()) {
            try {
                votes.merge(question.apply(ClusterNodes.of(node)), 1, Integer::sum);
                answers++;
            } catch (RuntimeException e) {
                failures.put(node.toString(), e.toString());
            }
        }
        for (Map.Entry<T, Integer> vote : votes.entrySet()) {
            if (vote.getValue() * 2 > answers) {
                return vote.getKey();
            }
        }
        throw new IllegalStateException("no majority of the cluster's nodes agrees on " + what + ": answers "
                + votes + (failures.isEmpty() ? "" : ", failures " + failures));
    }

    private void requestFailover(RedisServer replica) {
        try {
            Replies.call(replica, "CLUSTER", "FAILOVER");
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).contains("FORCE")) { // "Master is down or failed, ... use FORCE"
                Replies.call(replica, "CLUSTER", "FAILOVER", "FORCE");
            } else if (!ClusterNodes.of(replica).myself().isMaster()) {
                throw e; // anything but "already a master" (a retry after a slow success) is a real refusal
            }
        }
    }

    /** Nodes whose process runs and is not paused: the ones that can answer. */
    private List<RedisServer> live() {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).collect(Collectors.toList());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    private static boolean answers(RedisServer node) {
        return node.isRunning() && !node.isPaused();
    }

    private int indexOf(RedisServer node) {
        int i = nodes.indexOf(Objects.requireNonNull(node, "node"));
        if (i < 0) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        return i;
    }

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= HashSlot.COUNT) {
            throw new IllegalArgumentException("slot must be from 0 to " + (HashSlot.COUNT - 1) + ", was " + slot);
        }
    }

    private String logTails() {
        Map<String, RedisServer> labelled = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            labelled.put("node " + i, nodes.get(i));
        }
        return NodeLogs.tails(labelled);
    }
}
