package dev.baton.support;

import dev.baton.Baton;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A service instance hammering a rate limiter, for multi-process accuracy tests. Started with {@code URI THREADS},
 * prints {@code READY}, then obeys stdin: {@code RUN NAME ALGORITHM PERMITS PERIOD_MS BURST SECONDS ORIGIN_NANOS}
 * makes every thread call {@code tryAcquire()} as fast as it can for that long and prints
 * {@code RESULT admitted decisions busy}; {@code EXIT} ends it. {@code busy} lists the 10 ms slots, counted from
 * {@code ORIGIN_NANOS} on {@link System#nanoTime()} (one clock for all processes of a Linux machine), in which a
 * decision of this process completed: a bitmap in hex, so that the test can tell a stalled machine from a limiter
 * that refused too much.
 */
public final class RateLimitWorker {
    private RateLimitWorker() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        try (Baton baton = Baton.connect(args[0])) {
            // Load and compile the decision path before the clock starts, on a limiter nobody measures.
            RateLimiter warmUp = baton.rateLimiter("warm-up", RateLimit.of(1, Duration.ofSeconds(1)));
            for (int i = 0; i < 2_000; i++) {
                warmUp.peek();
            }
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("EXIT")) {
                String[] a = line.split(" ");
                RateLimit limit = RateLimit.builder(Long.parseLong(a[3]), Duration.ofMillis(Long.parseLong(a[4])))
                        .algorithm(RateLimit.Algorithm.valueOf(a[2])).burst(Long.parseLong(a[5])).build();
                Duration duration = Duration.ofSeconds(Long.parseLong(a[6]));
                BitSet busy = new BitSet();
                long[] result = hammer(baton, a[1], limit, threads, duration, Long.parseLong(a[7]), busy);
                System.out.println("RESULT " + result[0] + " " + result[1] + " " + HexFormat.of().formatHex(busy.toByteArray()));
            }
        }
    }

    /**
     * Half the threads share one limiter object, as a service would; the other half make a new one for every call,
     * so that every one of their decisions is the script's (a shared object repeats a known refusal itself).
     */
    private static long[] hammer(Baton baton, String name, RateLimit limit, int threads, Duration duration,
                                 long origin, BitSet busy) throws InterruptedException {
        RateLimiter shared = baton.rateLimiter(name, limit);
        LongAdder admitted = new LongAdder();
        LongAdder decisions = new LongAdder();
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            boolean own = i % 2 == 1;
            Thread t = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    RateLimiter limiter = own ? baton.rateLimiter(name, limit) : shared;
                    if (limiter.tryAcquire().allowed()) {
                        admitted.increment();
                    }
                    decisions.increment();
                    int slot = (int) ((System.nanoTime() - origin) / 10_000_000);
                    if (slot >= 0 && !busy.get(slot)) {
                        synchronized (busy) {
                            busy.set(slot);
                        }
                    }
                }
            });
            t.start();
            workers.add(t);
        }
        for (Thread t : workers) {
            t.join();
        }
        return new long[] {admitted.sum(), decisions.sum()};
    }
}
