package dev.baton.bench;

import dev.baton.test.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts, through {@code MONITOR}, the commands Redis executes over a span of a <em>contended</em> workload, split
 * into those a client sent (round trips) and those a Lua script ran. {@link ProtocolTrace} does the same for a few
 * single-threaded operations; under contention the round trips per operation are different (failed tries, queueing,
 * subscriptions), and {@code INFO commandstats} cannot tell the two kinds apart.
 *
 * <p>It plays the harness' {@link RedisAdmin}: {@link #resetStats()} starts the span and {@link #commandStats()}
 * ends it, so the same timed runner that measures with commandstats can measure with MONITOR instead. The span is
 * delimited in MONITOR's own stream by {@code ECHO} markers, so it holds exactly the commands executed between the
 * two calls. A reader thread drains the stream while the workload runs (MONITOR slows Redis down: never use it in a
 * timed window whose speed is reported). Pub/sub messages pushed to subscribers are not commands and do not
 * appear; {@code SUBSCRIBE} and {@code UNSUBSCRIBE} do.
 */
final class MonitorTap implements RedisAdmin {
    private static final Pattern LINE = Pattern.compile("^\\+?\\d+\\.\\d+ \\[\\d+ ([^\\]]+)\\] \"([^\"]*)\"");
    private static final long MARKER_WAIT_SECONDS = 60;

    private final RedisServer server;
    private final Socket socket;
    private final Thread reader;
    private final Map<String, Long> sent = new TreeMap<>();
    private final Map<String, Long> inScripts = new TreeMap<>();
    private volatile String startMarker;
    private volatile String endMarker;
    private volatile CountDownLatch started = new CountDownLatch(1);
    private volatile CountDownLatch ended = new CountDownLatch(1);
    private volatile Exception failure;
    private volatile boolean startSeen;
    private volatile boolean endSeen;

    private MonitorTap(RedisServer server, Socket socket, BufferedReader in) {
        this.server = server;
        this.socket = socket;
        this.reader = new Thread(() -> read(in), "monitor-tap");
        reader.setDaemon(true);
        reader.start();
    }

    /** Opens a MONITOR connection to the server; nothing is counted before {@link #resetStats()}. */
    static MonitorTap open(RedisServer server) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(server.host(), server.port()), 2_000);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1), 1 << 16);
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            return new MonitorTap(server, socket, in);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the span: commands executed from now on are counted. */
    @Override
    public void resetStats() {
        synchronized (this) {
            sent.clear();
            inScripts.clear();
        }
        started = new CountDownLatch(1);
        ended = new CountDownLatch(1);
        endMarker = null;
        startSeen = false;
        endSeen = false;
        startMarker = "baton-bench-tap-start-" + UUID.randomUUID();
        server.command("ECHO", startMarker);
        await(started, "start");
        if (!startSeen) {
            throw new IllegalStateException("MONITOR connection closed before the start marker", failure);
        }
    }

    /** Ends the span and returns every command counted in it, sent or run by a script, like commandstats would. */
    @Override
    public CommandStats commandStats() {
        endMarker = "baton-bench-tap-end-" + UUID.randomUUID();
        server.command("ECHO", endMarker);
        await(ended, "end");
        if (!endSeen) {
            throw new IllegalStateException("MONITOR connection closed before the end marker", failure);
        }
        synchronized (this) {
            Map<String, Long> all = new TreeMap<>(sent);
            inScripts.forEach((k, v) -> all.merge(k, v, Long::sum));
            return CommandStats.of(all);
        }
    }

    /** Commands clients sent in the last span: the round trips. */
    synchronized Map<String, Long> sent() {
        return new TreeMap<>(sent);
    }

    /** Commands Lua scripts ran in the last span. */
    synchronized Map<String, Long> inScripts() {
        return new TreeMap<>(inScripts);
    }

    @Override
    public void close() {
        closeQuietly(socket);
        try {
            reader.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void read(BufferedReader in) {
        boolean counting = false;
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String start = startMarker;
                String end = endMarker;
                if (start != null && line.contains(start)) {
                    counting = true;
                    startSeen = true;
                    started.countDown();
                    continue;
                }
                if (end != null && line.contains(end)) {
                    counting = false;
                    endSeen = true;
                    ended.countDown();
                    continue;
                }
                if (!counting) {
                    continue;
                }
                Matcher m = LINE.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String command = m.group(2).toLowerCase(Locale.ROOT);
                synchronized (this) {
                    (m.group(1).equals("lua") ? inScripts : sent).merge(command, 1L, Long::sum);
                }
            }
        } catch (IOException e) {
            if (!socket.isClosed()) {
                failure = e;
            }
        } finally {
            started.countDown();
            ended.countDown();
        }
    }

    private void await(CountDownLatch latch, String which) {
        try {
            if (!latch.await(MARKER_WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not show the " + which + " marker within "
                        + MARKER_WAIT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the MONITOR " + which + " marker", e);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to do with it
        }
    }
}
