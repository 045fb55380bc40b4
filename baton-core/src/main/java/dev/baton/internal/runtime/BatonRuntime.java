package dev.baton.internal.runtime;

import dev.baton.internal.transport.RedisGateway;

import dev.baton.BatonConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every primitive of one {@code Baton} shares: the connection to Redis ({@link RedisGateway}), one scheduler
 * for timers, re-checks and renewals, the pool that completes users' futures, this instance's {@link Identity}, what
 * it knows of an outage ({@link KnownOutage}), and the order in which it all shuts down. The lock engine and the
 * rate limiters each depend on it, never on each other, so a new primitive plugs in here and copies nothing.
 *
 * <p>{@link #close()} first runs the primitives' own closers (registered with {@link #onClose}), which end waits and
 * tell holders, while the connection is still open; then it closes the connection, the scheduler and the pool.
 * Thread-safe.
 */
public final class BatonRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BatonRuntime.class);

    private final BatonConfig config;
    private final Identity identity = new Identity();
    private final RedisGateway gateway;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ExecutorService callbacks;
    private final KnownOutage outage;
    private final Events events;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Runnable> closers = new ArrayList<>();

    private BatonRuntime(BatonConfig config) {
        this.config = config;
        this.gateway = RedisGateway.connect(config);
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "baton-" + identity.instanceId() + "-scheduler");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        // Unbounded on purpose: a user's callback may make a blocking Baton call whose completion needs another
        // callback thread, and a bounded pool could then wait for itself. Threads die after 30 s idle.
        this.callbacks = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, "baton-" + identity.instanceId() + "-callback");
                    t.setDaemon(true);
                    return t;
                });
        this.outage = new KnownOutage(gateway, this, config.rateLimitTimeout());
        this.events = new Events(config.listener().orElse(null), identity.instanceId());
    }

    /**
     * Connects to Redis and starts the scheduler.
     *
     * @param config the settings
     * @return the running runtime; close it when done
     */
    public static BatonRuntime start(BatonConfig config) {
        return new BatonRuntime(config);
    }

    /** The settings this runtime was started with. */
    public BatonConfig config() {
        return config;
    }

    /** Random id of this instance, part of every owner it creates. */
    public String instanceId() {
        return identity.instanceId();
    }

    public Identity identity() {
        return identity;
    }

    public RedisGateway gateway() {
        return gateway;
    }

    public KnownOutage outage() {
        return outage;
    }

    public Events events() {
        return events;
    }

    public Duration rateLimitTimeout() {
        return config.rateLimitTimeout();
    }

    /** Registers what a primitive must do when the runtime closes, before the connection goes. */
    public synchronized void onClose(Runnable closer) {
        closers.add(closer);
    }

    /** Schedules a task; null once closed (callers then see {@link #isClosed()}). */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            return null;
        }
    }

    /** Runs a task repeatedly until closed; a failing round is logged and does not end the schedule. */
    public void scheduleRepeating(Runnable task, long periodNanos) {
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // keep the schedule alive: one bad round must not end all future renewals
                log.warn("a scheduled task of this Baton failed; it runs again next round", e);
            }
        }, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs code that completes a future users may have attached callbacks to. Never on Lettuce's event loop or the
     * scheduler: a user callback that makes a blocking Baton call there would wait for the very thread it blocks.
     */
    public void completeForUser(Runnable completion) {
        try {
            callbacks.execute(completion);
        } catch (RejectedExecutionException closed) {
            completion.run(); // after close() there is no event loop left to block
        }
    }

    /** Pending scheduled tasks, for leak tests. */
    public int scheduledTasks() {
        return scheduler.getQueue().size();
    }

    /**
     * Throws if this runtime is closed.
     *
     * @throws IllegalStateException once closed
     */
    public void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this Baton is closed");
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Runs the primitives' closers, then closes the connection, the scheduler and the pool. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<Runnable> toRun;
        synchronized (this) {
            toRun = List.copyOf(closers);
        }
        for (Runnable closer : toRun) {
            try {
                closer.run();
            } catch (RuntimeException e) {
                log.warn("closing a part of this Baton failed; closing the rest", e);
            }
        }
        gateway.close();
        scheduler.shutdownNow();
        callbacks.shutdown();
        events.close(); // last: the closers above may have reported holds lost
    }
}
