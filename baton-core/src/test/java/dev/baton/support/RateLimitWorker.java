package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A service instance hammering a rate limiter, for multi-process accuracy tests. Started with {@code URI THREADS},
 * prints {@code READY}, then obeys stdin: {@code RUN NAME ALGORITHM PERMITS PERIOD_MS BURST SECONDS} makes every
 * thread call {@code tryAcquire()} as fast as it can for that long and prints
 * {@code RESULT ADMITTED DECISIONS REFUSALS UNKNOWN ADMISSIONS REFUSED}; {@code EXIT} ends it.
 *
 * <p>Every decision is timed: {@link #wallMicros()} just before the call and just after the answer, so the moment
 * the script read Redis's clock lies in between. {@code ADMISSIONS} and {@code REFUSED} are {@link Intervals} in
 * text form. {@code ADMISSIONS} holds every admission, and every request of unknown outcome ({@code UNKNOWN} of
 * them, as open intervals): one that got no answer may still have been admitted; the thread that sent it stops.
 * {@code REFUSED} holds, of each thread's refusals sent within one millisecond, only the one with the narrowest
 * interval. A thread sharing a limiter object answers millions of known refusals a second; any subset of the
 * refusals is still a fair sample to judge, and the narrowest interval of each millisecond is the one that says
 * most.
 */
public final class RateLimitWorker {
    private RateLimitWorker() {
    }

    /**
     * The wall clock in whole microseconds, truncated as Redis's {@code TIME} truncates it. Java reads
     * {@code CLOCK_REALTIME} (with nanosecond resolution on Linux) and Redis reads it with {@code gettimeofday}: on
     * one machine, the same clock.
     */
    public static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        // The test judges what the limiter decides, not how fast: generous timeouts, so that a loaded machine
        // slows the decisions down instead of turning them into failures.
        BatonConfig config = BatonConfig.builder().uri(args[0]).commandTimeout(Duration.ofSeconds(10))
                .rateLimitTimeout(Duration.ofSeconds(10)).build();
        try (Baton baton = Baton.connect(config)) {
            // Load and compile the decision path before the clock starts, on a limiter nobody measures.
            RateLimiter warmUp = baton.rateLimiter("warm-up", RateLimit.of(1, Duration.ofSeconds(1)));
            for (int i = 0; i < 2_000; i++) {
                warmUp.peek();
                wallMicros();
            }
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("EXIT")) {
                String[] a = line.split(" ");
                RateLimit limit = RateLimit.builder(Long.parseLong(a[3]), Duration.ofMillis(Long.parseLong(a[4])))
                        .algorithm(RateLimit.Algorithm.valueOf(a[2])).burst(Long.parseLong(a[5])).build();
                Duration duration = Duration.ofSeconds(Long.parseLong(a[6]));
                Recorder all = new Recorder();
                for (Recorder r : hammer(baton, a[1], limit, threads, duration)) {
                    all.add(r);
                }
                System.out.println("RESULT " + all.admitted + " " + all.decisions + " " + all.refusals + " "
                        + all.unknown + " " + all.admissions.encode() + " " + all.refused.encode());
            }
        }
    }

    /**
     * Half the threads share one limiter object, as a service would; the other half make a new one for every call,
     * so that every one of their decisions is the script's (a shared object repeats a known refusal itself).
     */
    private static List<Recorder> hammer(Baton baton, String name, RateLimit limit, int threads, Duration duration)
            throws InterruptedException {
        RateLimiter shared = baton.rateLimiter(name, limit);
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            boolean own = i % 2 == 1;
            Recorder recorder = new Recorder();
            recorders.add(recorder);
            Thread t = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    RateLimiter limiter = own ? baton.rateLimiter(name, limit) : shared;
                    long sent = wallMicros();
                    boolean allowed;
                    try {
                        allowed = limiter.tryAcquire().allowed();
                    } catch (BatonUnavailableException e) {
                        // No answer within the command timeout, or the connection is down. Redis may still run a
                        // request it was sent, so it counts as a possible admission from now on. The thread stops:
                        // each such request makes the judgement more lenient for the rest of the run, and a lost
                        // connection would otherwise add one per turn of this loop.
                        recorder.unknown(sent);
                        System.err.println("worker thread stops after " + e);
                        break;
                    }
                    long received = wallMicros();
                    if (allowed) {
                        recorder.admitted(sent, received);
                    } else {
                        recorder.refused(sent, received);
                    }
                }
                recorder.endBucket();
            });
            t.start();
            workers.add(t);
        }
        for (Thread t : workers) {
            t.join();
        }
        return recorders;
    }

    /** What one thread saw (not thread-safe; read after the thread has ended). */
    private static final class Recorder {
        final Intervals admissions = new Intervals();
        final Intervals refused = new Intervals();
        long admitted;
        long decisions;
        long refusals;
        long unknown;
        private long bucket = -1;
        private long bestSent;
        private long bestReceived;

        void admitted(long sent, long received) {
            admissions.add(sent, received);
            admitted++;
            decisions++;
        }

        void unknown(long sent) {
            admissions.add(sent, Intervals.OPEN);
            unknown++;
        }

        /** Keeps the narrowest refusal of each millisecond (by sent time). */
        void refused(long sent, long received) {
            refusals++;
            decisions++;
            long ms = sent / 1000;
            if (ms != bucket) {
                endBucket();
                bucket = ms;
                bestSent = sent;
                bestReceived = received;
            } else if (received - sent < bestReceived - bestSent) {
                bestSent = sent;
                bestReceived = received;
            }
        }

        void endBucket() {
            if (bucket >= 0) {
                refused.add(bestSent, bestReceived);
                bucket = -1;
            }
        }

        void add(Recorder other) {
            admissions.addAll(other.admissions);
            refused.addAll(other.refused);
            admitted += other.admitted;
            decisions += other.decisions;
            refusals += other.refusals;
            unknown += other.unknown;
        }
    }
}
