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
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which commands one operation sends, seen through {@code MONITOR} on a few single-threaded operations (never
 * during a timed phase: MONITOR slows Redis down). {@code INFO commandstats} cannot tell a command a client sent
 * from one a Lua script ran; MONITOR marks the latter as coming from {@code [0 lua]}, so this trace shows the round
 * trips per operation next to the script-internal work.
 */
final class ProtocolTrace {
    private static final Pattern LINE = Pattern.compile("^\\+?\\d+\\.\\d+ \\[\\d+ ([^\\]]+)\\] \"([^\"]*)\"");
    private static final int WARMUP_OPS = 200;
    static final int OPS = 50;

    /** Client-sent and script-run commands per operation of one shape. */
    record Trace(String contender, String shape, int ops, Map<String, Integer> sent, Map<String, Integer> inScripts) {
        double sentPerOp() {
            return sent.values().stream().mapToInt(Integer::intValue).sum() / (double) ops;
        }

        double inScriptsPerOp() {
            return inScripts.values().stream().mapToInt(Integer::intValue).sum() / (double) ops;
        }

        String sentBreakdown() {
            return breakdown(sent);
        }

        String inScriptsBreakdown() {
            return breakdown(inScripts);
        }

        private String breakdown(Map<String, Integer> calls) {
            return calls.entrySet().stream()
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%.2f", e.getValue() / (double) ops))
                    .collect(Collectors.joining(", "));
        }
    }

    private ProtocolTrace() {
    }

    /** One thread: lock() then unlock(), nobody else around. */
    static Trace lockUnlock(String kind, RedisServer server) throws Exception {
        try (Contender client = Contender.open(kind, server.uri())) {
            Lock lock = client.lock("bench:trace:a:" + kind);
            for (int i = 0; i < WARMUP_OPS; i++) {
                lock.lock();
                lock.unlock();
            }
            return traced(kind, "lock+unlock, free lock", server, () -> {
                lock.lock();
                lock.unlock();
            });
        }
    }

    /** tryLock(0) on a lock another thread of the same client holds: the failing attempt of scenario (d). */
    static Trace failedTryLock(String kind, RedisServer server) throws Exception {
        try (Contender client = Contender.open(kind, server.uri())) {
            Lock lock = client.lock("bench:trace:d:" + kind);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread owner = new Thread(() -> {
                lock.lock();
                held.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }, "trace-owner");
            owner.start();
            held.await();
            try {
                for (int i = 0; i < WARMUP_OPS; i++) {
                    attemptExpectingFailure(lock);
                }
                return traced(kind, "tryLock(0) on a held lock", server, () -> attemptExpectingFailure(lock));
            } finally {
                done.countDown();
                owner.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
    }

    /**
     * Granted decisions, each on a limiter of {@link RateLimiterContender.Rate#PER_KEY} that has not been asked
     * before: what nearly every call of scenario (r2) is. Redisson's {@code trySetRate} is sent for every limiter
     * before the traced span, so only the decisions are counted.
     */
    static Trace rateGranted(String kind, RedisServer server) throws Exception {
        try (RateLimiterContender client = RateLimiterContender.open(kind, server.uri())) {
            RateLimiterContender.Rate rate = RateLimiterContender.Rate.PER_KEY;
            for (int i = 0; i < WARMUP_OPS; i++) {
                client.limiter("bench:trace:r2-warm:" + kind + ":" + i, rate).tryAcquire();
            }
            RateLimiterContender.Limiter[] limiters = new RateLimiterContender.Limiter[OPS];
            for (int i = 0; i < OPS; i++) {
                limiters[i] = client.limiter("bench:trace:r2:" + kind + ":" + i, rate);
            }
            int[] next = {0};
            int[] granted = {0};
            Trace trace = traced(kind, "tryAcquire, granted (limiter not asked before)", server, () -> {
                if (limiters[next[0]++].tryAcquire()) {
                    granted[0]++;
                }
            });
            if (granted[0] != OPS) {
                throw new IllegalStateException(kind + " refused " + (OPS - granted[0]) + " of " + OPS
                        + " first requests to fresh limiters");
            }
            return trace;
        }
    }

    /**
     * Decisions on one limiter of {@link RateLimiterContender.Rate#ONE_KEY} that has been emptied first (asked
     * until it refused): the refusals of scenario (r1). The limit refills one permit per millisecond (Baton,
     * Bucket4j) or whatever left the window a second ago (Redisson), so some of the traced decisions can still be
     * grants; the shape says how many were refused.
     */
    static Trace rateRefused(String kind, RedisServer server) throws Exception {
        try (RateLimiterContender client = RateLimiterContender.open(kind, server.uri())) {
            RateLimiterContender.Rate rate = RateLimiterContender.Rate.ONE_KEY;
            RateLimiterContender.Limiter limiter = client.limiter("bench:trace:r1:" + kind, rate);
            for (long i = 0; limiter.tryAcquire(); i++) {
                if (i > 10 * rate.burst()) {
                    throw new IllegalStateException(kind + " never refused on a limit of " + rate);
                }
            }
            int[] granted = {0};
            Trace trace = traced(kind, "tryAcquire on an emptied limiter", server, () -> {
                if (limiter.tryAcquire()) {
                    granted[0]++;
                }
            });
            return new Trace(trace.contender(), trace.shape() + " (" + (OPS - granted[0]) + " of " + OPS
                    + " refused)", trace.ops(), trace.sent(), trace.inScripts());
        }
    }

    private static void attemptExpectingFailure(Lock lock) throws InterruptedException {
        if (lock.tryLock(0, TimeUnit.MILLISECONDS)) {
            lock.unlock();
            throw new IllegalStateException("tryLock acquired a lock another thread holds");
        }
    }

    interface Op {
        void run() throws Exception;
    }

    private static Trace traced(String kind, String shape, RedisServer server, Op op) throws Exception {
        String marker = "baton-bench-trace-" + UUID.randomUUID();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(server.host(), server.port()), 2_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            for (int i = 0; i < OPS; i++) {
                op.run();
            }
            server.command("ECHO", marker);
            Map<String, Integer> sent = new TreeMap<>();
            Map<String, Integer> inScripts = new TreeMap<>();
            while (true) {
                String line = in.readLine();
                if (line == null) {
                    throw new IllegalStateException("MONITOR connection closed before the end marker");
                }
                if (line.contains(marker)) {
                    break;
                }
                Matcher m = LINE.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String command = m.group(2).toLowerCase(Locale.ROOT);
                (m.group(1).equals("lua") ? inScripts : sent).merge(command, 1, Integer::sum);
            }
            return new Trace(kind, shape, OPS, sent, inScripts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
