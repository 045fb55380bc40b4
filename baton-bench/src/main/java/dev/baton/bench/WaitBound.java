package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * How long a plain lock's waiters wait under sustained contention: several clients (each a {@code Baton} or a
 * {@code RedissonClient} of its own, as separate processes would have) hammer one lock with {@code lock()}, a short
 * hold, {@code unlock()}, and every {@code lock()} started in the measured window has its wait recorded (from the call
 * to its return; a wait that ends after the window still counts, so starved waiters are not cut off).
 *
 * <p>The shape is the one that starves waiters of an unfair lock most: one client with {@value #HOG_THREADS} threads
 * (which can pass the lock among themselves) beside {@value #SINGLE_CLIENTS} single-threaded clients. Contenders:
 * Baton with its default fairness threshold (2 s), Baton with a 500 ms threshold, Baton with the threshold off (the
 * lock as it was before bounded waits), and Redisson's {@code RLock}, on one redis-server of its own, in rounds that
 * interleave the contenders. Prints acquisitions per second and the p50, p99 and maximum wait of all waits and of the
 * single-threaded clients' waits, per contender over all rounds, as a Markdown table.
 *
 * <pre>
 * java -cp baton-bench/target/benchmarks.jar dev.baton.bench.WaitBound [ROUNDS [SECONDS [HOLD_MS]]]
 * </pre>
 *
 * Defaults: 2 rounds of 20 s measured (after 3 s of warm-up) per contender, holds of 20 ms: about 3.5 minutes.
 */
public final class WaitBound {
    static final int HOG_THREADS = 4;
    static final int SINGLE_CLIENTS = 3;
    private static final Duration WARMUP = Duration.ofSeconds(3);
    private static final int CAPACITY = 1 << 16;

    /** One kind of client: how to open it and how to get its lock. */
    private interface Client extends AutoCloseable {
        Lock lock(String name);

        @Override
        void close();
    }

    private record Kind(String label, java.util.function.Function<String, Client> open) {
    }

    private WaitBound() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        Duration measure = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 20);
        long holdMillis = args.length > 2 ? Long.parseLong(args[2]) : 20;
        List<Kind> kinds = List.of(
                new Kind("Baton, fairnessThreshold 2 s (default)", uri -> baton(uri, Duration.ofSeconds(2))),
                new Kind("Baton, fairnessThreshold 500 ms", uri -> baton(uri, Duration.ofMillis(500))),
                new Kind("Baton, fairnessThreshold off (before)", uri -> baton(uri, Duration.ZERO)),
                new Kind("Redisson RLock", WaitBound::redisson));
        Map<String, Sample> samples = new LinkedHashMap<>();
        kinds.forEach(k -> samples.put(k.label(), new Sample()));
        try (RedisServer server = RedisServer.start(RedisBinary.locate(), List.of())) {
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < kinds.size(); i++) {
                    Kind kind = kinds.get((i + r) % kinds.size()); // a different contender first in each round
                    Sample round = run(kind, server.uri(), "bench:wait:" + r + ":" + i, measure, holdMillis);
                    System.out.printf(Locale.ROOT, "round %d, %s: %s%n", r + 1, kind.label(), round.summary());
                    samples.get(kind.label()).add(round);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%n%d client with %d threads + %d single-threaded clients, one lock, holds of %d "
                        + "ms, %d x %d s per contender%n%n", 1, HOG_THREADS, SINGLE_CLIENTS, holdMillis, rounds,
                measure.toSeconds());
        System.out.println("| Contender | acquisitions/s | wait p50 | wait p99 | wait max | single-threaded clients: "
                + "p99 | max |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        samples.forEach((label, s) -> System.out.println("| " + label + " | " + s.row() + " |"));
        System.exit(0);
    }

    private static Client baton(String uri, Duration threshold) {
        Baton baton = Baton.connect(BatonConfig.builder().uri(uri).fairnessThreshold(threshold).build());
        return new Client() {
            @Override
            public Lock lock(String name) {
                return baton.lock(name);
            }

            @Override
            public void close() {
                baton.close();
            }
        };
    }

    private static Client redisson(String uri) {
        RedissonClient redisson = Redisson.create(RedisTarget.standalone(uri).redisson());
        return new Client() {
            @Override
            public Lock lock(String name) {
                return redisson.getLock(name);
            }

            @Override
            public void close() {
                redisson.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    /** The waits of one or more rounds of one contender. */
    private static final class Sample {
        final List<long[]> all = new ArrayList<>();
        final List<long[]> singles = new ArrayList<>();
        long acquisitions;
        double seconds;

        void add(Sample other) {
            all.addAll(other.all);
            singles.addAll(other.singles);
            acquisitions += other.acquisitions;
            seconds += other.seconds;
        }

        String summary() {
            Percentiles p = Percentiles.pooled(all);
            Percentiles s = Percentiles.pooled(singles);
            return String.format(Locale.ROOT, "%d waits, p99 %.0f ms, max %.0f ms; single-threaded clients: %d waits, "
                    + "max %.0f ms", p.count(), p.nanos(99) / 1e6, p.nanos(100) / 1e6, s.count(), s.nanos(100) / 1e6);
        }

        String row() {
            Percentiles p = Percentiles.pooled(all);
            Percentiles s = Percentiles.pooled(singles);
            return String.format(Locale.ROOT, "%.1f | %.0f ms | %.0f ms | %,.0f ms | %.0f ms | %,.0f ms",
                    acquisitions / seconds, p.nanos(50) / 1e6, p.nanos(99) / 1e6, p.nanos(100) / 1e6,
                    s.nanos(99) / 1e6, s.nanos(100) / 1e6);
        }
    }

    private static Sample run(Kind kind, String uri, String name, Duration measure, long holdMillis)
            throws InterruptedException {
        List<Client> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<long[]> waits = new ArrayList<>();
        List<Boolean> single = new ArrayList<>();
        try {
            for (int c = 0; c <= SINGLE_CLIENTS; c++) {
                clients.add(kind.open().apply(uri));
            }
            long from = System.nanoTime() + WARMUP.toNanos();
            long end = from + measure.toNanos();
            for (int c = 0; c < clients.size(); c++) {
                int threadsOfClient = c == 0 ? HOG_THREADS : 1;
                for (int t = 0; t < threadsOfClient; t++) {
                    long[] mine = new long[CAPACITY];
                    waits.add(mine);
                    single.add(c > 0);
                    Lock lock = clients.get(c).lock(name);
                    Thread thread = new Thread(() -> contend(lock, from, end, holdMillis, mine), "waiter-" + c + "-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            for (Thread thread : threads) {
                thread.join();
            }
        } finally {
            clients.forEach(Client::close);
        }
        Sample sample = new Sample();
        for (int i = 0; i < waits.size(); i++) {
            long[] w = waits.get(i);
            long[] recorded = Arrays.copyOfRange(w, 1, (int) w[0] + 1);
            sample.all.add(recorded);
            if (single.get(i)) {
                sample.singles.add(recorded);
            }
            sample.acquisitions += recorded.length;
        }
        sample.seconds = measure.toNanos() / 1e9;
        return sample;
    }

    /** waits[0] counts the waits recorded in waits[1..]. */
    private static void contend(Lock lock, long from, long end, long holdMillis, long[] waits) {
        while (System.nanoTime() - end < 0) {
            long asked = System.nanoTime();
            lock.lock();
            try {
                if (asked - from >= 0 && waits[0] < waits.length - 1) {
                    waits[(int) ++waits[0]] = System.nanoTime() - asked;
                }
                Thread.sleep(holdMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
        }
    }
}
