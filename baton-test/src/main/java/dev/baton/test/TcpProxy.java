package dev.baton.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback TCP proxy between Redis clients and one {@code redis-server}, to simulate network partitions: clients
 * connect to {@link #uri()} instead of the server, and a test {@link #cut() cuts} and {@link #heal() heals} the link or
 * {@link #dropConnections() drops} the connections, while the server itself keeps running. The proxy listens on
 * {@code 127.0.0.1} and a free port and forwards every connection it accepts, byte for byte, to the target.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>A cut stops traffic without losing any: no byte is passed on while cut, and none is discarded, so the
 *       Redis protocol stream of every connection stays intact, and after {@link #heal()} replies arrive late and in
 *       order, as after a long network delay. Clients therefore see time-outs, not resets. Closing is traffic too:
 *       a connection one side closes or resets while cut is closed on the other side only after the heal.</li>
 *   <li>A connection accepted while cut is not connected to the target before {@link #heal()}: the server does not see
 *       it, and its bytes wait as well.</li>
 *   <li>The proxy never talks to anything but a loopback address, and resolves no host name through the system
 *       resolver ({@code "localhost"} stands for {@link InetAddress#getLoopbackAddress()}), so no traffic, not even a
 *       DNS query, leaves the machine.</li>
 *   <li>{@link #close()} is idempotent and returns only once the listener, every connection and every thread the proxy
 *       started are gone.</li>
 * </ul>
 *
 * <p>The proxy does not interpret the bytes it forwards, so it serves a TLS server as well (see {@link #to}).
 *
 * <p>Failure behaviour: the target need not be up when the proxy starts. A connection whose target cannot be
 * connected to is closed, so its client sees the connection closed right after it was accepted, not refused. Every
 * operation except {@code close()} and the queries throws {@link IllegalStateException} once the proxy is closed.
 *
 * <p>Threads: one daemon thread accepts connections, and two more forward each connection, one per direction; all
 * are named {@code tcp-proxy-<port>-...}. While cut they wait on a condition, without spinning.
 *
 * <p>Thread-safe: a test may cut, heal or drop connections while other threads use them.
 */
public final class TcpProxy implements AutoCloseable {

    /** The address the proxy listens on, built from its bytes so that no name is ever looked up. */
    private static final InetAddress LISTEN_ADDRESS = loopbackV4();
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** Pause before accepting again after a failed accept (e.g. out of file descriptors), so as not to spin. */
    private static final Duration ACCEPT_RETRY_DELAY = Duration.ofMillis(50);
    private static final int CHUNK_BYTES = 16 * 1024;

    private final InetSocketAddress target;
    private final boolean tls;
    private final ServerSocket listener;
    private final int port;
    private final String threadPrefix;
    private final Thread acceptor;

    /** Guards {@link #cut}, {@link #closed}, {@link Connection#closed} and the registration of threads. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when traffic may move again: on heal, and when a connection or the proxy is closed. */
    private final Condition passable = lock.newCondition();
    private volatile boolean cut;
    private volatile boolean closed;

    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    /** Every thread started and not yet ended, for close() to wait for. */
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();

    private TcpProxy(InetSocketAddress target, boolean tls) {
        this.target = target;
        this.tls = tls;
        try {
            this.listener = new ServerSocket(0, 50, LISTEN_ADDRESS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a free port on " + LISTEN_ADDRESS.getHostAddress(), e);
        }
        this.port = listener.getLocalPort();
        this.threadPrefix = "tcp-proxy-" + port + "-";
        this.acceptor = newThread("accept", this::acceptLoop);
        threads.add(acceptor);
        acceptor.start();
    }

    /**
     * Starts a proxy to {@code targetHost:targetPort}, listening on {@code 127.0.0.1} and a free port. It accepts and
     * forwards connections as soon as it returns, whether or not the target is up.
     *
     * @param targetHost a loopback address: an IPv4 literal in {@code 127.0.0.0/8}, the IPv6 literal {@code ::1} (also
     *                   in brackets or written out in full), or {@code "localhost"}, which stands for
     *                   {@link InetAddress#getLoopbackAddress()} and is not looked up
     * @param targetPort the target's port, 1 to 65535
     * @return the running proxy, not cut
     * @throws IllegalArgumentException if {@code targetHost} is not a loopback address (no name is looked up to find
     *                                  out), or {@code targetPort} is out of range; the message names the parameter
     * @throws NullPointerException     if {@code targetHost} is null
     * @throws UncheckedIOException     if no port can be bound on {@code 127.0.0.1}
     */
    public static TcpProxy start(String targetHost, int targetPort) {
        return start(targetHost, targetPort, false);
    }

    /**
     * Starts a proxy to {@code server} (see {@link #start(String, int)}). The proxy outlives a {@link RedisServer#kill()
     * kill} and {@link RedisServer#restart() restart} of the server, which keeps its port; closing the server does not
     * close the proxy.
     *
     * @param server the server to forward to; if it speaks TLS, {@link #uri()} is {@code rediss://} as well
     * @return the running proxy, not cut
     * @throws UncheckedIOException if no port can be bound on {@code 127.0.0.1}
     */
    public static TcpProxy to(RedisServer server) {
        Objects.requireNonNull(server, "server");
        return start(server.host(), server.port(), server.uri().startsWith("rediss:"));
    }

    private static TcpProxy start(String targetHost, int targetPort, boolean tls) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort < 1 || targetPort > 65_535) {
            throw new IllegalArgumentException("targetPort must be 1 to 65535, was " + targetPort);
        }
        return new TcpProxy(new InetSocketAddress(loopbackAddress(targetHost), targetPort), tls);
    }

    /**
     * The address the proxy listens on.
     *
     * @return always {@code "127.0.0.1"}
     */
    public String host() {
        return LISTEN_ADDRESS.getHostAddress();
    }

    /**
     * The port the proxy listens on, fixed for its lifetime.
     *
     * @return the TCP port
     */
    public int port() {
        return port;
    }

    /**
     * The URI a Redis client connects with to reach the target through the proxy.
     *
     * @return {@code redis://127.0.0.1:<port>}, or {@code rediss://127.0.0.1:<port>} for a proxy {@link #to} a TLS
     *         server (whose certificate must then be valid for {@code 127.0.0.1}, as the kit's are)
     */
    public String uri() {
        return (tls ? "rediss://" : "redis://") + host() + ":" + port;
    }

    /**
     * Cuts the link, as a network partition would: from now on no byte moves in either direction on any connection,
     * and connections accepted from now on are not connected to the target, until {@link #heal()}. Nothing is
     * discarded: bytes wait in the proxy and, once its buffer of one chunk per direction is full, in the sockets, so
     * senders are eventually held back by TCP flow control; clients see time-outs, not resets. Idempotent.
     *
     * <p>Returns once the cut is in effect: no byte is passed on after it returns, except for a chunk a forwarding
     * thread was already writing (it finishes that write; it is not interrupted, since that would lose bytes).
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void cut() {
        lock.lock();
        try {
            requireOpen();
            cut = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Heals the link: forwarding resumes on every connection, those accepted while cut included (they are connected to
     * the target now), with all the bytes that waited, in order. Idempotent.
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void heal() {
        lock.lock();
        try {
            requireOpen();
            cut = false;
            passable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes every current connection now, on both sides, whether cut or not, discarding whatever waited on them: the
     * client's next read sees end of stream (or a reset, if the proxy had unread bytes from it), and the server sees the
     * client go away. The listener stays open, so clients can reconnect (and, if cut, their new connections wait).
     * Returns once every connection is closed ({@link #connectionCount()} counts only connections accepted since).
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void dropConnections() {
        lock.lock();
        try {
            requireOpen();
        } finally {
            lock.unlock();
        }
        closeAll();
    }

    /**
     * Whether the link is cut.
     *
     * @return true between {@link #cut()} and {@link #heal()}
     */
    public boolean isCut() {
        return cut;
    }

    /**
     * The number of connections currently open: accepted and not yet closed by either side, by
     * {@link #dropConnections()} or by {@link #close()}, including those waiting for a heal.
     *
     * @return the number of open client connections
     */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Closes the listener and every connection, and waits for every thread of the proxy to end. Idempotent.
     *
     * @throws IllegalStateException if a thread of the proxy has not ended within 10 s (which would be a bug);
     *                               if the calling thread is interrupted, it stops waiting and keeps its interrupt
     *                               flag set
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            passable.signalAll();
        } finally {
            lock.unlock();
        }
        closeQuietly(listener);
        // The acceptor first, so that no connection is added after the ones closed below.
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        if (!join(acceptor, deadline)) {
            return;
        }
        closeAll();
        // Closing a connection (under the lock) keeps its threads from starting more, so this set only shrinks now.
        for (Thread thread : List.copyOf(threads)) {
            if (!join(thread, deadline)) {
                return;
            }
        }
    }

    /** Waits for {@code thread} until the deadline; false if interrupted, which stops close() waiting. */
    private static boolean join(Thread thread, long deadline) {
        try {
            thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (thread.isAlive()) {
            throw new IllegalStateException(thread.getName() + " did not end within " + CLOSE_TIMEOUT.toSeconds()
                    + " s of closing the proxy");
        }
        return true;
    }

    @Override
    public String toString() {
        return "TcpProxy[" + uri() + " -> " + target.getAddress().getHostAddress() + ":" + target.getPort()
                + (cut ? ", cut" : "") + (closed ? ", closed" : "") + "]";
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("proxy on port " + port + " is closed");
        }
    }

    private void closeAll() {
        for (Connection connection : List.copyOf(connections)) {
            connection.close();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LockSupport.parkNanos(ACCEPT_RETRY_DELAY.toNanos());
                }
                continue;
            }
            Connection connection = new Connection(connectionIds.incrementAndGet(), client);
            lock.lock();
            try {
                if (closed) {
                    connection.close();
                    return;
                }
                connections.add(connection);
                connection.startThread("up", connection::forwardUp);
            } finally {
                lock.unlock();
            }
        }
    }

    /** A daemon thread named after the proxy, which deregisters itself when it ends; not started yet. */
    private Thread newThread(String suffix, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        }, threadPrefix + suffix);
        thread.setDaemon(true);
        return thread;
    }

    /** One client connection and its connection to the target, each forwarded by a thread of its own. */
    private final class Connection {
        private final long id;
        private final Socket client;
        /** Created unconnected, so that close() can abort a connect in progress. */
        private final Socket upstream = new Socket();
        /** Guarded by {@link #lock}; volatile for reads outside it. */
        private volatile boolean closed;
        /** Directions that reached end of stream (and passed it on); guarded by {@link #lock}. */
        private int finishedDirections;

        Connection(long id, Socket client) {
            this.id = id;
            this.client = client;
        }

        /** Starts a thread for this connection unless it is closed; call with {@link #lock} held. */
        void startThread(String direction, Runnable body) {
            if (closed) {
                return;
            }
            Thread thread = newThread(id + "-" + direction, body);
            threads.add(thread);
            thread.start();
        }

        /** Connects to the target once not cut, starts the other direction, then forwards client to target. */
        void forwardUp() {
            if (!awaitPassable()) {
                return;
            }
            try {
                client.setTcpNoDelay(true);
                upstream.connect(target, (int) CONNECT_TIMEOUT.toMillis());
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                close(); // the target is down: its client sees the connection closed
                return;
            }
            lock.lock();
            try {
                startThread("down", () -> forward(upstream, client));
            } finally {
                lock.unlock();
            }
            forward(client, upstream);
        }

        /**
         * Copies {@code from} to {@code to} chunk by chunk, checking before every read and every write that the link
         * is not cut (a chunk read just before a cut waits in the buffer). End of stream is passed on as a half-close,
         * so that bytes still flowing the other way are not lost; a failure closes the whole connection. Both wait for
         * a heal, as a partition would hold them back too.
         */
        private void forward(Socket from, Socket to) {
            byte[] buffer = new byte[CHUNK_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (true) {
                    if (!awaitPassable()) {
                        return;
                    }
                    int n = in.read(buffer);
                    if (!awaitPassable()) {
                        return;
                    }
                    if (n < 0) {
                        to.shutdownOutput();
                        finishDirection();
                        return;
                    }
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // A reset, or a socket closed by close() (then the wait returns at once).
                if (awaitPassable()) {
                    close();
                }
            }
        }

        /** Waits while cut; true once traffic may move, false if this connection is closed. */
        private boolean awaitPassable() {
            lock.lock();
            try {
                while (cut && !closed) {
                    passable.awaitUninterruptibly();
                }
                return !closed;
            } finally {
                lock.unlock();
            }
        }

        /** Closes the connection once both sides have closed their output and both half-closes were passed on. */
        private void finishDirection() {
            boolean both;
            lock.lock();
            try {
                both = ++finishedDirections == 2;
            } finally {
                lock.unlock();
            }
            if (both) {
                close();
            }
        }

        /** Closes both sockets (unblocking the threads in them) and wakes the threads waiting for a heal. */
        void close() {
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                closed = true;
                passable.signalAll();
            } finally {
                lock.unlock();
            }
            closeQuietly(client);
            closeQuietly(upstream);
            connections.remove(this);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // nothing left to do with a socket that cannot even be closed
        }
    }

    /**
     * The loopback address {@code host} denotes, found without any name lookup; anything else is rejected, because
     * tests must not send traffic (a DNS query included) beyond this machine.
     */
    private static InetAddress loopbackAddress(String host) {
        InetAddress address;
        if (host.toLowerCase(Locale.ROOT).equals("localhost")) {
            address = InetAddress.getLoopbackAddress();
        } else {
            address = ipLiteral(host);
        }
        if (address == null || !address.isLoopbackAddress()) {
            throw new IllegalArgumentException("targetHost must be a loopback address (127.0.0.0/8, ::1 or localhost),"
                    + " was \"" + host + "\"");
        }
        return address;
    }

    /**
     * The address of an IP literal, or null if {@code host} is not one. Only strings validated here reach
     * {@link InetAddress#getByName}, which looks up nothing for a literal.
     */
    private static InetAddress ipLiteral(String host) {
        Matcher v4 = IPV4.matcher(host);
        if (v4.matches()) {
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(v4.group(i + 1));
                if (octet > 255) {
                    return null;
                }
                bytes[i] = (byte) octet;
            }
            return byAddress(bytes);
        }
        String v6 = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (!v6.contains(":")) {
            return null;
        }
        try {
            // java.net.URI validates an IPv6 literal strictly, without resolving anything.
            String literal = new URI(null, null, "[" + v6 + "]", -1, null, null, null).getHost();
            if (literal == null || !literal.equals("[" + v6 + "]")) {
                return null;
            }
            return InetAddress.getByName(literal);
        } catch (URISyntaxException | UnknownHostException e) {
            return null;
        }
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4-byte address is always valid", e);
        }
    }

    private static InetAddress loopbackV4() {
        return byAddress(new byte[] {127, 0, 0, 1});
    }
}
