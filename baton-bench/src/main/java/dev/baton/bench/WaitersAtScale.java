package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Lease;
import dev.baton.test.RedisServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Many waiters at once: {@code --waiters} (10,000) waiters on one lock, and the same number spread over
 * {@code --waiters / 10} locks (10 each), while another client holds every lock. Each waiter waits through
 * {@code acquireAsync} (no thread while it waits) or on its own virtual thread ({@code lock()}, JDK 21+), and the
 * same with Redisson's {@code RLock} ({@code lockAsync(threadId)} with an id per waiter, {@code lock()} on a virtual
 * thread). Per run, on a standalone server the test kit starts:
 * <ul>
 *   <li>memory per waiter: heap in use after a full GC with all waiters waiting, minus before they started, over
 *       the number of waiters (a virtual thread's stack is on the heap, so it is counted);</li>
 *   <li>Redis commands per second while they wait, from {@code INFO commandstats} over a quiet span;</li>
 *   <li>time from a release to the next holder's acquisition of the same lock (every waiter releases at once
 *       when it has the lock, so the locks drain one holder after another): p50 and p99, and the whole drain.</li>
 * </ul>
 *
 * <p>Run: {@code java -cp baton-bench/target/benchmarks.jar dev.baton.bench.WaitersAtScale [--waiters 10000]
 * [--quiet 10] [--recheck SECONDS] [--contenders baton-async,baton-virtual,redisson-async,redisson-virtual]}
 * ({@code --recheck}: Baton's {@code recheckInterval}, default Baton's own), on JDK 21 or later for
 * the virtual-thread contenders (they are left out, and said so, on an older JDK). Prints a Markdown table.
 */
final class WaitersAtScale {
    private static final Duration WAIT = Duration.ofMinutes(30);
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** How long the drain may take before the run is reported as not drained (with the waiters served by then). */
    private static final Duration DRAIN_BOUND = Duration.ofMinutes(3);
    private static final java.util.logging.Logger LETTUCE_LOG = java.util.logging.Logger.getLogger("io.lettuce");

    private WaitersAtScale() {
    }

    /** One contender's way of holding every lock elsewhere and of starting one waiter. */
    interface Contender extends AutoCloseable {
        /** Takes every lock from a second client, so that all waiters have to wait. */
        void holdAll(List<String> names) throws Exception;

        /** Releases what {@link #holdAll} took; each release goes through {@code released} just before it. */
        void releaseAll(Map<String, AtomicLong> releasedAt) throws Exception;

        /**
         * Starts a waiter on {@code name} that, once it holds the lock, calls {@code acquired} with the name, then
         * stamps {@code releasedAt} and releases.
         */
        void startWaiter(String name, Map<String, AtomicLong> releasedAt, Acquired acquired) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** Told once per waiter: at its acquisition, before it releases, or when its wait failed. */
    interface Acquired {
        void on(String name);

        /** The waiter's wait ended in an exception (Redisson's subscription timeouts, for one). */
        void failed(Throwable cause);
    }

    record Row(String contender, int locks, int waiters, double bytesPerWaiter, double commandsPerSecond,
            String breakdown, Percentiles handoff, double drainSeconds, int served, int failed, String failure) {
    }

    public static void main(String[] args) throws Exception {
        LETTUCE_LOG.setLevel(java.util.logging.Level.SEVERE);
        Map<String, String> options = ClusterScale.options(args);
        int waiters = Integer.parseInt(options.getOrDefault("waiters", "10000"));
        Duration quiet = Duration.ofSeconds(Long.parseLong(options.getOrDefault("quiet", "10")));
        List<String> contenders = List.of(options.getOrDefault("contenders",
                "baton-async,baton-virtual,redisson-async,redisson-virtual").split(","));
        if (options.containsKey("recheck")) {
            recheck = Duration.ofSeconds(Long.parseLong(options.get("recheck")));
        }
        boolean virtualThreads = Runtime.version().feature() >= 21;
        System.out.printf(Locale.ROOT, "JDK %s, %d waiters, quiet span %d s, Baton's recheck interval %s, load %s%n",
                Runtime.version(), waiters, quiet.toSeconds(), recheck, ClusterScale.load());
        List<Row> rows = new ArrayList<>();
        for (String contender : contenders) {
            if (contender.endsWith("-virtual") && !virtualThreads) {
                System.out.println(contender + ": left out, this JDK has no virtual threads");
                continue;
            }
            for (int locks : new int[] {1, waiters / 10}) {
                try (RedisServer server = RedisServer.start()) {
                    Row row = run(server, contender, locks, waiters, quiet);
                    rows.add(row);
                    System.out.println(describe(row));
                }
            }
        }
        System.out.println();
        System.out.println("| contender | locks | waiters | heap per waiter | Redis commands/s while waiting"
                + " | release to next holder p50 | p99 | drain all |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,.0f B | %,.1f | %.2f ms | %.2f ms | %s |%n",
                    r.contender(), r.locks(), r.waiters(), r.bytesPerWaiter(), r.commandsPerSecond(),
                    r.handoff().micros(50) / 1000, r.handoff().micros(99) / 1000, drain(r));
        }
        System.out.printf(Locale.ROOT, "load after: %s%n", ClusterScale.load());
    }

    private static Row run(RedisServer server, String name, int locks, int waiters, Duration quiet)
            throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            names.add("waiters-" + i);
        }
        try (Contender contender = open(name, server.uri())) {
            contender.holdAll(names);
            Map<String, AtomicLong> releasedAt = new ConcurrentHashMap<>();
            names.forEach(n -> releasedAt.put(n, new AtomicLong()));
            long[] handoffs = new long[waiters];
            AtomicInteger handed = new AtomicInteger();
            CountDownLatch drained = new CountDownLatch(waiters);
            AtomicInteger failed = new AtomicInteger();
            AtomicReference<String> failure = new AtomicReference<>();
            Acquired acquired = new Acquired() {
                @Override
                public void on(String n) {
                    long now = System.nanoTime();
                    handoffs[handed.getAndIncrement()] = now - releasedAt.get(n).get();
                    drained.countDown();
                }

                @Override
                public void failed(Throwable cause) {
                    failed.incrementAndGet();
                    failure.compareAndSet(null, String.valueOf(cause));
                    drained.countDown();
                }
            };
            long before = heapAfterGc();
            for (int i = 0; i < waiters; i++) {
                contender.startWaiter(names.get(i % locks), releasedAt, acquired);
            }
            settle(server);
            long after = heapAfterGc();
            server.command("CONFIG", "RESETSTAT");
            long quietStart = System.nanoTime();
            Thread.sleep(quiet.toMillis()); // the quiet span measured, not a wait for a condition
            CommandStats stats = CommandStats.parse(server.command("INFO", "commandstats"));
            double quietSeconds = (System.nanoTime() - quietStart) / 1e9;
            if (handed.get() != 0) {
                throw new IllegalStateException(name + ": a waiter acquired while every lock was held");
            }
            long drainStart = System.nanoTime();
            contender.releaseAll(releasedAt);
            // A run that does not drain in time is reported with the waiters served by then, not dropped.
            drained.await(DRAIN_BOUND.toSeconds(), TimeUnit.SECONDS);
            double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
            int served = Math.min(waiters, handed.get());
            return new Row(name, locks, waiters, (double) (after - before) / waiters, stats.total() / quietSeconds,
                    stats.breakdown(Math.max(1, Math.round(quietSeconds))), new Percentiles(handoffs, served),
                    drainSeconds, served, failed.get(), failure.get());
        }
    }

    private static String drain(Row r) {
        if (r.served() == r.waiters()) {
            return String.format(Locale.ROOT, "%.1f s", r.drainSeconds());
        }
        return String.format(Locale.ROOT, "%,d of %,d served, %,d failed, in %.0f s", r.served(), r.waiters(),
                r.failed(), r.drainSeconds());
    }

    private static String describe(Row r) {
        return String.format(Locale.ROOT, "%-16s %,5d locks %,6d waiters: %,.0f B/waiter, %,.1f commands/s while "
                + "waiting (per second: %s), handoff p50 %.2f ms p99 %.2f ms, drain %s, load %s", r.contender(),
                r.locks(), r.waiters(), r.bytesPerWaiter(), r.commandsPerSecond(), r.breakdown(),
                r.handoff().micros(50) / 1000, r.handoff().micros(99) / 1000, drain(r), ClusterScale.load())
                + (r.failure() == null ? "" : "; first failure: " + r.failure());
    }

    /**
     * Waits until the waiters' first tries and subscriptions are behind them: at least {@link #SETTLE}, then until
     * the commands Redis runs per second stay within 10% from one second to the next (at most a minute).
     */
    private static void settle(RedisServer server) throws InterruptedException {
        long start = System.nanoTime();
        long last = CommandStats.parse(server.command("INFO", "commandstats")).total();
        long previousRate = -1;
        while (System.nanoTime() - start < Duration.ofMinutes(1).toNanos()) {
            Thread.sleep(1000); // sampling the command rate once a second
            long now = CommandStats.parse(server.command("INFO", "commandstats")).total();
            long rate = now - last;
            last = now;
            boolean steady = previousRate >= 0 && Math.abs(rate - previousRate) <= Math.max(previousRate, 10) / 10;
            if (steady && System.nanoTime() - start >= SETTLE.toNanos()) {
                return;
            }
            previousRate = rate;
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200); // lets reference processing and cleaners run between collections
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Baton's recheck interval: {@code --recheck} seconds, or Baton's default. */
    private static Duration recheck = BatonConfig.builder().uri("redis://localhost").build().recheckInterval();

    static Contender open(String name, String uri) throws ReflectiveOperationException {
        return switch (name) {
            case "baton-async" -> new BatonAsync(uri);
            case "baton-virtual" -> new BatonVirtual(uri);
            case "redisson-async" -> new RedissonAsync(uri);
            case "redisson-virtual" -> new RedissonVirtual(uri);
            default -> throw new IllegalArgumentException("unknown contender " + name);
        };
    }

    /** Lets the last waiters finish their release before the client closes (bounded: a run may not have drained). */
    private static void finish(ExecutorService executor) {
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
    }

    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        // The bench compiles for Java 17: virtual threads are reached by reflection.
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    /** Baton: the holder is a second Baton with leases; waiters belong to the first. */
    private abstract static class BatonContender implements Contender {
        final Baton waiting;
        private final Baton holding;
        private final Map<String, Lease> heldByName = new ConcurrentHashMap<>();

        BatonContender(String uri) {
            BatonConfig config = BatonConfig.builder().uri(uri).commandTimeout(Duration.ofSeconds(10))
                    .recheckInterval(recheck).build();
            this.waiting = Baton.connect(config);
            this.holding = Baton.connect(config);
            // Scripts loaded and the pub/sub connection open before the heap is measured.
            warm(waiting);
        }

        private static void warm(Baton baton) {
            try {
                baton.lock("waiters-warm").acquire(WAIT).release();
                baton.lock("waiters-warm").acquireAsync(WAIT).join().release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void holdAll(List<String> names) throws InterruptedException {
            for (String n : names) {
                heldByName.put(n, holding.lock(n).acquire(WAIT));
            }
        }

        @Override
        public void releaseAll(Map<String, AtomicLong> releasedAt) {
            heldByName.forEach((n, lease) -> {
                releasedAt.get(n).set(System.nanoTime());
                lease.release();
            });
        }

        @Override
        public void close() {
            waiting.close();
            holding.close();
        }
    }

    /** {@code acquireAsync}: no thread per waiter; the release runs on a small pool, as an application's would. */
    private static final class BatonAsync extends BatonContender {
        private final ExecutorService releasers = Executors.newFixedThreadPool(4);

        BatonAsync(String uri) {
            super(uri);
        }

        @Override
        public void startWaiter(String name, Map<String, AtomicLong> releasedAt, Acquired acquired) {
            waiting.lock(name).acquireAsync(WAIT).whenCompleteAsync((lease, e) -> {
                if (e != null) {
                    acquired.failed(e);
                    return;
                }
                acquired.on(name);
                releasedAt.get(name).set(System.nanoTime());
                lease.release();
            }, releasers);
        }

        @Override
        public void close() {
            finish(releasers);
            super.close();
        }
    }

    /**
     * One waiter on a virtual thread, for either library: blocks in the thread-owned {@code lock()}, records when it
     * got the lock and when it released it (the next holder's handoff starts there), and unlocks.
     */
    private static void waitInLock(Lock lock, String name, Map<String, AtomicLong> releasedAt, Acquired acquired) {
        try {
            lock.lock();
        } catch (RuntimeException e) {
            acquired.failed(e);
            return;
        }
        acquired.on(name);
        releasedAt.get(name).set(System.nanoTime());
        lock.unlock();
    }

    /** A virtual thread per waiter, blocking in the thread-owned {@code lock()}. */
    private static final class BatonVirtual extends BatonContender {
        private final ExecutorService virtual;

        BatonVirtual(String uri) throws ReflectiveOperationException {
            super(uri);
            this.virtual = virtualThreadPerTask();
        }

        @Override
        public void startWaiter(String name, Map<String, AtomicLong> releasedAt, Acquired acquired) {
            virtual.execute(() -> waitInLock(waiting.lock(name), name, releasedAt, acquired));
        }

        @Override
        public void close() {
            finish(virtual);
            super.close();
        }
    }

    /** Redisson: the holder is a second client, holding under one made-up thread id. */
    private abstract static class RedissonContender implements Contender {
        private static final long HOLDER = Long.MAX_VALUE - 1;
        final RedissonClient waiting;
        private final RedissonClient holding;
        private final List<String> held = new ArrayList<>();

        RedissonContender(String uri) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.waiting = Redisson.create(config);
            this.holding = Redisson.create(config);
            RLock warm = waiting.getLock("waiters-warm");
            warm.lock();
            warm.unlock();
        }

        @Override
        public void holdAll(List<String> names) {
            for (String n : names) {
                holding.getLock(n).lockAsync(HOLDER).toCompletableFuture().join();
                held.add(n);
            }
        }

        @Override
        public void releaseAll(Map<String, AtomicLong> releasedAt) {
            for (String n : held) {
                releasedAt.get(n).set(System.nanoTime());
                holding.getLock(n).unlockAsync(HOLDER).toCompletableFuture().join();
            }
        }

        @Override
        public void close() {
            waiting.shutdown();
            holding.shutdown();
        }
    }

    /** {@code lockAsync(threadId)} with an id per waiter: Redisson's owner is a thread id, so each gets its own. */
    private static final class RedissonAsync extends RedissonContender {
        private final AtomicLong ids = new AtomicLong(1L << 40);
        private final ExecutorService releasers = Executors.newFixedThreadPool(4);

        RedissonAsync(String uri) {
            super(uri);
        }

        @Override
        public void startWaiter(String name, Map<String, AtomicLong> releasedAt, Acquired acquired) {
            long id = ids.incrementAndGet();
            RLock lock = waiting.getLock(name);
            lock.lockAsync(id).toCompletableFuture().whenCompleteAsync((ignored, e) -> {
                if (e != null) {
                    acquired.failed(e);
                    return;
                }
                acquired.on(name);
                releasedAt.get(name).set(System.nanoTime());
                lock.unlockAsync(id).toCompletableFuture().join();
            }, releasers);
        }

        @Override
        public void close() {
            finish(releasers);
            super.close();
        }
    }

    /** {@code lock()} on a virtual thread: Redisson takes the virtual thread's id as the owner. */
    private static final class RedissonVirtual extends RedissonContender {
        private final ExecutorService virtual;

        RedissonVirtual(String uri) throws ReflectiveOperationException {
            super(uri);
            this.virtual = virtualThreadPerTask();
        }

        @Override
        public void startWaiter(String name, Map<String, AtomicLong> releasedAt, Acquired acquired) {
            virtual.execute(() -> waitInLock(waiting.getLock(name), name, releasedAt, acquired));
        }

        @Override
        public void close() {
            finish(virtual);
            super.close();
        }
    }
}
