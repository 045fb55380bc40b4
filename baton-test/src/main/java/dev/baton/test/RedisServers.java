package dev.baton.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Several independent {@code redis-server} masters, each a {@link RedisServer} with its own port and directory and no
 * replication between them (the topology Redlock assumes).
 *
 * <p>Guarantees: {@link #start(int)} either returns with every server answering {@code PING}, or closes the ones it
 * already started and throws. {@link #close()} is idempotent and closes every server even if closing one of them
 * fails; the first failure is then thrown with the others suppressed.
 *
 * <p>Thread-safe: the list of servers never changes, and each {@link RedisServer} is thread-safe itself.
 */
public final class RedisServers implements AutoCloseable {

    private final List<RedisServer> servers;

    private RedisServers(List<RedisServer> servers) {
        this.servers = List.copyOf(servers);
    }

    /**
     * Starts {@code count} servers with the binary found by {@link RedisBinary#locate()}.
     *
     * @param count how many servers, at least 1
     * @return the servers, each answering {@code PING}
     * @throws IllegalArgumentException if {@code count < 1}
     * @throws IllegalStateException    if a server does not come up (those already started are closed)
     */
    public static RedisServers start(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        return start(RedisBinary.locate(), count);
    }

    /**
     * Starts {@code count} servers with the given binary.
     *
     * @param binary the {@code redis-server} to run
     * @param count  how many servers, at least 1
     * @return the servers, each answering {@code PING}
     * @throws IllegalArgumentException if {@code count < 1}
     * @throws IllegalStateException    if a server does not come up (those already started are closed)
     */
    public static RedisServers start(RedisBinary binary, int count) {
        Objects.requireNonNull(binary, "binary");
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        List<RedisServer> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisServer.start(binary, List.of()));
            }
        } catch (RuntimeException | Error e) {
            for (RedisServer server : started) {
                try {
                    server.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return new RedisServers(started);
    }

    /**
     * The servers, in start order.
     *
     * @return an immutable list
     */
    public List<RedisServer> servers() {
        return servers;
    }

    /**
     * The {@code i}-th server.
     *
     * @param i the index in start order, from 0
     * @return that server
     * @throws IndexOutOfBoundsException if {@code i} is not a valid index
     */
    public RedisServer get(int i) {
        return servers.get(i);
    }

    /**
     * The servers' URIs, e.g. for a Redlock client that takes one URI per independent master.
     *
     * @return {@code redis://127.0.0.1:<port>} of every server, in start order (immutable)
     */
    public List<String> uris() {
        return servers.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /** Closes every server; see the class documentation. */
    @Override
    public void close() {
        RedisServer.closeAll(servers);
    }

    @Override
    public String toString() {
        return "RedisServers" + servers;
    }
}
