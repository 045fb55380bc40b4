package dev.baton.demo;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.LockInfo;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisServer;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The Baton demo, main class of {@code baton-demo.jar}: starts a Redis (or uses the one given with {@code --redis}),
 * lets {@link DemoWorker} processes increment a shared counter the unsafe way, first without a lock (an
 * {@link UnlockedSummary} shows the increments lost and the overlaps caught), then each increment under one lock,
 * and checks that outcome with a {@link RunSummary}. See {@link DemoOptions#usage()} for the command line.
 *
 * <p>Before any worker starts, the demo checks through Baton that the Redis answers. Whatever happens afterwards
 * (failure, timeout, Ctrl-C), the workers are killed, a Redis the demo started is stopped, and on a user's Redis
 * every key the demo created (all under {@value FencedCounter#KEY_PREFIX}) is deleted. Only a parent killed outright
 * ({@code kill -9}) cannot clean up: its workers then stop by themselves, but its keys stay.
 */
public final class Demo {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    /** The Redis did not answer, or refused the demo (e.g. its credentials); no worker was started. */
    static final int EXIT_REDIS_UNAVAILABLE = 3;

    private static final long POLL_NANOS = 20_000_000;
    private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(5);
    private static final long DRAIN_NANOS = 2_000_000_000L;

    private final DemoOptions options;
    private final PrintStream out;
    // Written by the main thread, read by the shutdown hook.
    private volatile RedisServer server;
    private volatile WorkerFleet fleet;
    // Guarded by this: once cleaned up (the hook may be first), no worker may be started any more.
    private boolean cleanedUp;
    private boolean leftNothing = true;

    private Demo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        avoidUnsafeWarnings();
        System.exit(run(args, System.out));
    }

    /**
     * From Java 24 on, netty's use of {@code sun.misc.Unsafe} makes the JVM print a four-line deprecation warning at
     * startup. The demo gains nothing from it, so it asks netty to do without (unless the user chose otherwise).
     * Must run before any netty class is loaded.
     */
    static void avoidUnsafeWarnings() {
        if (Runtime.version().feature() >= 24 && System.getProperty("io.netty.noUnsafe") == null) {
            System.setProperty("io.netty.noUnsafe", "true");
        }
    }

    /**
     * Runs the demo and returns its exit code instead of exiting, so that tests can call it in-process.
     *
     * @return {@value #EXIT_OK} if every check passed; {@value #EXIT_FAILED} if one failed, a worker died, the run
     *         could not be carried out, or the demo's keys could not be deleted from the user's Redis;
     *         {@value #EXIT_USAGE} for a bad command line; {@value #EXIT_REDIS_UNAVAILABLE} if the Redis did not
     *         answer or refused the demo, in which case Baton's message (naming host and port, never a password) is
     *         printed and no worker was started
     */
    public static int run(String[] args, PrintStream out) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (DemoOptions.UsageException e) {
            // The one problem and where to read more: the whole usage text would bury the line that matters.
            out.println("baton-demo: " + e.getMessage());
            out.println("run with --help for the options");
            out.flush();
            return EXIT_USAGE;
        }
        if (options.help()) {
            out.print(DemoOptions.usage());
            out.flush();
            return EXIT_OK;
        }
        Demo demo = new Demo(options, out);
        // The hook covers Ctrl-C and System.exit from elsewhere; the finally block covers every normal way out.
        Thread hook = new Thread(demo::cleanUp, "baton-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return demo.execute();
        } finally {
            demo.cleanUp();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down; the hook will run and find nothing left to do
            }
            out.flush();
        }
    }

    private int execute() {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        out.println("Baton demo: " + options.workers() + " worker processes x " + options.acquisitions()
                + " unsafe GET/SET increments of a shared counter, once without a lock and once with each increment"
                + " under one Baton lock");
        Optional<String> uri = redisUri();
        if (uri.isEmpty()) {
            return EXIT_FAILED;
        }
        Optional<Baton> checked = checkedBaton(uri.get());
        if (checked.isEmpty()) {
            return EXIT_REDIS_UNAVAILABLE;
        }
        int code;
        try (Baton baton = checked.get()) {
            code = runAndCheck(uri.get(), baton, deadline);
        }
        // Cleaning up here rather than only in run's finally lets a run whose keys stay behind fail.
        return cleanUp() || code != EXIT_OK ? code : EXIT_FAILED;
    }

    /**
     * Connects Baton to the Redis and asks it about the demo's lock: a script call, so it needs a Redis that
     * answers, accepts the credentials and runs Lua, as the workers will. Reports Baton's message if not: Baton
     * names only host and port, never a password, and a Lettuce stack trace would tell a user less.
     *
     * @return the connected Baton, empty (reported) if the Redis is not usable
     */
    private Optional<Baton> checkedBaton(String uri) {
        Baton baton = null;
        try {
            baton = Baton.connect(BatonConfig.builder().uri(uri).namespace(DemoWorker.NAMESPACE)
                    .commandTimeout(REDIS_TIMEOUT).watchdogLease(REDIS_TIMEOUT.multipliedBy(2)).build());
            baton.inspect(DemoWorker.LOCK_NAME);
            return Optional.of(baton);
        } catch (BatonException e) {
            if (baton != null) {
                baton.close();
            }
            out.println("baton-demo: " + e.getMessage());
            out.println(options.redisUri().isEmpty()
                    ? "The redis-server the demo started does not answer. No worker was started."
                    : aboutCredentials(e)
                    ? "The password goes in the --redis URI: redis://:password@host:port, or "
                            + "redis://user:password@host:port for an ACL user (percent-encode characters such as "
                            + "@ : / #). No worker was started."
                    : "Check the host and port given with --redis. No worker was started.");
            return Optional.empty();
        }
    }

    /**
     * Whether Baton's refusal is about the password: then the one way a command-line user can give it (the URI) is
     * worth spelling out, whatever setting Baton's own message names for programs.
     */
    private static boolean aboutCredentials(BatonException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("requires authentication") || m.contains("refused the credentials")
                || m.contains("did not accept the authentication");
    }

    private int runAndCheck(String uri, Baton baton, long deadline) {
        try {
            // Workers boot (about a second of JVM start and connecting) while the parent connects and clears keys;
            // none of them touches the counter before go.
            if (!startWorkers(uri)) {
                out.println("baton-demo: shutting down; no worker was started");
                return EXIT_FAILED;
            }
            out.println("workers:  started pids " + fleet.workers().stream().map(w -> Long.toString(w.pid()))
                    .collect(Collectors.joining(", ")) + "; waiting for them to connect");
            try (FencedCounter resource = FencedCounter.connect(uri, REDIS_TIMEOUT)) {
                resource.clear();
                if (!fleet.awaitReady(deadline)) {
                    out.println("baton-demo: a worker exited, or the timeout passed, before all were connected; "
                            + "giving up");
                    RunSummary summary = new RunSummary(options, stopAndCollect(fleet),
                            OptionalLong.of(resource.counter()), resource.tokenLog(), Duration.ZERO,
                            inspectLock(baton));
                    summary.print(out);
                    return EXIT_FAILED;
                }
                // First what goes wrong without the lock, then the same work under it: the difference is what the
                // lock buys.
                out.println();
                out.println("run 1 of 2: without the lock, every worker increments at will");
                UnlockedSummary unlocked = runUnlocked(fleet, resource, deadline);
                unlocked.print(out);
                if (!unlocked.completed()) {
                    out.println("baton-demo: the run without the lock did not complete; the run with it was not "
                            + "started");
                    out.println("result:         FAIL");
                    return EXIT_FAILED;
                }
                resource.clear();
                out.println();
                out.println("run 2 of 2: with the lock, each increment is made under one Baton lock");
                RunSummary summary = runLocked(fleet, resource, baton, deadline);
                summary.print(out);
                return summary.passed() ? EXIT_OK : EXIT_FAILED;
            }
        } catch (RedisException e) {
            out.println("baton-demo: Redis at " + DemoOptions.redacted(uri) + " failed: " + e.getMessage());
            return EXIT_FAILED;
        } catch (IOException e) {
            out.println("baton-demo: cannot run worker processes: " + e);
            return EXIT_FAILED;
        }
    }

    /** Starts the fleet unless the cleanup (from the shutdown hook) came first: it would not kill a later fleet. */
    private synchronized boolean startWorkers(String uri) throws IOException {
        if (cleanedUp) {
            return false;
        }
        fleet = WorkerFleet.start(options.workers(), uri, options.acquisitions());
        return true;
    }

    /** The URI to use: the user's, or that of a redis-server started now; empty (reported) if none could start. */
    private Optional<String> redisUri() {
        if (options.redisUri().isPresent()) {
            out.println("redis:    using " + DemoOptions.redacted(options.redisUri().get()));
            return options.redisUri();
        }
        try {
            server = RedisServer.start();
        } catch (RuntimeException e) {
            out.println("baton-demo: cannot start redis-server: " + e.getMessage());
            out.println("Install redis-server, set " + RedisBinary.ENV_VAR + " to its path, or pass --redis URI.");
            return Optional.empty();
        }
        RedisBinary binary = server.binary();
        out.println("redis:    started redis-server " + version(binary) + " (" + describe(binary.source()) + ": "
                + binary.path() + ") at " + server.uri());
        return Optional.of(server.uri());
    }

    /**
     * The run without the lock: releases the workers and follows them until each has reported it. If one dies or the
     * timeout passes first, the others are killed: the run with the lock will not follow.
     */
    private UnlockedSummary runUnlocked(WorkerFleet workers, FencedCounter resource, long deadline)
            throws IOException {
        long start = follow(workers, false, deadline,
                () -> workers.allUnlockedReported() || workers.anyExitedBeforeUnlockedReport());
        long elapsed = workers.lastUnlockedReportNanos().orElse(System.nanoTime()) - start;
        List<UnlockedSummary.Outcome> outcomes;
        if (workers.allUnlockedReported()) {
            outcomes = workers.workers().stream().map(UnlockedSummary.Outcome::of).toList();
        } else {
            workers.awaitExitedDrained(DRAIN_NANOS);
            outcomes = workers.workers().stream().map(UnlockedSummary.Outcome::of).toList();
            workers.close();
        }
        return new UnlockedSummary(options, outcomes, OptionalLong.of(resource.counter()), Duration.ofNanos(elapsed));
    }

    /** The run with the lock: releases the workers again and follows them until they have all exited. */
    private RunSummary runLocked(WorkerFleet workers, FencedCounter resource, Baton baton, long deadline)
            throws IOException {
        long start = follow(workers, true, deadline, workers::allFinished);
        // Up to the last report, not the last exit: closing connections and the JVM is not lock work.
        long elapsed = workers.lastReportNanos().orElse(System.nanoTime()) - start;
        List<RunSummary.WorkerOutcome> outcomes = stopAndCollect(workers);
        return new RunSummary(options, outcomes, OptionalLong.of(resource.counter()), resource.tokenLog(),
                Duration.ofNanos(elapsed), inspectLock(baton));
    }

    /**
     * Releases the workers for one run and shows their progress until {@code done} or the deadline (then says so: the
     * caller kills the workers).
     *
     * @param locked whether the run takes the lock, for the progress line
     * @return when the run began, on {@link System#nanoTime()}
     */
    private long follow(WorkerFleet workers, boolean locked, long deadline, BooleanSupplier done) throws IOException {
        workers.go();
        long start = System.nanoTime();
        ProgressView progress = new ProgressView(out, out == System.out && ProgressView.stdoutIsTerminal(),
                options.expectedAcquisitions(), locked);
        boolean timedOut = false;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                timedOut = true;
                break;
            }
            progress.update(workers.workers(), System.nanoTime() - start);
            LockSupport.parkNanos(POLL_NANOS);
        }
        progress.finish(workers.workers(), System.nanoTime() - start);
        if (timedOut) {
            out.println("baton-demo: timed out after " + options.timeout().toSeconds() + " s; killing workers");
        }
        return start;
    }

    /** Snapshots the workers first, so one killed here is reported as still running rather than as crashed. */
    private static List<RunSummary.WorkerOutcome> stopAndCollect(WorkerFleet workers) {
        workers.awaitExitedDrained(DRAIN_NANOS);
        List<RunSummary.WorkerOutcome> outcomes = workers.workers().stream().map(RunSummary.WorkerOutcome::of)
                .toList();
        workers.close();
        return outcomes;
    }

    /** Asks Baton itself about the lock after the run: it should be free, and its last token the highest seen. */
    private static Optional<LockInfo> inspectLock(Baton baton) {
        try {
            return Optional.of(baton.inspect(DemoWorker.LOCK_NAME));
        } catch (RuntimeException e) {
            return Optional.empty(); // diagnostics only; the checks do not depend on it
        }
    }

    private static String version(RedisBinary binary) {
        try {
            return binary.version();
        } catch (RuntimeException e) {
            return "(version unknown)"; // it is running and answering, which is all the demo needs
        }
    }

    private static String describe(RedisBinary.Source source) {
        return switch (source) {
            case PROPERTY -> "from the system property " + RedisBinary.PROPERTY;
            case ENV_PATH -> "from " + RedisBinary.ENV_VAR;
            case PATH -> "found on PATH";
            case EMBEDDED -> "extracted from the embedded-redis jar";
        };
    }

    /**
     * Kills the workers, deletes the demo's keys from a user's Redis, and stops the Redis this demo started. Runs
     * once, from whichever comes first of the normal way out, run's finally block and the shutdown hook; later
     * calls wait for it and return its result.
     *
     * @return false if keys of the demo may have been left on the user's Redis
     */
    private synchronized boolean cleanUp() {
        if (cleanedUp) {
            return leftNothing;
        }
        cleanedUp = true;
        WorkerFleet workers = fleet;
        if (workers != null) {
            workers.close(); // first: no worker may write once the keys are gone
            leftNothing = deleteKeys();
        }
        RedisServer started = server;
        if (started != null) {
            try {
                started.close();
            } catch (RuntimeException e) {
                out.println("baton-demo: could not stop redis-server cleanly: " + e.getMessage());
            }
        }
        return leftNothing;
    }

    /**
     * Deletes every key of the demo from the user's Redis, a failed or interrupted run's too: the summary has shown
     * what there was to see, and keys left in someone's Redis are litter. A Redis the demo started is stopped
     * with its data instead.
     *
     * @return false if keys may have been left behind
     */
    private boolean deleteKeys() {
        if (options.redisUri().isEmpty()) {
            return true;
        }
        String keys = "keys (" + FencedCounter.KEY_PREFIX + "*) from " + DemoOptions.redacted(options.redisUri().get());
        try (FencedCounter redis = FencedCounter.connect(options.redisUri().get(), REDIS_TIMEOUT)) {
            long deleted = redis.deleteAllDemoKeys();
            out.println("redis:    deleted the demo's " + deleted + " " + keys + "; it left nothing behind");
            return true;
        } catch (RedisException e) {
            out.println("baton-demo: could not delete the demo's " + keys + ": " + e.getMessage()
                    + "; please delete them by hand");
            return false;
        }
    }
}
