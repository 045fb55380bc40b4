package dev.baton.demo;

import dev.baton.Baton;
import dev.baton.BatonConfig;
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
import java.util.stream.Collectors;

/**
 * The Baton demo, main class of {@code baton-demo.jar}: starts a Redis (or uses the one given with {@code --redis}),
 * lets {@link DemoWorker} processes fight over one lock while each increments a shared counter the unsafe way, and
 * checks the outcome with a {@link RunSummary}. See {@link DemoOptions#usage()} for the command line.
 *
 * <p>Whatever happens (failure, timeout, Ctrl-C), the workers are killed and a Redis the demo started is stopped.
 */
public final class Demo {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final long POLL_NANOS = 20_000_000;
    private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(5);
    private static final long DRAIN_NANOS = 2_000_000_000L;

    private final DemoOptions options;
    private final PrintStream out;
    // Written by the main thread, read by the shutdown hook.
    private volatile RedisServer server;
    private volatile WorkerFleet fleet;

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
     * @return 0 if every check passed, 1 if one failed or the run could not be carried out, 2 for a bad command line
     */
    public static int run(String[] args, PrintStream out) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (DemoOptions.UsageException e) {
            out.println("baton-demo: " + e.getMessage());
            out.println();
            out.print(DemoOptions.usage());
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
                + " acquisitions of one lock, each doing an unsafe GET/SET increment of a shared counter");
        Optional<String> uri = redisUri();
        if (uri.isEmpty()) {
            return EXIT_FAILED;
        }
        try {
            // Workers boot (about a second of JVM start and connecting) while the parent connects and clears keys;
            // none of them touches the counter before go.
            fleet = WorkerFleet.start(options.workers(), uri.get(), options.acquisitions());
            out.println("workers:  started pids " + fleet.workers().stream().map(w -> Long.toString(w.pid()))
                    .collect(Collectors.joining(", ")) + "; waiting for them to connect");
            try (FencedCounter resource = FencedCounter.connect(uri.get(), REDIS_TIMEOUT)) {
                resource.clear();
                RunSummary summary = runWorkers(fleet, resource, uri.get(), deadline);
                summary.print(out);
                if (!summary.passed()) {
                    return EXIT_FAILED; // the keys of a failed run stay in place for inspection
                }
                resource.clear();
                return EXIT_OK;
            }
        } catch (RedisException e) {
            out.println("baton-demo: Redis at " + DemoOptions.redacted(uri.get()) + " failed: " + e.getMessage());
            return EXIT_FAILED;
        } catch (IOException e) {
            out.println("baton-demo: cannot run worker processes: " + e);
            return EXIT_FAILED;
        }
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

    private RunSummary runWorkers(WorkerFleet workers, FencedCounter resource, String uri, long deadline)
            throws IOException {
        List<RunSummary.WorkerOutcome> outcomes;
        long elapsed = 0;
        if (!workers.awaitReady(deadline)) {
            out.println("baton-demo: a worker exited, or the timeout passed, before all were connected; giving up");
            outcomes = stopAndCollect(workers);
        } else {
            workers.go();
            long start = System.nanoTime();
            ProgressView progress = new ProgressView(out, out == System.out && ProgressView.stdoutIsTerminal(),
                    options.expectedAcquisitions());
            boolean timedOut = false;
            while (!workers.allFinished()) {
                if (System.nanoTime() - deadline > 0) {
                    timedOut = true;
                    break;
                }
                progress.update(workers.workers(), System.nanoTime() - start);
                LockSupport.parkNanos(POLL_NANOS);
            }
            progress.finish(workers.workers(), System.nanoTime() - start);
            // Up to the last report, not the last exit: closing connections and the JVM is not lock work.
            elapsed = workers.lastReportNanos().orElse(System.nanoTime()) - start;
            if (timedOut) {
                out.println("baton-demo: timed out after " + options.timeout().toSeconds() + " s; killing workers");
            }
            outcomes = stopAndCollect(workers);
        }
        return new RunSummary(options, outcomes, OptionalLong.of(resource.counter()), resource.tokenLog(),
                Duration.ofNanos(elapsed), inspectLock(uri));
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
    private static Optional<LockInfo> inspectLock(String uri) {
        BatonConfig config = BatonConfig.builder().uri(uri).namespace(DemoWorker.NAMESPACE)
                .commandTimeout(REDIS_TIMEOUT).watchdogLease(REDIS_TIMEOUT.multipliedBy(2)).build();
        try (Baton baton = Baton.connect(config)) {
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
            case ENV_PATH -> "from " + RedisBinary.ENV_VAR;
            case PATH -> "found on PATH";
            case EMBEDDED -> "extracted from the embedded-redis jar";
        };
    }

    /** Kills the workers and stops the Redis this demo started. Idempotent; runs from finally and the hook. */
    private synchronized void cleanUp() {
        WorkerFleet workers = fleet;
        if (workers != null) {
            workers.close();
        }
        RedisServer started = server;
        if (started != null) {
            try {
                started.close();
            } catch (RuntimeException e) {
                out.println("baton-demo: could not stop redis-server cleanly: " + e.getMessage());
            }
        }
    }
}
