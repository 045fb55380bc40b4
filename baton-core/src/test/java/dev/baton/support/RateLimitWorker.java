package dev.baton.support;

import dev.baton.Baton;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A service instance hammering a rate limiter, for multi-process accuracy tests. Started with {@code URI THREADS},
 * prints {@code READY}, then obeys stdin: {@code RUN NAME ALGORITHM PERMITS PERIOD_MS BURST SECONDS} makes every
 * thread call {@code tryAcquire()} as fast as it can for that long and prints {@code RESULT admitted decisions};
 * {@code EXIT} ends it.
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
                long[] result = hammer(baton.rateLimiter(a[1], limit), threads, Duration.ofSeconds(Long.parseLong(a[6])));
                System.out.println("RESULT " + result[0] + " " + result[1]);
            }
        }
    }

    private static long[] hammer(RateLimiter limiter, int threads, Duration duration) throws InterruptedException {
        LongAdder admitted = new LongAdder();
        LongAdder decisions = new LongAdder();
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    if (limiter.tryAcquire().allowed()) {
                        admitted.increment();
                    }
                    decisions.increment();
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
