package dev.baton.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * One shape of {@link CoreComparison} for Baton of one build, with the harness of the bench's other classes: the
 * uncontended lock and the 8-thread lock as {@link UncontendedCrossCheck} and {@link ConcurrentCrossCheck} run them,
 * the fair lock and the semaphore as {@link FamilyWorkload} does, and the rate limiter over 10,000 limiters as
 * {@link RateLimiterCrossCheck} does. Each build's class loader loads its own copy of this class, over that build's
 * baton-core, so the comparison talks to it through JDK types only: {@link #open} reflectively, then
 * {@link Function#apply} for each timed slice and {@link AutoCloseable#close}.
 */
public final class CoreShape implements Function<Duration, double[]>, AutoCloseable {
    /** Everything {@link CoreComparison} can measure, in the order it measures them. */
    static final List<String> SHAPES = List.of("lock-1", "lock-8", "fair", "semaphore", "rate");
    /** The warm-up of every fair-lock and semaphore round, on its fresh clients, as the lock-family run has it. */
    private static final Duration FAMILY_WARMUP = Duration.ofSeconds(1);

    private final String shape;
    private final String uri;
    private final List<Long> redisPids;
    private final String prefix;
    private AutoCloseable client;
    private ExecutorService threads;
    private Lock[] locks;
    private RateLimiterContender.Limiter[] limiters;
    private RedisAdmin admin;
    private int rounds;

    private CoreShape(String shape, String uri, long redisPid, String prefix) {
        this.shape = shape;
        this.uri = uri;
        this.redisPids = redisPid > 0 ? List.of(redisPid) : List.of();
        this.prefix = prefix;
    }

    /**
     * Opens the shape's client on the server at {@code uri} ({@code redisPid}: its process, whose CPU counts as
     * Redis's), under names beginning with {@code prefix}.
     */
    public static Object open(String shape, String uri, long redisPid, String prefix) {
        CoreShape s = new CoreShape(shape, uri, redisPid, prefix);
        try {
            s.open();
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void open() {
        switch (shape) {
            case "lock-1" -> {
                Contender c = Contender.open(Contender.BATON, uri);
                client = c;
                locks = new Lock[] {c.lock(prefix + ":lock-1")};
            }
            case "lock-8" -> {
                Contender c = Contender.open(Contender.BATON, uri);
                client = c;
                locks = ConcurrentCrossCheck.locks(c, prefix + ":lock-8", ConcurrentCrossCheck.Shape.OWN_LOCK_8);
                threads = Executors.newFixedThreadPool(ConcurrentCrossCheck.Shape.OWN_LOCK_8.threads);
            }
            case "fair", "semaphore" -> admin = RedisAdmin.connect(uri);
            case "rate" -> {
                RateLimiterContender c = RateLimiterContender.open(RateLimiterContender.BATON, uri);
                client = c;
                limiters = new RateLimiterContender.Limiter[RateLimiterManyKeysBenchmark.KEYS];
                for (int i = 0; i < limiters.length; i++) {
                    limiters[i] = c.limiter(prefix + ":rate:" + i, RateLimiterContender.Rate.PER_KEY);
                }
                threads = Executors.newFixedThreadPool(RateLimiterCrossCheck.THREADS);
            }
            default -> throw new IllegalArgumentException("unknown shape " + shape + ", expected one of " + SHAPES);
        }
    }

    /**
     * One slice of {@code duration}: operations per second, then the CPU an operation cost this JVM and the Redis
     * server (µs; NaN where not measured), then the errors the operations threw (the fair lock and the semaphore).
     */
    @Override
    public double[] apply(Duration duration) {
        try {
            return switch (shape) {
                case "lock-1" -> timed(() -> (long) UncontendedCrossCheck.measure(locks[0], duration, new long[0]));
                case "lock-8" -> timed(() -> ConcurrentCrossCheck.slice(threads, ConcurrentCrossCheck.Shape.OWN_LOCK_8,
                        locks, duration));
                case "rate" -> timed(() -> RateLimiterCrossCheck.slice(threads, limiters, duration));
                default -> family(shape.equals("fair") ? FamilyWorkload.FAIR : FamilyWorkload.SEMAPHORE, duration);
            };
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(shape + " failed", e);
        }
    }

    private double[] timed(Callable<Long> work) throws Exception {
        ConcurrentCrossCheck.Measured m = ConcurrentCrossCheck.measure(work, redisPids);
        return new double[] {m.opsPerSecond(), m.clientCpuMicros(), m.redisCpuMicros(), 0};
    }

    /** One round of the workload on fresh clients and a fresh name, as {@link FamilyRun} runs it. */
    private double[] family(FamilyWorkload workload, Duration duration) {
        RedisTarget target = new RedisTarget(RedisTarget.STANDALONE, List.of(uri), null, redisPids);
        FamilyRound round = workload.run(Contender.BATON, target, prefix + ":" + shape + ":" + rounds++,
                FAMILY_WARMUP, duration, admin);
        if (!round.measured()) {
            throw new IllegalStateException(workload.label + " not measured: " + (round.notBuilt != null
                    ? "not built, " + round.notBuilt : "hung threads " + round.stuckThreads));
        }
        return new double[] {round.perSecond(), round.clientCpuMicrosPerOp(), round.redisCpuMicrosPerOp(),
                round.errorCount + round.exclusionViolations};
    }

    @Override
    public void close() {
        if (threads != null) {
            threads.shutdownNow();
        }
        for (AutoCloseable c : new AutoCloseable[] {client, admin}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // best effort: the comparison goes on with the next shape
            }
        }
    }
}
