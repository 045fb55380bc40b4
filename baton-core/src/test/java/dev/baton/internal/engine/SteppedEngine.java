package dev.baton.internal.engine;

import dev.baton.BatonConfig;
import dev.baton.BatonListener;
import dev.baton.BatonUnavailableException;
import dev.baton.internal.primitives.Primitives;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.FakeTicker;
import dev.baton.internal.runtime.ManualScheduler;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A lock engine on a fake transport, a fake ticker and a manual scheduler, with user futures completed on the
 * calling thread: nothing happens unless the test answers a call ({@link #redis}) or moves time
 * ({@link #scheduler}), so every test is a timeline stepped by hand, with no Redis and no sleeping.
 */
public final class SteppedEngine implements AutoCloseable {
    public static final Duration WATCHDOG_LEASE = Duration.ofSeconds(30);
    public static final Duration RECHECK = Duration.ofSeconds(1);
    /** How long a subscription outlives its last waiter: min(recheck, 1 s). */
    public static final Duration LINGER = Duration.ofSeconds(1);

    public final FakeTransport redis = new FakeTransport(Duration.ofSeconds(1));
    final FakeTicker ticker = new FakeTicker();
    final ManualScheduler scheduler = new ManualScheduler(ticker);
    public final BatonRuntime runtime;
    public final LockEngine engine;
    /** The facades on {@link #engine}, as a Baton builds them. */
    public final Primitives primitives;

    public SteppedEngine() {
        this(b -> b);
    }

    public SteppedEngine(UnaryOperator<BatonConfig.Builder> settings) {
        BatonConfig config = settings.apply(BatonConfig.builder().uri("redis://127.0.0.1:1")
                .watchdogLease(WATCHDOG_LEASE).recheckInterval(RECHECK)).build();
        this.runtime = BatonRuntime.assemble(config, redis, ticker, scheduler, Runnable::run);
        this.engine = LockEngine.start(runtime);
        this.primitives = new Primitives(runtime, engine);
    }

    /** The plain lock's driver, as the Baton's plain locks use it. */
    public LockDriver mutex() {
        return primitives.mutex();
    }

    public static SteppedEngine withListener(BatonListener listener) {
        return new SteppedEngine(b -> b.listener(listener));
    }

    /** {@code lock-acquire.lua}'s reply when it grants a fresh acquisition. */
    public static List<Long> granted(long token) {
        return List.of(1L, token, 1L);
    }

    /** {@code lock-acquire.lua}'s reply when someone else holds the lock for {@code pttl} more milliseconds. */
    public static List<Long> held(long pttlMillis) {
        return List.of(0L, pttlMillis);
    }

    public static BatonUnavailableException unreachable() {
        return new BatonUnavailableException("Redis at fake:6379 could not be reached", null);
    }

    public static LockKeys keys(String name) {
        return LockKeys.of("baton", name);
    }

    /** A lease attempt renewed by the watchdog, as {@code acquireAsync} starts it. */
    public AcquireAttempt attempt(String name, Duration wait) {
        return engine.attempt(mutex(), keys(name), engine.identity().newLeaseOwner(), 1, WATCHDOG_LEASE.toMillis(),
                true, wait.toNanos(), false, null);
    }

    /** A lease attempt with a fixed lease (not renewed). */
    public AcquireAttempt attempt(String name, Duration wait, Duration lease) {
        return engine.attempt(mutex(), keys(name), engine.identity().newLeaseOwner(), 1, lease.toMillis(), false,
                wait.toNanos(), false, null);
    }

    /** Moves time on, running the timers that fall due. */
    public void advance(Duration by) {
        scheduler.advance(by);
    }

    @Override
    public void close() {
        engine.close();
        runtime.close();
    }
}
