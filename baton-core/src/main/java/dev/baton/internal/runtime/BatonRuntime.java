package dev.baton.internal.runtime;

import dev.baton.BatonConfig;
import dev.baton.internal.transport.QuorumTransport;
import dev.baton.internal.transport.RedisGateway;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every primitive of one {@code Baton} shares: the connection to Redis (a {@link Transport}), the time
 * ({@link Ticker}) and one {@link Scheduler} for timers, re-checks and renewals, the {@link CallbackExecutor} that
 * completes users' futures, this instance's {@link Identity}, what it knows of an outage ({@link KnownOutage}), and
 * the order in which it all shuts down. The lock engine and the rate limiters each depend on it, never on each other,
 * so a new primitive plugs in here and copies nothing.
 *
 * <p>The engine reads the time only from {@link #ticker()} and waits only through {@link #schedule}: a running Baton
 * pairs {@link Ticker#SYSTEM} with a {@link ThreadScheduler}; unit tests {@linkplain #assemble assemble} a runtime from
 * a fake transport, a fake ticker and a scheduler that the test steps.
 *
 * <p>{@link #close()} first runs the primitives' own closers (registered with {@link #onClose}), which end waits and
 * tell holders, while the connection is still open; then it closes the connection, the scheduler and the callback
 * executor. Thread-safe.
 */
public final class BatonRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BatonRuntime.class);

    private final BatonConfig config;
    private final Identity identity;
    private final Transport gateway;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Executor callbacks;
    private final KnownOutage outage;
    private final Events events;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Runnable> closers = new ArrayList<>();
    private final List<Runnable> earlyClosers = new ArrayList<>();
    /** Set while the early closers run, so that a second close() waits for nothing and repeats nothing. */
    private final AtomicBoolean closing = new AtomicBoolean();

    private BatonRuntime(BatonConfig config, Identity identity, Transport gateway, Ticker ticker, Scheduler scheduler,
                         Executor callbacks) {
        this.config = config;
        this.identity = identity;
        this.gateway = gateway;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.callbacks = callbacks;
        this.outage = new KnownOutage(gateway, this, config.rateLimitTimeout());
        this.events = new Events(config.listener().orElse(null), identity.instanceId());
    }

    /**
     * Connects to Redis and starts the scheduler; the callback threads start when first needed.
     *
     * @param config the settings
     * @return the running runtime; close it when done
     */
    public static BatonRuntime start(BatonConfig config) {
        Identity identity = new Identity();
        // First: if it fails, nothing else was started.
        Transport gateway = config.redlockMasters().isEmpty() ? RedisGateway.connect(config)
                : QuorumTransport.connect(config);
        String threads = "baton-" + identity.instanceId();
        return new BatonRuntime(config, identity, gateway, Ticker.SYSTEM, new ThreadScheduler(threads + "-scheduler"),
                new CallbackExecutor(threads + "-callback"));
    }

    /**
     * A runtime from parts the caller made: in unit tests, a fake transport, a fake ticker and a scheduler driven by
     * it, and usually a direct executor, so that every step of the engine happens when the test says. The scheduler
     * must measure its delays on the ticker. Closing the runtime closes the transport and shuts the scheduler down.
     */
    public static BatonRuntime assemble(BatonConfig config, Transport transport, Ticker ticker, Scheduler scheduler,
                                        Executor callbacks) {
        return new BatonRuntime(config, new Identity(), transport, ticker, scheduler, callbacks);
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

    /** The connection to Redis. */
    public Transport gateway() {
        return gateway;
    }

    /** The time, for everything this Baton measures by itself (waits, deadlines, local lease estimates). */
    public Ticker ticker() {
        return ticker;
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

    /**
     * Registers what a primitive must do first when the runtime closes, while it is still open: for parts that use
     * the Baton to close (a leader resigns, so that the next one is elected at once rather than after its lease).
     * Run in order of registration, before the {@link #onClose} closers.
     */
    public synchronized void beforeClose(Runnable closer) {
        earlyClosers.add(closer);
    }

    /** Registers what a primitive must do when the runtime closes, before the connection goes. */
    public synchronized void onClose(Runnable closer) {
        closers.add(closer);
    }

    /**
     * Runs a task once the {@link #ticker()} has moved on by {@code delayNanos}; returns null once closed (callers
     * then see {@link #isClosed()}).
     */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return scheduler.schedule(task, delayNanos);
    }

    /** Runs a task repeatedly until closed; a failing round is logged and does not end the schedule. */
    public void scheduleRepeating(Runnable task, long periodNanos) {
        scheduler.scheduleRepeating(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // keep the schedule alive: one bad round must not end all future renewals
                log.warn("a scheduled task of this Baton failed; it runs again next round", e);
            }
        }, periodNanos);
    }

    /**
     * Runs code that completes a future users may have attached callbacks to. Never on Lettuce's event loop or the
     * scheduler: a user callback that makes a blocking Baton call there would wait for the very thread it blocks.
     * The policy (bounded threads, never the caller, what happens after close) is {@link CallbackExecutor}'s.
     */
    public void completeForUser(Runnable completion) {
        callbacks.execute(completion);
    }

    /** Pending scheduled tasks, for leak tests. */
    public int scheduledTasks() {
        return scheduler.pendingTasks();
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

    /** Runs the primitives' closers, then closes the connection, the scheduler and the callback pool. Idempotent. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        List<Runnable> early;
        synchronized (this) {
            early = List.copyOf(earlyClosers);
        }
        runAll(early);
        closed.set(true);
        List<Runnable> toRun;
        synchronized (this) {
            toRun = List.copyOf(closers);
        }
        runAll(toRun);
        gateway.close();
        scheduler.shutdown();
        if (callbacks instanceof CallbackExecutor own) {
            own.shutdown(); // an executor passed to assemble() is the caller's
        }
        events.close(); // last: the closers above may have reported holds lost
    }

    private static void runAll(List<Runnable> closers) {
        for (Runnable closer : closers) {
            try {
                closer.run();
            } catch (RuntimeException e) {
                log.warn("closing a part of this Baton failed; closing the rest", e);
            }
        }
    }
}
