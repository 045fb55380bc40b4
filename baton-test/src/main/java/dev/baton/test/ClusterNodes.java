package dev.baton.test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply: which nodes it knows, their roles
 * and flags, and which slots each master owns. Views of different nodes may differ while the cluster converges;
 * {@link RedisCluster} compares them to decide that it has settled. Immutable.
 */
final class ClusterNodes {

    /** One line of {@code CLUSTER NODES}. */
    record Node(String id, int port, Set<String> flags, String masterId, boolean connected, BitSet slots) {

        boolean isMyself() {
            return flags.contains("myself");
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        /** Whether the viewing node suspects or has agreed that this node failed, or cannot address it yet. */
        boolean isTroubled() {
            return flags.contains("fail") || flags.contains("fail?") || flags.contains("handshake")
                    || flags.contains("noaddr");
        }

        /** Role, master and slots: what every node must agree on once the cluster has settled. */
        String shape() {
            return (isMaster() ? "master" : "replica of " + masterId) + " slots " + ranges(slots);
        }
    }

    private final int viewerPort;
    private final List<Node> nodes;

    private ClusterNodes(int viewerPort, List<Node> nodes) {
        this.viewerPort = viewerPort;
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Asks {@code viewer} for its view.
     *
     * @throws IllegalStateException if it refuses (e.g. cluster mode disabled) or the reply cannot be parsed
     * @throws java.io.UncheckedIOException if it cannot be reached
     */
    static ClusterNodes of(RedisServer viewer) {
        return parse(viewer.port(), String.valueOf(Replies.call(viewer, "CLUSTER", "NODES")));
    }

    /** Parses a {@code CLUSTER NODES} reply (the 6.2 and the 7.x formats). */
    static ClusterNodes parse(int viewerPort, String reply) {
        List<Node> nodes = new ArrayList<>();
        for (String line : reply.split("\r?\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split(" ");
            if (f.length < 8) {
                throw new IllegalStateException("unexpected CLUSTER NODES line from port " + viewerPort + ": " + line);
            }
            // ip:port@busport, on 7.x optionally followed by ",hostname"; the port is what identifies our servers.
            String address = f[1].split("[@,]", 2)[0];
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            BitSet slots = new BitSet(HashSlot.COUNT);
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // an importing or migrating slot, shown only by the node doing it
                }
                int dash = f[i].indexOf('-');
                int first = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(f[i].substring(dash + 1));
                slots.set(first, last + 1);
            }
            nodes.add(new Node(f[0], port, Set.of(f[2].split(",")), f[3].equals("-") ? null : f[3],
                    f[7].equals("connected"), slots));
        }
        return new ClusterNodes(viewerPort, nodes);
    }

    /** The port of the node whose view this is. */
    int viewerPort() {
        return viewerPort;
    }

    /** Every node the viewer knows, itself included. */
    List<Node> all() {
        return nodes;
    }

    /** The viewer's own entry. */
    Node myself() {
        return nodes.stream().filter(Node::isMyself).findFirst()
                .orElseThrow(() -> new IllegalStateException("no 'myself' entry in the view of port " + viewerPort));
    }

    Optional<Node> byPort(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst();
    }

    Optional<Node> byId(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
    }

    /** The master that owns {@code slot} in this view, if any. */
    Optional<Node> ownerOf(int slot) {
        return nodes.stream().filter(n -> n.isMaster() && n.slots().get(slot)).findFirst();
    }

    /** Slot ranges in {@code CLUSTER NODES} notation, e.g. {@code "0-5460 6000"}; {@code "none"} if empty. */
    static String ranges(BitSet slots) {
        StringBuilder out = new StringBuilder();
        for (int from = slots.nextSetBit(0); from >= 0; from = slots.nextSetBit(from)) {
            int to = slots.nextClearBit(from) - 1;
            out.append(out.length() == 0 ? "" : " ").append(from).append(from == to ? "" : "-" + to);
            from = to + 1;
        }
        return out.length() == 0 ? "none" : out.toString();
    }
}
