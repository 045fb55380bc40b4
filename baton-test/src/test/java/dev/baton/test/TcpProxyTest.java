package dev.baton.test;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TcpProxyTest {

    /** How long a client waits for a reply that must not come: long enough for loopback, short for the suite. */
    private static final int NO_REPLY_MILLIS = 300;
    /** How long a client waits for a reply that must come, generous for a loaded machine. */
    private static final int REPLY_MILLIS = 10_000;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        // Clients first, then proxies, then servers: the reverse of the order they were opened in.
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private TcpProxy proxyToNewServer() {
        RedisServer server = track(RedisServer.start());
        return track(TcpProxy.to(server));
    }

    private Client connect(TcpProxy proxy) throws IOException {
        return track(new Client(proxy.host(), proxy.port()));
    }

    /** The live threads of the proxy listening on {@code port}. */
    private static List<Thread> threadsOf(int port) {
        String prefix = "tcp-proxy-" + port + "-";
        List<Thread> found = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(prefix) && thread.isAlive()) {
                found.add(thread);
            }
        }
        return found;
    }

    /** The number of clients connected to {@code server}, the connection asking included. */
    private static int clientCount(RedisServer server) {
        return server.command("CLIENT", "LIST").split("\n").length;
    }

    @Test
    void forwardsToTheTarget() throws IOException {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.to(server));
        assertThat(proxy.host()).isEqualTo("127.0.0.1");
        assertThat(proxy.port()).isPositive().isNotEqualTo(server.port());
        assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
        assertThat(proxy.isCut()).isFalse();

        Client client = connect(proxy);
        assertThat(client.call("PING")).isEqualTo("PONG");
        assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
        assertThat(server.command("GET", "k")).isEqualTo("v");
        assertThat(proxy.connectionCount()).isEqualTo(1);
        // The acceptor, and one thread per direction of the connection.
        await().atMost(ofSeconds(10)).untilAsserted(() -> assertThat(threadsOf(proxy.port()))
                .extracting(Thread::getName)
                .containsExactlyInAnyOrder("tcp-proxy-" + proxy.port() + "-accept",
                        "tcp-proxy-" + proxy.port() + "-1-up", "tcp-proxy-" + proxy.port() + "-1-down"));
        assertThat(threadsOf(proxy.port())).allMatch(Thread::isDaemon);
    }

    @Test
    void cutHoldsRequestsAndHealDeliversTheLateRepliesInOrder() throws IOException {
        TcpProxy proxy = proxyToNewServer();
        Client client = connect(proxy);
        assertThat(client.call("PING")).isEqualTo("PONG");

        proxy.cut();
        assertThat(proxy.isCut()).isTrue();
        long cpuBefore = cpuNanos(threadsOf(proxy.port()));
        client.send("PING", "late");
        client.assertNoReplyWithin(NO_REPLY_MILLIS);
        // Waiting for the heal costs (next to) no CPU: the proxy's threads block, they do not poll.
        assertThat(cpuNanos(threadsOf(proxy.port())) - cpuBefore).isLessThan(TimeUnit.MILLISECONDS.toNanos(100));

        proxy.heal();
        assertThat(proxy.isCut()).isFalse();
        assertThat(client.read()).isEqualTo("late");
        assertThat(client.call("PING", "fresh")).isEqualTo("fresh");
    }

    @Test
    void cutHoldsTrafficFromTheServerToo() throws IOException {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.to(server));
        Client subscriber = connect(proxy);
        assertThat(subscriber.call("SUBSCRIBE", "news")).isEqualTo(List.of("subscribe", "news", 1L));

        proxy.cut();
        // The server delivers the message (to the proxy), but the subscriber must not get it before the heal.
        assertThat(server.command("PUBLISH", "news", "held")).isEqualTo("1");
        subscriber.assertNoReplyWithin(NO_REPLY_MILLIS);

        proxy.heal();
        assertThat(subscriber.read()).isEqualTo(List.of("message", "news", "held"));
    }

    @Test
    void cutLosesNothingOfALargeCommand() throws Exception {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.to(server));
        Client client = connect(proxy);
        assertThat(client.call("PING")).isEqualTo("PONG");
        StringBuilder large = new StringBuilder();
        for (int i = 0; large.length() < 4 * 1024 * 1024; i++) {
            large.append(i).append(',');
        }
        String value = large.toString();

        proxy.cut();
        // Larger than the socket buffers may hold, so the writer may block until the heal: it writes from a thread.
        CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
            try {
                client.send("SET", "large", value);
                client.send("GET", "large");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        client.assertNoReplyWithin(NO_REPLY_MILLIS);
        assertThat(server.command("EXISTS", "large")).isEqualTo("0");

        proxy.heal();
        assertThat(client.read()).isEqualTo("OK");
        assertThat(client.read()).isEqualTo(value);
        written.get(REPLY_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Test
    void connectionOpenedWhileCutIsForwardedAfterTheHeal() throws IOException {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.to(server));
        proxy.cut();

        Client client = connect(proxy); // accepted, not refused
        client.send("PING");
        client.assertNoReplyWithin(NO_REPLY_MILLIS);
        await().atMost(ofSeconds(10)).until(proxy::connectionCount, count -> count == 1);
        // Not even connected to the server yet, as with a partition.
        assertThat(clientCount(server)).isEqualTo(1);

        proxy.heal();
        assertThat(client.read()).isEqualTo("PONG");
        assertThat(clientCount(server)).isEqualTo(2);
    }

    @Test
    void dropConnectionsClosesClientsAndTheNextConnectionWorks() throws IOException {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.to(server));
        Client first = connect(proxy);
        assertThat(first.call("PING")).isEqualTo("PONG");

        proxy.dropConnections();
        assertThat(proxy.connectionCount()).isZero();
        first.assertClosedByPeer();
        await().atMost(ofSeconds(10)).until(() -> clientCount(server) == 1); // the server saw it go too

        Client second = connect(proxy);
        assertThat(second.call("PING")).isEqualTo("PONG");
        assertThat(proxy.connectionCount()).isEqualTo(1);
    }

    @Test
    void dropConnectionsWhileCutClosesNowAndNewConnectionsWaitForTheHeal() throws IOException {
        TcpProxy proxy = proxyToNewServer();
        Client first = connect(proxy);
        assertThat(first.call("PING")).isEqualTo("PONG");
        proxy.cut();
        first.send("PING", "never");

        proxy.dropConnections();
        first.assertClosedByPeer();
        assertThat(proxy.isCut()).isTrue();

        Client second = connect(proxy);
        second.send("PING", "after");
        second.assertNoReplyWithin(NO_REPLY_MILLIS);
        proxy.heal();
        assertThat(second.read()).isEqualTo("after");
    }

    @Test
    void closesConnectionsToATargetThatIsDown() throws IOException {
        int freePort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = socket.getLocalPort();
        }
        TcpProxy proxy = track(TcpProxy.start("127.0.0.1", freePort));
        Client client = connect(proxy);
        client.assertClosedByPeer();
        await().atMost(ofSeconds(10)).until(proxy::connectionCount, count -> count == 0);
    }

    @Test
    void closeIsIdempotentAndEndsEveryThread() throws IOException {
        TcpProxy proxy = proxyToNewServer();
        int port = proxy.port();
        Client a = connect(proxy);
        Client b = connect(proxy);
        assertThat(a.call("PING")).isEqualTo("PONG");
        assertThat(b.call("PING")).isEqualTo("PONG");
        await().atMost(ofSeconds(10)).until(() -> threadsOf(port).size() == 5); // acceptor + 2 per connection
        proxy.cut();
        a.send("PING"); // a thread now holds bytes and waits for the heal

        proxy.close();
        assertThat(threadsOf(port)).isEmpty();
        assertThat(proxy.connectionCount()).isZero();
        a.assertClosedByPeer();
        b.assertClosedByPeer();
        assertThatThrownBy(() -> new Socket(proxy.host(), port).close()).isInstanceOf(IOException.class);

        proxy.close();
        assertThatThrownBy(proxy::cut).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(proxy::heal).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(proxy::dropConnections).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "192.168.1.1", "8.8.8.8", "128.0.0.1", "0.0.0.0", "::", "::2", "fe80::1",
            "[::2]", "example.com", "localhost.example.com", "127.1", "127.0.0.256", "1:2", ""})
    void rejectsTargetsOtherThanLoopback(String host) {
        assertThatThrownBy(() -> TcpProxy.start(host, 6379))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("targetHost");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]", "0:0:0:0:0:0:0:1"})
    void acceptsLoopbackTargets(String host) {
        track(TcpProxy.start(host, 6379));
    }

    @Test
    void localhostReachesTheServer() throws IOException {
        RedisServer server = track(RedisServer.start());
        TcpProxy proxy = track(TcpProxy.start("localhost", server.port()));
        assertThat(connect(proxy).call("PING")).isEqualTo("PONG");
    }

    @Test
    void rejectsBadPortsAndNulls() {
        assertThatThrownBy(() -> TcpProxy.start("127.0.0.1", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetPort");
        assertThatThrownBy(() -> TcpProxy.start("127.0.0.1", 65_536))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetPort");
        assertThatThrownBy(() -> TcpProxy.start(null, 6379))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("targetHost");
        assertThatThrownBy(() -> TcpProxy.to(null)).isInstanceOf(NullPointerException.class);
    }

    /** The CPU time the given threads used so far. */
    private static long cpuNanos(List<Thread> threads) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : threads) {
            total += Math.max(0, mx.getThreadCpuTime(thread.getId()));
        }
        return total;
    }

    /** A plain RESP client over one socket, which may send commands without reading their replies. */
    private static final class Client implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        Client(String host, int port) throws IOException {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), REPLY_MILLIS);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        void send(String... args) throws IOException {
            out.write(Resp.encode(args));
            out.flush();
        }

        Object read() throws IOException {
            socket.setSoTimeout(REPLY_MILLIS);
            return Resp.read(in);
        }

        Object call(String... args) throws IOException {
            send(args);
            return read();
        }

        /** A read times out; the socket stays usable (a read time-out consumes nothing). */
        void assertNoReplyWithin(int millis) throws IOException {
            socket.setSoTimeout(millis);
            assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
        }

        /** The next read sees end of stream, or a reset: the proxy closed the connection. */
        void assertClosedByPeer() throws IOException {
            socket.setSoTimeout(REPLY_MILLIS);
            int read;
            try {
                read = in.read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("connection still open after " + REPLY_MILLIS + " ms", e);
            } catch (IOException e) {
                return; // reset
            }
            assertThat(read).as("end of stream").isEqualTo(-1);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
