package dev.baton.bench.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The resource the leaders of {@link ElectionBench} write to: a tiny line server on the loopback interface, in the
 * bench's own JVM, that refuses a write carrying an epoch lower than the highest it has seen, and accepts a write
 * carrying none (Spring Integration's leaders have no epoch to give). Each candidate JVM holds one connection; a write
 * is {@code W <candidate> <epoch or -> \n}, answered {@code OK} or {@code REFUSED}. Every write is recorded with the
 * time it arrived ({@link System#nanoTime()} of this JVM). Thread-safe.
 */
final class EpochResource implements AutoCloseable {

    /**
     * One write as the resource saw it.
     *
     * @param candidate the writer's candidate number
     * @param epoch     the epoch it carried, or -1 for none
     * @param accepted  whether the resource took it
     * @param nanos     when it arrived
     */
    record Write(int candidate, long epoch, boolean accepted, long nanos) {
    }

    private final ServerSocket socket;
    private final List<Write> writes = new ArrayList<>();
    private final List<Socket> connections = new ArrayList<>();
    private long highestEpoch = -1;

    EpochResource() throws IOException {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "epoch-resource");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    /**
     * The writes that arrived after {@code fromNanos}, in order of arrival.
     *
     * @param fromNanos a {@link System#nanoTime()} of this JVM
     * @return a copy
     */
    synchronized List<Write> writesAfter(long fromNanos) {
        return writes.stream().filter(w -> w.nanos() > fromNanos).toList();
    }

    private synchronized boolean write(int candidate, long epoch) {
        boolean accepted = epoch < 0 || epoch >= highestEpoch;
        if (accepted && epoch >= 0) {
            highestEpoch = epoch;
        }
        writes.add(new Write(candidate, epoch, accepted, System.nanoTime()));
        return accepted;
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                connection.setTcpNoDelay(true);
                synchronized (this) {
                    connections.add(connection);
                }
                Thread serving = new Thread(() -> serve(connection), "epoch-resource-" + connection.getPort());
                serving.setDaemon(true);
                serving.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket connection) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                StandardCharsets.US_ASCII)); OutputStream out = connection.getOutputStream()) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                boolean accepted = write(Integer.parseInt(f[1]), f[2].equals("-") ? -1 : Long.parseLong(f[2]));
                out.write((accepted ? "OK\n" : "REFUSED\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // the candidate died (killed on purpose) or sent garbage: its connection ends
        }
    }

    @Override
    public synchronized void close() throws IOException {
        socket.close();
        for (Socket connection : connections) {
            connection.close();
        }
    }
}
