package dev.baton.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A Redis Sentinel group on 6 {@link RedisServer}s: 1 master and 2 replicas (the <em>data nodes</em>), monitored by 3
 * sentinels under the master name {@value #MASTER_NAME} with a quorum of 2. Works with every binary
 * {@link RedisBinary#locate()} finds (Redis 6.2 and 7.x): sentinels are the same {@code redis-server} run with
 * {@code --sentinel} and a configuration file of their own, which they rewrite as they learn (so a
 * {@linkplain RedisServer#restart() restarted} sentinel keeps what it knew).
 *
 * <p>The sentinels run with {@code down-after-milliseconds 2000} and {@code failover-timeout 5000}, so a killed or
 * paused master is replaced within a few seconds, while a loaded machine does not make a healthy node look down.
 * Like every {@link RedisServer}, data nodes keep no data across a restart. What the sentinels do on their own
 * after a node is disturbed is real Sentinel behaviour: for instance a restarted old master comes back as an empty
 * master and is turned into a replica only once the sentinels notice it (several seconds later), and a restarted
 * replica follows the master it was started with until the sentinels correct it.
 *
 * <p>{@link #startWithPasswords(String, String)} starts a group whose data nodes and sentinels require passwords, a
 * different one each; {@link #startTls(TlsFiles)} one that speaks TLS only.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #start()} returns only once both replicas are in sync with the master and every sentinel reports
 *       that master, sees both replicas with their links up and the 2 other sentinels, and flags none of them as
 *       down. If that does not happen, it closes every node it started and throws.</li>
 *   <li>{@link #failover()} returns only once a different data node is master for every running sentinel, accepts
 *       writes, and every other running data node replicates from it with its link up.</li>
 *   <li>{@link #close()} is idempotent and closes every node (processes killed, directories deleted), even if closing
 *       one fails; a JVM shutdown hook covers a group that is never closed, as for every {@link RedisServer}.</li>
 * </ul>
 *
 * <p>Failure behaviour: waits use generous deadlines (60 s unless given) and fail with an
 * {@link IllegalStateException} naming what was still missing, followed by the last lines of every node's log.
 * Killed or paused nodes are left out of every question, so they never stall a query or a wait.
 *
 * <p>Thread-safety: queries and {@link #awaitMaster(Duration)} may be called from any thread; {@link #failover()} is
 * synchronized; nodes may be killed, paused or restarted concurrently through their {@link RedisServer} methods.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The name under which the sentinels monitor the master, as clients ask for it. */
    public static final String MASTER_NAME = "baton-master";

    private static final int REPLICAS = 2;
    private static final int SENTINELS = 3;
    private static final int QUORUM = 2;
    private static final int DOWN_AFTER_MILLIS = 2_000;
    private static final int FAILOVER_TIMEOUT_MILLIS = 5_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long the sentinels may stay settled on the old master after a failover request before it is renewed. */
    private static final Duration FAILOVER_RETRY = Duration.ofSeconds(5);
    /** Deleting a key that does not exist is a write (refused by replicas) that changes nothing. */
    private static final String WRITE_PROBE_KEY = "baton-test:write-probe";
    // 7.x syncs diskless by default and would wait 5 s for more replicas before a full sync.
    private static final List<String> DATA_NODE_OPTIONS = List.of("--repl-diskless-sync-delay", "0");

    /** Replication, and the sentinels' own connections, over TLS too. */
    private static final List<String> TLS_OPTIONS = List.of("--tls-replication", "yes");

    private final List<RedisServer> dataNodes;
    private final List<RedisServer> sentinels;
    private final boolean tls;

    private RedisSentinelGroup(List<RedisServer> dataNodes, List<RedisServer> sentinels, boolean tls) {
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
        this.tls = tls;
    }

    private static RedisServer startDataNode(RedisBinary binary, TlsFiles tls, List<String> options) {
        return tls == null ? RedisServer.start(binary, options) : RedisServer.startTls(binary, tls, options);
    }

    /**
     * Starts a group with the binary found by {@link RedisBinary#locate()}.
     *
     * @return the group, ready (see the class documentation)
     * @throws IllegalStateException if no binary is found or the group does not become ready (every node started
     *                               is closed then)
     */
    public static RedisSentinelGroup start() {
        return start(RedisBinary.locate());
    }

    /**
     * Starts a group with the given binary for all nodes.
     *
     * @param binary the {@code redis-server} to run
     * @return the group, ready (see the class documentation)
     * @throws IllegalStateException if the group does not become ready within 60 s (every node started is closed
     *                               then)
     */
    public static RedisSentinelGroup start(RedisBinary binary) {
        return start(binary, null, null, null);
    }

    /**
     * Starts a group that speaks TLS only, with the binary found by {@link RedisBinary#locate()}; see
     * {@link #startTls(RedisBinary, TlsFiles)}.
     *
     * @param tls the certificates every node presents and checks its peers against
     * @return the group, ready (see the class documentation)
     * @throws IllegalStateException if no binary is found, it has no TLS support, or the group does not become ready
     *                               (every node started is closed then)
     */
    public static RedisSentinelGroup startTls(TlsFiles tls) {
        return startTls(RedisBinary.locate(), tls);
    }

    /**
     * Starts a group whose data nodes and sentinels all speak TLS only
     * ({@link RedisServer#startTls(RedisBinary, TlsFiles, List)}), to clients and to each other
     * ({@code --tls-replication yes}: replication, and the sentinels' connections to the data nodes and to each
     * other), with the certificates of {@code tls}. {@link #sentinelUri()} is then
     * {@code rediss-sentinel://...}.
     *
     * @param binary the {@code redis-server} to run; it must be built with TLS
     * @param tls    the certificates every node presents and checks its peers against
     * @return the group, ready (see the class documentation)
     * @throws IllegalStateException if the binary has no TLS support, or the group does not become ready within
     *                               60 s (every node started is closed then)
     */
    public static RedisSentinelGroup startTls(RedisBinary binary, TlsFiles tls) {
        return start(binary, null, null, Objects.requireNonNull(tls, "tls"));
    }

    /**
     * Starts a group with the binary found by {@link RedisBinary#locate()} whose data nodes and sentinels require
     * passwords of their own; see {@link #startWithPasswords(RedisBinary, String, String)}.
     *
     * @param dataNodePassword the password of the data nodes' default user
     * @param sentinelPassword the password of the sentinels' default user
     * @return the group, ready (see the class documentation)
     * @throws IllegalArgumentException if a password is empty
     * @throws IllegalStateException    if no binary is found or the group does not become ready (every node started
     *                                  is closed then)
     */
    public static RedisSentinelGroup startWithPasswords(String dataNodePassword, String sentinelPassword) {
        return startWithPasswords(RedisBinary.locate(), dataNodePassword, sentinelPassword);
    }

    /**
     * Starts a group whose data nodes require one password and whose sentinels require another, as production
     * deployments often have it: data nodes run with {@code --requirepass} and {@code --masterauth} set to
     * {@code dataNodePassword} (so that replicas, and a demoted master, can replicate), the sentinels with
     * {@code --requirepass} set to {@code sentinelPassword} (which they also use to talk to each other) and
     * {@code sentinel auth-pass} set to {@code dataNodePassword} (to monitor and reconfigure the data nodes). A client
     * must then give the sentinel password to the sentinels and the data node password to the master;
     * {@link #sentinelUri()} carries neither. The kit authenticates its own connections to every node, so every
     * guarantee of the class documentation holds.
     *
     * @param binary           the {@code redis-server} to run
     * @param dataNodePassword the password of the data nodes' default user
     * @param sentinelPassword the password of the sentinels' default user
     * @return the group, ready (see the class documentation)
     * @throws IllegalArgumentException if a password is empty
     * @throws IllegalStateException    if the group does not become ready within 60 s (every node started is closed
     *                                  then)
     */
    public static RedisSentinelGroup startWithPasswords(RedisBinary binary, String dataNodePassword,
                                                        String sentinelPassword) {
        requirePassword(dataNodePassword, "dataNodePassword");
        requirePassword(sentinelPassword, "sentinelPassword");
        return start(binary, dataNodePassword, sentinelPassword, null);
    }

    private static RedisSentinelGroup start(RedisBinary binary, String dataNodePassword, String sentinelPassword,
                                            TlsFiles tls) {
        Objects.requireNonNull(binary, "binary");
        List<RedisServer> dataNodes = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        List<String> dataNodeOptions = new ArrayList<>(DATA_NODE_OPTIONS);
        if (tls != null) {
            dataNodeOptions.addAll(TLS_OPTIONS);
        }
        if (dataNodePassword != null) {
            dataNodeOptions.addAll(List.of("--requirepass", dataNodePassword, "--masterauth", dataNodePassword));
        }
        List<String> sentinelOptions = new ArrayList<>(List.of("--sentinel"));
        if (tls != null) {
            sentinelOptions.addAll(TLS_OPTIONS);
        }
        if (sentinelPassword != null) {
            sentinelOptions.addAll(List.of("--requirepass", sentinelPassword));
        }
        try {
            RedisServer master = startDataNode(binary, tls, dataNodeOptions);
            dataNodes.add(master);
            List<String> replicaOptions = new ArrayList<>(dataNodeOptions);
            replicaOptions.addAll(List.of("--replicaof", master.host(), Integer.toString(master.port())));
            for (int i = 0; i < REPLICAS; i++) {
                dataNodes.add(startDataNode(binary, tls, replicaOptions));
            }
            // Replicas in sync before the sentinels start, so that their first look shows a healthy group.
            Await.until("the replicas to sync with " + master, TIMEOUT,
                    () -> replicationProblem(master, dataNodes), () -> NodeLogs.tails(labels(dataNodes, sentinels)));
            for (int i = 0; i < SENTINELS; i++) {
                sentinels.add(RedisServer.startWithConfigFile(binary, sentinelConfig(master, dataNodePassword), tls,
                        sentinelOptions));
            }
            RedisSentinelGroup group = new RedisSentinelGroup(dataNodes, sentinels, tls != null);
            Await.until("the sentinels to be ready", TIMEOUT, () -> group.readinessProblem(master), group::logTails);
            return group;
        } catch (RuntimeException | Error e) {
            for (RedisServer node : concat(dataNodes, sentinels)) {
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
     * The name under which the sentinels monitor the master.
     *
     * @return {@value #MASTER_NAME}
     */
    public String masterName() {
        return MASTER_NAME;
    }

    /**
     * The URI with which Baton (and Lettuce) connect through the sentinels.
     *
     * @return {@code redis-sentinel://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>#baton-master}
     *         ({@code rediss-sentinel://} for a {@linkplain #startTls(RedisBinary, TlsFiles) TLS group}), without
     *         credentials even if the group {@linkplain #startWithPasswords(String, String) requires passwords}
     */
    public String sentinelUri() {
        return (tls ? "rediss-sentinel://" : "redis-sentinel://") + sentinels.stream().map(s -> s.host() + ":" + s.port())
                .collect(Collectors.joining(",")) + "#" + MASTER_NAME;
    }

    /**
     * The 3 sentinels; use their methods to kill, pause or restart them.
     *
     * @return an immutable list, in start order
     */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /**
     * The 3 data nodes whatever their current role or state: the initial master first, then the initial replicas. Use
     * their methods to kill, pause or restart them.
     *
     * @return an immutable list, in start order
     */
    public List<RedisServer> dataNodes() {
        return dataNodes;
    }

    /**
     * The current master, as most of the answering sentinels report it. It may be down: the sentinels report a
     * killed master until they have replaced it. Use {@link #awaitMaster(Duration)} for a master that works.
     *
     * @return the data node the sentinels name as master
     * @throws IllegalStateException if no sentinel answers, the answers are split evenly, or they name a node that is
     *                               not part of this group
     */
    public RedisServer master() {
        Map<Integer, Integer> votes = new HashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        int answers = 0;
        for (RedisServer sentinel : answering(sentinels)) {
            try {
                votes.merge(reportedMasterPort(sentinel), 1, Integer::sum);
                answers++;
            } catch (RuntimeException e) {
                failures.put(sentinel.toString(), e.toString());
            }
        }
        for (Map.Entry<Integer, Integer> vote : votes.entrySet()) {
            if (vote.getValue() * 2 > answers) {
                return dataNode(vote.getKey());
            }
        }
        throw new IllegalStateException("no majority of the answering sentinels names a master: ports " + votes
                + (failures.isEmpty() ? "" : ", failures " + failures));
    }

    /**
     * The data nodes other than the {@linkplain #master() current master}, whether running or not.
     *
     * @return the replicas, in start order
     * @throws IllegalStateException as {@link #master()}
     */
    public List<RedisServer> replicas() {
        RedisServer master = master();
        return dataNodes.stream().filter(n -> !n.equals(master)).collect(Collectors.toUnmodifiableList());
    }

    /**
     * Waits until every running, unpaused sentinel reports the same master and has no failover of it in progress
     * (nor flags it as down), and that data node runs, reports the master role and accepts writes (probed with
     * {@code DEL} of a key that does not exist, which changes nothing). After killing or pausing the master, this
     * waits for the sentinels to replace it and finish the failover.
     *
     * @param timeout how long to wait at most
     * @return the master
     * @throws IllegalStateException if that does not happen in time (with what was still missing and the nodes' log
     *                               tails), or the thread is interrupted
     */
    public RedisServer awaitMaster(Duration timeout) {
        RedisServer[] found = new RedisServer[1];
        Await.until("the sentinels to agree on a master that accepts writes", timeout,
                () -> workingMasterProblem(found), this::logTails);
        return found[0];
    }

    /**
     * Fails the master over to a replica with {@code SENTINEL FAILOVER} (the sentinels choose which) and waits until
     * the group has settled around the new master (see the class documentation). Redis' own refusals while a
     * sentinel is not ready yet (e.g. {@code NOGOODSLAVE} before it has fresh information about the replicas) are
     * retried until the deadline, and so is a failover that the sentinels abort (they never retry a requested one).
     * The old master, if it answers, is made a replica of the new one right away with {@code REPLICAOF}, which the
     * sentinels would otherwise do only some 10 s later.
     *
     * @return the new master
     * @throws IllegalStateException if there is no working master to start from, or the failover does not complete
     *                               within 60 s
     */
    public synchronized RedisServer failover() {
        RedisServer old = awaitMaster(TIMEOUT);
        boolean[] requested = {false};
        long[] requestedAt = {0}; // System.nanoTime() of the last accepted request
        RedisServer[] found = new RedisServer[1];
        Await.until("the sentinels to fail " + old + " over to a replica", TIMEOUT, () -> {
            String problem = workingMasterProblem(found);
            if (problem == null && !found[0].equals(old)) {
                return null;
            }
            // Settled on the old master again long after a request: that failover was aborted (e.g. the chosen
            // replica did not report its promotion within failover-timeout), and sentinels do not retry a forced one.
            boolean aborted = problem == null && System.nanoTime() - requestedAt[0] > FAILOVER_RETRY.toNanos();
            if (!requested[0] || aborted) {
                requestFailover();
                requested[0] = true;
                requestedAt[0] = System.nanoTime();
                return "requested a failover of " + old;
            }
            return problem != null ? problem : "the sentinels still report " + old;
        }, this::logTails);
        RedisServer master = found[0];
        if (old.isRunning() && !old.isPaused()) {
            // The sentinels demote the old master themselves only some 10 s after the switch (they first wait for
            // its role reports to settle). Doing now what they will do then gives a settled group that much sooner.
            try {
                Replies.call(old, "REPLICAOF", master.host(), Integer.toString(master.port()));
            } catch (RuntimeException e) {
                // Killed or paused meanwhile: then it is not waited for below, and the sentinels demote it later.
            }
        }
        Await.until("the data nodes to replicate from " + master, TIMEOUT,
                () -> replicationProblem(master, answering(dataNodes)), this::logTails);
        return master;
    }

    /**
     * Brings a data node that was killed or stopped (typically a master killed to force a failover) back into the
     * group: restarts it (empty, like every restarted node), makes it a replica of the current master at once with
     * {@code REPLICAOF} (the sentinels would do so only some 10 s later), and waits until the group is whole again:
     * every running data node replicates the master with its link up, and every sentinel reports that master and sees
     * both replicas with their links up and the other sentinels (as {@link #start()} does). Sentinels learn a
     * replica's link state from its {@code INFO}, which they ask for every 10 s, so this can take that long.
     *
     * @param node a data node of this group that is not the current master
     * @return the current master
     * @throws IllegalArgumentException if the node is not a data node of this group, or is the master
     * @throws IllegalStateException    if the group is not whole again within 60 s
     */
    public synchronized RedisServer rejoin(RedisServer node) {
        if (!dataNodes.contains(node)) {
            throw new IllegalArgumentException(node + " is not a data node of " + this);
        }
        RedisServer master = awaitMaster(TIMEOUT);
        if (node.equals(master)) {
            throw new IllegalArgumentException(node + " is the current master; it cannot rejoin as a replica");
        }
        node.restart();
        Replies.call(node, "REPLICAOF", master.host(), Integer.toString(master.port()));
        Await.until("the group to be whole again around " + master, TIMEOUT, () -> {
            String problem = replicationProblem(master, answering(dataNodes));
            return problem != null ? problem : readinessProblem(master);
        }, this::logTails);
        return master;
    }

    /**
     * Closes every node, even if closing one of them fails; the first failure is then thrown with the others
     * suppressed. Idempotent.
     */
    @Override
    public void close() {
        RedisServer.closeAll(concat(dataNodes, sentinels));
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[data nodes " + dataNodes + ", sentinels " + sentinels + "]";
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static String sentinelConfig(RedisServer master, String dataNodePassword) {
        return String.join("\n",
                "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " " + QUORUM,
                "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS,
                dataNodePassword == null ? ""
                        : "sentinel auth-pass " + MASTER_NAME + " " + quoted(dataNodePassword),
                "");
    }

    /** A value as a double-quoted string of a Redis configuration file, where spaces and quotes are safe. */
    private static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static void requirePassword(String password, String name) {
        Objects.requireNonNull(password, name);
        if (password.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty (an empty requirepass means none)");
        }
    }

    /**
     * What keeps {@code nodes} other than {@code master} from replicating it with their link up (and the master from
     * seeing them online), or null if nothing.
     */
    private static String replicationProblem(RedisServer master, List<RedisServer> nodes) {
        for (RedisServer node : nodes) {
            if (node.equals(master)) {
                continue;
            }
            Map<String, String> replication = Replies.info(node, "INFO", "replication");
            if (!"slave".equals(replication.get("role"))
                    || !Integer.toString(master.port()).equals(replication.get("master_port"))
                    || !"up".equals(replication.get("master_link_status"))) {
                return node + " has role:" + replication.get("role") + " master_port:"
                        + replication.get("master_port") + " master_link_status:"
                        + replication.get("master_link_status");
            }
            String seen = Replies.info(master, "INFO", "replication").values().stream()
                    .filter(v -> v.contains("port=" + node.port() + ",")).findFirst().orElse("not listed");
            if (!seen.contains("state=online")) {
                return master + " sees replica " + node + ": " + seen;
            }
        }
        return null;
    }

    /** What keeps the sentinels from being ready around {@code master} (see {@link #start()}), or null if nothing. */
    private String readinessProblem(RedisServer master) {
        for (RedisServer sentinel : sentinels) {
            if (reportedMasterPort(sentinel) != master.port()) {
                return sentinel + " reports the master at port " + reportedMasterPort(sentinel);
            }
            Map<String, String> state = Replies.fields(Replies.call(sentinel, "SENTINEL", "MASTER", MASTER_NAME));
            if (!"master".equals(state.get("flags")) || !Integer.toString(REPLICAS).equals(state.get("num-slaves"))
                    || !Integer.toString(SENTINELS - 1).equals(state.get("num-other-sentinels"))) {
                return sentinel + " sees the master with flags " + state.get("flags") + ", "
                        + state.get("num-slaves") + " replicas and " + state.get("num-other-sentinels")
                        + " other sentinels";
            }
            for (Object entry : Replies.array(Replies.call(sentinel, "SENTINEL", "REPLICAS", MASTER_NAME))) {
                Map<String, String> replica = Replies.fields(entry);
                if (!"slave".equals(replica.get("flags")) || !"ok".equals(replica.get("master-link-status"))) {
                    return sentinel + " sees replica " + replica.get("name") + " with flags " + replica.get("flags")
                            + " and master-link-status " + replica.get("master-link-status");
                }
            }
            for (Object entry : Replies.array(Replies.call(sentinel, "SENTINEL", "SENTINELS", MASTER_NAME))) {
                Map<String, String> other = Replies.fields(entry);
                if (!"sentinel".equals(other.get("flags"))) {
                    return sentinel + " sees sentinel " + other.get("name") + " with flags " + other.get("flags");
                }
            }
        }
        return null;
    }

    /**
     * What keeps the answering sentinels from agreeing on a master that works (see {@link #awaitMaster}), or null
     * if nothing, in which case {@code found[0]} is that master.
     */
    private String workingMasterProblem(RedisServer[] found) {
        List<RedisServer> answering = answering(sentinels);
        if (answering.isEmpty()) {
            return "no sentinel is running and unpaused";
        }
        Map<Integer, List<Integer>> reports = new LinkedHashMap<>();
        for (RedisServer sentinel : answering) {
            reports.computeIfAbsent(reportedMasterPort(sentinel), port -> new ArrayList<>()).add(sentinel.port());
        }
        if (reports.size() > 1) {
            return "the sentinels disagree: master port -> sentinel ports " + reports;
        }
        RedisServer master = dataNode(reports.keySet().iterator().next());
        if (!master.isRunning() || master.isPaused()) {
            return "the sentinels report " + master;
        }
        for (RedisServer sentinel : answering) {
            // A failover ends only once the replicas follow the new master; a sentinel still in one would go on
            // reporting its promoted replica even if that died meanwhile, and never take the others' word for it.
            String flags = Replies.fields(Replies.call(sentinel, "SENTINEL", "MASTER", MASTER_NAME)).get("flags");
            if (!"master".equals(flags)) {
                return sentinel + " flags the master " + master + " as " + flags;
            }
        }
        String role = Replies.info(master, "INFO", "replication").get("role");
        if (!"master".equals(role)) {
            return "the sentinels report " + master + ", which has role:" + role;
        }
        Replies.call(master, "DEL", WRITE_PROBE_KEY);
        found[0] = master;
        return null;
    }

    /**
     * Asks the answering sentinels, one after the other, for a forced failover, until one accepts or says that one is
     * already in progress.
     *
     * @throws IllegalStateException with every sentinel's refusal (e.g. {@code NOGOODSLAVE} while it has no fresh
     *                               information about the replicas), for the caller to retry
     */
    private void requestFailover() {
        StringBuilder refusals = new StringBuilder();
        for (RedisServer sentinel : answering(sentinels)) {
            try {
                Replies.call(sentinel, "SENTINEL", "FAILOVER", MASTER_NAME);
                return;
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).startsWith("INPROG")) {
                    return;
                }
                refusals.append(' ').append(sentinel).append(": ").append(e.getMessage());
            }
        }
        throw new IllegalStateException("no sentinel accepted SENTINEL FAILOVER:" + refusals);
    }

    private static int reportedMasterPort(RedisServer sentinel) {
        List<?> address = Replies.array(Replies.call(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME));
        return Integer.parseInt(String.valueOf(address.get(1)));
    }

    private RedisServer dataNode(int port) {
        return dataNodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow(
                () -> new IllegalStateException("the sentinels name port " + port + ", not a data node of " + this));
    }

    /** Nodes whose process runs and is not paused: the ones that can answer. */
    private static List<RedisServer> answering(List<RedisServer> nodes) {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).collect(Collectors.toList());
    }

    private static List<RedisServer> concat(List<RedisServer> a, List<RedisServer> b) {
        List<RedisServer> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private String logTails() {
        return NodeLogs.tails(labels(dataNodes, sentinels));
    }

    private static Map<String, RedisServer> labels(List<RedisServer> dataNodes, List<RedisServer> sentinels) {
        Map<String, RedisServer> labelled = new LinkedHashMap<>();
        for (int i = 0; i < dataNodes.size(); i++) {
            labelled.put("data node " + i, dataNodes.get(i));
        }
        for (int i = 0; i < sentinels.size(); i++) {
            labelled.put("sentinel " + i, sentinels.get(i));
        }
        return labelled;
    }
}
