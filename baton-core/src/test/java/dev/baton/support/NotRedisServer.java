package dev.baton.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A server on a loopback port that is not Redis: to each connection it answers one fixed reply (an HTTP error, an
 * HTML page, another protocol's greeting) and hangs up, as a web server or another service found at a wrong port
 * would. For the diagnostics that tell the user what answered instead of Redis. Each connection is served by a daemon
 * thread within a bounded time; closing the server ends them.
 */
public final class NotRedisServer implements AutoCloseable {
    /** What a web server answers to a request it cannot parse (a RESP command is one). */
    public static final String HTTP_400 = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11"
            + "\r\nConnection: close\r\n\r\nBad Request";
    /** What some servers and proxies send at once, before reading anything. */
    public static final String HTML_PAGE = "<html><body>It works</body></html>\r\n";
    /** An SSH server's greeting: neither Redis nor HTTP. */
    public static final String SSH_GREETING = "SSH-2.0-OpenSSH_9.6\r\n";

    private static final int READ_WAIT_MILLIS = 200;

    private final ServerSocket socket;
    private final byte[] reply;
    private final boolean readFirst;

    private NotRedisServer(String reply, boolean readFirst) throws IOException {
        this.socket = new ServerSocket();
        this.socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.reply = reply.getBytes(StandardCharsets.US_ASCII);
        this.readFirst = readFirst;
        Thread acceptor = new Thread(this::serve, "not-redis-" + socket.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a server that waits for the client's first bytes (briefly), then answers {@code reply} and hangs up.
     */
    public static NotRedisServer answering(String reply) throws IOException {
        return new NotRedisServer(reply, true);
    }

    /** Starts a server that sends {@code reply} as soon as a client connects, then hangs up. */
    public static NotRedisServer greeting(String reply) throws IOException {
        return new NotRedisServer(reply, false);
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** {@code redis://127.0.0.1:port} (or the given scheme): a URI that leads here. */
    public String uri(String scheme) {
        return scheme + "://" + socket.getInetAddress().getHostAddress() + ":" + port();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Thread one = new Thread(() -> answer(client), "not-redis-client");
                one.setDaemon(true);
                one.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void answer(Socket client) {
        try (client) {
            client.setSoTimeout(READ_WAIT_MILLIS);
            InputStream in = client.getInputStream();
            if (readFirst) {
                try {
                    in.read(new byte[4096]);
                } catch (SocketTimeoutException e) {
                    // a client that sends nothing first still gets the answer
                }
            }
            client.getOutputStream().write(reply);
            client.getOutputStream().flush();
            client.shutdownOutput();
            // Reads what the client still sends until it hangs up too (bounded by the read timeout), so that closing
            // does not reset the connection before the client has read the answer.
            byte[] rest = new byte[4096];
            try {
                while (in.read(rest) >= 0) {
                    // discarded
                }
            } catch (SocketTimeoutException e) {
                // done waiting
            }
        } catch (IOException e) {
            // the client went away first: nothing to answer
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
