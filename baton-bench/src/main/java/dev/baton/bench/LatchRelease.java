package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedCountDownLatch;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Count-down latch release (issue 23): time from the last {@code countDown()} to the release of every waiter, Baton's
 * {@link DistributedCountDownLatch} against Redisson's {@code RCountDownLatch}, side by side on one redis-server that
 * the test kit starts.
 *
 * <p>Each round and side: a counting client sets a fresh latch to 1; {@code --waiters} threads (8) call
 * {@code await} on it, spread over {@code --clients} client instances of that side (8: one each, as waiters in
 * separate processes would be); once every waiter has entered {@code await} and {@code --settle-ms} (200) has passed,
 * so that their subscriptions are in place, the counting client stamps the time and calls {@code countDown()}. Each
 * waiter's release time is the moment its {@code await} returns minus that stamp (one JVM, one monotonic clock); a
 * round's "all released" is its slowest waiter. The sides alternate round by round, who goes first rotating, after
 * {@code --warmup} rounds (20) that are not counted. Also per side: Redis commands per round from
 * {@code INFO commandstats} (set, awaits, count-down and whatever the waiters send while waiting), and an idle PING
 * round trip as the yardstick.
 *
 * <p>Run: {@code java -cp baton-bench/target/benchmarks.jar dev.baton.bench.LatchRelease [--rounds 200]
 * [--warmup 20] [--waiters 8] [--clients 8] [--settle-ms 200] [--sides baton,redisson]}; prints a Markdown table.
 */
final class LatchRelease {
    static final String BATON = "baton";
    static final String REDISSON = "redisson";
    static final List<String> SIDES = List.of(BATON, REDISSON);
    /** How long a waiter waits at most: far beyond any release, so that a lost release shows as a failure. */
    private static final Duration AWAIT_BOUND = Duration.ofSeconds(30);
    private static final java.util.logging.Logger LETTUCE_LOG = java.util.logging.Logger.getLogger("io.lettuce");

    private LatchRelease() {
    }

    /**
     * What to run.
     *
     * @param rounds  measured rounds per side
     * @param warmup  rounds per side run first and not counted
     * @param waiters waiting threads per round
     * @param clients client instances the waiters are spread over, per side
     * @param settle  pause between the last waiter entering {@code await} and the count-down
     * @param sides   which of {@link #SIDES} to run
     */
    record Plan(int rounds, int warmup, int waiters, int clients, Duration settle, List<String> sides) {
        Plan {
            if (rounds < 1 || warmup < 0 || waiters < 1 || clients < 1 || clients > waiters || settle.isNegative()
                    || sides.isEmpty() || !SIDES.containsAll(sides)) {
                throw new IllegalArgumentException("invalid plan: " + this);
            }
        }
    }

    /** One side's latches: a counting client and the waiters' clients. */
    interface Side extends AutoCloseable {
        /** Sets the latch {@code name} to 1 from the counting client; false if it was set already. */
        boolean set(String name);

        /** The last count-down, from the counting client. */
        void countDown(String name);

        /** Waits on the latch {@code name} through client {@code client}; true if released. */
        boolean await(int client, String name, Duration wait) throws InterruptedException;

        @Override
        void close();
    }

    /** One side's figures over the measured rounds. */
    static final class Figures {
        final String side;
        final long[] releases;
        int releaseCount;
        final long[] slowest;
        int rounds;
        int failures;
        String firstFailure;
        CommandStats commands = CommandStats.empty();

        Figures(String side, Plan plan) {
            this.side = side;
            this.releases = new long[plan.rounds() * plan.waiters()];
            this.slowest = new long[plan.rounds()];
        }

        Percentiles perWaiter() {
            return new Percentiles(releases, releaseCount);
        }

        Percentiles allReleased() {
            return new Percentiles(slowest, rounds);
        }
    }

    /** A run's figures by side, with the idle PING round trips taken before it. */
    record Result(Map<String, Figures> sides, long[] ping) {
    }

    public static void main(String[] args) throws Exception {
        LETTUCE_LOG.setLevel(java.util.logging.Level.SEVERE);
        Map<String, String> options = ClusterScale.options(args);
        Plan plan = new Plan(Integer.parseInt(options.getOrDefault("rounds", "200")),
                Integer.parseInt(options.getOrDefault("warmup", "20")),
                Integer.parseInt(options.getOrDefault("waiters", "8")),
                Integer.parseInt(options.getOrDefault("clients", "8")),
                Duration.ofMillis(Long.parseLong(options.getOrDefault("settle-ms", "200"))),
                List.of(options.getOrDefault("sides", String.join(",", SIDES)).split(",")));
        String loadBefore = ClusterScale.load();
        try (RedisServer server = RedisServer.start()) {
            System.out.printf(Locale.ROOT, "%s; redis-server %s (%s); %s; load %s%n",
                    Instant.now().truncatedTo(ChronoUnit.SECONDS), BenchMain.infoField(server.command("INFO",
                            "server"), "redis_version"), server.binary().path(), plan, loadBefore);
            Result result = run(server, plan);
            System.out.println();
            System.out.println(markdown(result, plan, "java -cp baton-bench/target/benchmarks.jar "
                    + LatchRelease.class.getName() + (args.length == 0 ? "" : " " + String.join(" ", args)),
                    loadBefore, ClusterScale.load()));
        }
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    /** Runs {@code plan} on {@code server}, both sides interleaved round by round. */
    static Result run(RedisServer server, Plan plan) throws InterruptedException {
        long[] ping = PingProbe.measure(server.uri(), Duration.ofMillis(300), Duration.ofSeconds(1));
        RedisAdmin admin = RedisAdmin.over(server);
        Map<String, Figures> figures = new LinkedHashMap<>();
        Map<String, Side> sides = new LinkedHashMap<>();
        ExecutorService waiters = Executors.newFixedThreadPool(plan.waiters());
        try {
            for (String side : plan.sides()) {
                figures.put(side, new Figures(side, plan));
                sides.put(side, open(side, server.uri(), plan.clients()));
            }
            for (int r = 0; r < plan.warmup() + plan.rounds(); r++) {
                boolean measured = r >= plan.warmup();
                for (int k = 0; k < plan.sides().size(); k++) {
                    String side = plan.sides().get((r + k) % plan.sides().size());
                    round(sides.get(side), "latch-bench:" + side + ":" + r, plan, waiters,
                            measured ? figures.get(side) : null, admin);
                }
            }
        } finally {
            waiters.shutdownNow();
            sides.values().forEach(Side::close);
        }
        return new Result(figures, ping);
    }

    /** One round of one side; its figures go to {@code into} unless it is a warm-up round ({@code into} null). */
    private static void round(Side side, String name, Plan plan, ExecutorService pool, Figures into,
                              RedisAdmin admin) throws InterruptedException {
        CommandStats before = admin.commandStats();
        if (!side.set(name)) {
            throw new IllegalStateException(name + " was set already: names are fresh per round");
        }
        CountDownLatch entered = new CountDownLatch(plan.waiters());
        CountDownLatch done = new CountDownLatch(plan.waiters());
        long[] returned = new long[plan.waiters()];
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> failure = new AtomicReference<>();
        for (int i = 0; i < plan.waiters(); i++) {
            int waiter = i;
            pool.execute(() -> {
                try {
                    entered.countDown();
                    boolean released = side.await(waiter % plan.clients(), name, AWAIT_BOUND);
                    returned[waiter] = System.nanoTime();
                    if (!released) {
                        failed.incrementAndGet();
                        failure.compareAndSet(null, "await timed out");
                    }
                } catch (Exception | Error e) {
                    failed.incrementAndGet();
                    failure.compareAndSet(null, String.valueOf(e));
                } finally {
                    done.countDown();
                }
            });
        }
        entered.await();
        Thread.sleep(plan.settle().toMillis()); // lets the waiters subscribe: pacing, not a wait for a condition
        long sent = System.nanoTime();
        side.countDown(name);
        if (!done.await(AWAIT_BOUND.toSeconds() + 10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + ": waiters still waiting after the bound");
        }
        if (into == null) {
            return;
        }
        into.commands = into.commands.plus(delta(before, admin.commandStats()));
        long slowest = 0;
        for (int i = 0; i < plan.waiters(); i++) {
            long release = returned[i] - sent;
            if (release < 0) {
                failed.incrementAndGet();
                failure.compareAndSet(null, "a waiter returned before the count-down was sent");
                continue;
            }
            into.releases[into.releaseCount++] = release;
            slowest = Math.max(slowest, release);
        }
        into.slowest[into.rounds++] = slowest;
        into.failures += failed.get();
        if (into.firstFailure == null) {
            into.firstFailure = failure.get();
        }
    }

    private static CommandStats delta(CommandStats before, CommandStats after) {
        Map<String, Long> calls = new LinkedHashMap<>(after.calls());
        before.calls().forEach((k, v) -> calls.merge(k, -v, Long::sum));
        calls.values().removeIf(v -> v == 0);
        return CommandStats.of(calls);
    }

    static Side open(String side, String uri, int clients) {
        return switch (side) {
            case BATON -> new BatonSide(uri, clients);
            case REDISSON -> new RedissonSide(uri, clients);
            default -> throw new IllegalArgumentException("unknown side " + side);
        };
    }

    /** The Markdown table of a run, with its settings and the command that made it. */
    static String markdown(Result result, Plan plan, String command, String loadBefore, String loadAfter) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Latch release: %d rounds per side after %d warm-up rounds, %d waiters"
                        + " over %d clients per side, %d ms settle; idle PING p50 %.3f ms; load average %s (start)"
                        + " to %s (end)%n`%s`%n%n", plan.rounds(), plan.warmup(), plan.waiters(), plan.clients(),
                plan.settle().toMillis(), new Percentiles(result.ping(), result.ping().length).micros(50) / 1000,
                loadBefore, loadAfter, command));
        out.append("| Contender | rounds | release per waiter p50 | p99 | all released p50 | p99 | max"
                + " | Redis cmds/round | failures |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Figures f : result.sides().values()) {
            Percentiles each = f.perWaiter();
            Percentiles all = f.allReleased();
            out.append(String.format(Locale.ROOT, "| %s | %d | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f ms"
                            + " | %.1f | %d |%n", f.side, f.rounds, each.micros(50) / 1000, each.micros(99) / 1000,
                    all.micros(50) / 1000, all.micros(99) / 1000, all.micros(100) / 1000,
                    f.commands.perOp(f.rounds), f.failures));
        }
        for (Figures f : result.sides().values()) {
            out.append(String.format(Locale.ROOT, "%n%s, commands per round: %s", f.side,
                    f.commands.breakdown(f.rounds)));
            if (f.firstFailure != null) {
                out.append("; first failure: ").append(f.firstFailure);
            }
        }
        return out.append('\n').toString();
    }

    /** Baton: one {@code Baton} per client, and one more that counts. */
    private static final class BatonSide implements Side {
        private final Baton counting;
        private final List<Baton> clients = new ArrayList<>();

        BatonSide(String uri, int clients) {
            BatonConfig config = BatonConfig.builder().uri(uri).build();
            this.counting = Baton.connect(config);
            for (int i = 0; i < clients; i++) {
                this.clients.add(Baton.connect(config));
            }
        }

        @Override
        public boolean set(String name) {
            return counting.countDownLatch(name).trySetCount(1);
        }

        @Override
        public void countDown(String name) {
            counting.countDownLatch(name).countDown();
        }

        @Override
        public boolean await(int client, String name, Duration wait) throws InterruptedException {
            return clients.get(client).countDownLatch(name).await(wait);
        }

        @Override
        public void close() {
            clients.forEach(Baton::close);
            counting.close();
        }
    }

    /** Redisson: one {@code RedissonClient} per client, default settings, and one more that counts. */
    private static final class RedissonSide implements Side {
        private final RedissonClient counting;
        private final List<RedissonClient> clients = new ArrayList<>();

        RedissonSide(String uri, int clients) {
            this.counting = Redisson.create(RedisTarget.standalone(uri).redisson());
            for (int i = 0; i < clients; i++) {
                this.clients.add(Redisson.create(RedisTarget.standalone(uri).redisson()));
            }
        }

        @Override
        public boolean set(String name) {
            return counting.getCountDownLatch(name).trySetCount(1);
        }

        @Override
        public void countDown(String name) {
            counting.getCountDownLatch(name).countDown();
        }

        @Override
        public boolean await(int client, String name, Duration wait) throws InterruptedException {
            return clients.get(client).getCountDownLatch(name).await(wait.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            clients.forEach(RedissonClient::shutdown);
            counting.shutdown();
        }
    }
}
