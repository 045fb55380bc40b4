package dev.baton.internal.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the futures Baton gives to users ({@code acquireAsync}, {@code Lease.lost()}, asynchronous rate-limit
 * decisions), whose dependent callbacks are user code, on threads of its own. The policy:
 *
 * <ul>
 *   <li><b>Never on the caller.</b> {@link #execute} never runs the completion on the thread that hands it over: that
 *       thread is usually Lettuce's event loop, which serves every connection of the process (a blocking callback
 *       there would stall them all, and one that makes a blocking Baton call would wait for the very thread it
 *       blocks), or Baton's scheduler, which serves every timer. Nor does it ever block that thread.</li>
 *   <li><b>Bounded threads.</b> At most {@link #RUNNING} completions run at once; the rest are queued, each
 *       thread's hand-overs oldest first.
 *       A callback that waits for a future ({@code join}, {@code get}: what Baton's own blocking calls do too) is
 *       compensated by a spare thread while it waits, so callbacks that wait for other Baton completions cannot
 *       starve the completions they wait for; spares included, there are never more than {@link #MAX_THREADS}.
 *       Idle threads end after 30 s.</li>
 *   <li><b>Why the queue has no bound of its own.</b> Each queued completion belongs to a future the application
 *       asked for and still holds, so the queue never outgrows the application's own outstanding futures. Refusing
 *       one would leave a future that never completes; running it on the caller would put user code on the event
 *       loop; blocking the caller would stall I/O. None of those is better than a queue.</li>
 *   <li><b>After shutdown</b> a completion runs on the caller. Baton shuts this executor down last, after its
 *       connections are closed, so no reply can arrive on an event loop any more and the caller is the closing
 *       application thread (or a straggling timer of a closed Baton).</li>
 * </ul>
 *
 * A completion that throws (a bug: completions only complete futures) is logged and the thread carries on.
 * Thread-safe.
 */
public final class CallbackExecutor implements Executor {
    /** How many completions run at once, not counting those waiting for a future. */
    public static final int RUNNING = Math.max(4, Runtime.getRuntime().availableProcessors());
    /** Every thread this executor may have at once, spares for waiting callbacks included. */
    public static final int MAX_THREADS = 256;

    private static final Logger log = LoggerFactory.getLogger(CallbackExecutor.class);

    private final ForkJoinPool pool;

    /** An executor whose threads are daemons named {@code <threadPrefix>-<n>}; they start when first needed. */
    public CallbackExecutor(String threadPrefix) {
        this(threadPrefix, RUNNING, MAX_THREADS);
    }

    CallbackExecutor(String threadPrefix, int running, int maxThreads) {
        AtomicInteger threads = new AtomicInteger();
        // User callbacks see the class loader of the application thread that built the Baton, not the system one a
        // pool thread gets by default (which, in a fat jar or an application server, cannot see the application).
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ForkJoinPool.ForkJoinWorkerThreadFactory factory = p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName(threadPrefix + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(loader);
            return t;
        };
        // asyncMode: queued completions are taken oldest first. Saturated (every thread in use, spares included), a
        // waiting callback simply waits rather than failing in user code.
        this.pool = new ForkJoinPool(running, factory, null, true, 0, maxThreads, 1, p -> true, 30,
                TimeUnit.SECONDS);
    }

    /** Queues a completion; never runs it on the calling thread unless this executor is shut down. */
    @Override
    public void execute(Runnable completion) {
        try {
            pool.execute(() -> runLogged(completion));
        } catch (RejectedExecutionException shutDown) {
            runLogged(completion);
        }
    }

    /** Threads that exist right now; for tests. */
    int threadCount() {
        return pool.getPoolSize();
    }

    /** Lets queued completions finish; later ones run on their caller. */
    public void shutdown() {
        pool.shutdown();
    }

    private static void runLogged(Runnable completion) {
        try {
            completion.run();
        } catch (RuntimeException | Error e) {
            log.warn("completing a future for the application failed", e);
        }
    }
}
