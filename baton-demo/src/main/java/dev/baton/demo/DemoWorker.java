package dev.baton.demo;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * One worker process of the demo, started by {@link Demo}; not meant to be run by hand.
 *
 * <p>It connects, prints {@code ready}, and runs twice, each time on a {@code go} on stdin (so that all workers start
 * at once). First without the lock, to show what the lock prevents: repeats an unsafe increment of the
 * {@link FencedCounter}, and reports with {@link UnlockedReport}. Then with it: repeats lock, present the fencing
 * token to the counter, increment it the unsafe way, unlock, and reports with {@link WorkerReport}. Both runs tell the
 * resource when they enter and leave the critical section, so that it catches overlaps. Its stdout carries only
 * {@link WorkerMessage} lines. The Redis URI comes from the environment variable
 * {@value #REDIS_URI_ENV} rather than the command line, where {@code ps} would show a password; the acquisition
 * count is the only argument.
 *
 * <p>Exit codes: 0 loop completed, 1 failure (stack trace on stderr), 3 the parent went away (stdin closed).
 */
public final class DemoWorker {

    static final String REDIS_URI_ENV = "BATON_DEMO_REDIS_URI";
    /** Baton namespace of the demo, so its lock keys ({@code baton-demo:lock:...}) never meet a user's. */
    static final String NAMESPACE = "baton-demo";
    static final String LOCK_NAME = "counter";
    static final String GO = "go";
    static final int PROGRESS_EVERY = 10;

    private static final int EXIT_PARENT_GONE = 3;
    // Short, so a worker that dies holding the lock stalls the others for seconds rather than the default 30.
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private static volatile boolean finished;

    private DemoWorker() {
    }

    public static void main(String[] args) {
        Demo.avoidUnsafeWarnings();
        int code;
        try {
            code = run(args);
        } catch (Throwable t) {
            t.printStackTrace();
            code = 1;
        }
        System.out.flush();
        // Explicit exit: Lettuce's non-daemon threads would keep a worker that failed half-way alive.
        System.exit(code);
    }

    private static int run(String[] args) throws IOException {
        String uri = System.getenv(REDIS_URI_ENV);
        if (uri == null || args.length != 1) {
            System.err.println("usage: " + REDIS_URI_ENV + "=redis://host:port java " + DemoWorker.class.getName()
                    + " <acquisitions>");
            return 2;
        }
        int acquisitions = Integer.parseInt(args[0]);
        PrintStream out = System.out;
        BatonConfig config = BatonConfig.builder().uri(uri).namespace(NAMESPACE).watchdogLease(LEASE)
                .commandTimeout(COMMAND_TIMEOUT).build();
        try (Baton baton = Baton.connect(config);
             FencedCounter resource = FencedCounter.connect(uri, COMMAND_TIMEOUT)) {
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            out.println(new WorkerMessage.Ready().toLine());
            Semaphore go = followParent(stdin);
            go.acquireUninterruptibly();
            out.println(unlockedLoop(resource, acquisitions, out).toLine());
            go.acquireUninterruptibly();
            WorkerReport report = loop(baton.lock(LOCK_NAME), resource, acquisitions, out);
            finished = true; // from here on, the parent closing our stdin is no reason to fail
            out.println(report.toLine());
        }
        return 0;
    }

    /**
     * The run without the lock: the same unsafe increment, as often, with nothing to keep the other workers out.
     * Increments that overlap another worker's are lost, and the resource sees the overlaps.
     */
    private static UnlockedReport unlockedLoop(FencedCounter resource, int increments, PrintStream out) {
        int violations = 0;
        for (int done = 1; done <= increments; done++) {
            if (!resource.enter()) {
                violations++;
            }
            try {
                resource.incrementUnsafely();
            } finally {
                resource.leave();
            }
            if (done % PROGRESS_EVERY == 0 || done == increments) {
                out.println(new WorkerMessage.Progress(done, 0).toLine());
            }
        }
        return new UnlockedReport(increments, violations);
    }

    private static WorkerReport loop(DistributedLock lock, FencedCounter resource, int acquisitions,
                                     PrintStream out) {
        long first = 0;
        long last = 0;
        int violations = 0;
        for (int done = 1; done <= acquisitions; done++) {
            lock.lock();
            try {
                long token = lock.fencingToken();
                if (first == 0) {
                    first = token;
                }
                last = token;
                boolean alone = resource.enter();
                try {
                    boolean admitted = resource.admit(token);
                    if (admitted) {
                        resource.incrementUnsafely(); // a stale holder's write is dropped, as it should be
                    }
                    if (!admitted || !alone) {
                        violations++; // refused as stale, or another worker was inside too: counted once
                    }
                } finally {
                    resource.leave();
                }
            } finally {
                lock.unlock();
            }
            if (done % PROGRESS_EVERY == 0 || done == acquisitions) {
                out.println(new WorkerMessage.Progress(done, last).toLine());
            }
        }
        return new WorkerReport(acquisitions, first, last, violations);
    }

    /**
     * Reads the parent's lines on a thread of its own: each {@code go} releases one permit of the returned semaphore
     * (one per run). The parent keeps our stdin open while it lives, so end of input means it died without killing us
     * (e.g. {@code kill -9}): stop at once instead of contending for the lock with nobody watching.
     */
    private static Semaphore followParent(BufferedReader stdin) {
        Semaphore go = new Semaphore(0);
        Thread watcher = new Thread(() -> {
            try {
                for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
                    if (GO.equals(line)) {
                        go.release();
                    }
                }
            } catch (IOException ignored) {
                // treated like end of input
            }
            if (!finished) {
                Runtime.getRuntime().halt(EXIT_PARENT_GONE);
            }
        }, "parent-watcher");
        watcher.setDaemon(true);
        watcher.start();
        return go;
    }
}
