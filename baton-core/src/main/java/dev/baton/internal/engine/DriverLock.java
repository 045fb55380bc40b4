package dev.baton.internal.engine;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockInfo;
import java.util.function.BiConsumer;

/**
 * The {@link DistributedLock} of any {@link LockDriver}: turns the calling thread into a re-entrant owner (thread
 * ownership lives here; the engine sees owners), starts the engine's attempts (waited for by {@link AcquiringLock}),
 * releases and reads, and maps outcomes to exceptions. The plain, fair, read and write locks are this facade over
 * their drivers; the protocol of each is in its driver and its {@code .lua} files.
 */
public final class DriverLock extends AcquiringLock<Hold> {
    /** Checks a thread's request before anything is sent; the default allows every request. */
    private static final BiConsumer<LockKeys, String> ANY_OWNER = (keys, owner) -> { };

    /** The kind of lock: plain (maybe replica-acknowledged), fair, the read or the write side of a read-write lock. */
    private final LockDriver driver;
    private final LockView view;
    private final LockKeys keys;
    /** Refuses a thread's request that could never be granted (a read-write lock's upgrade), before any call. */
    private final BiConsumer<LockKeys, String> threadCheck;

    /** A lock whose driver also answers for it to anyone ({@code inspect}, {@code isLocked}, {@code forceUnlock}). */
    public <D extends LockDriver & LockView> DriverLock(LockEngine engine, D driver, LockKeys keys) {
        this(engine, driver, driver, keys, ANY_OWNER);
    }

    /**
     * @param view        answers {@code inspect}, {@code isLocked} and {@code forceUnlock}
     * @param threadCheck called with the lock and the calling thread's owner id before a thread's attempt sends
     *                    anything; throws {@link IllegalMonitorStateException} to refuse it
     */
    public DriverLock(LockEngine engine, LockDriver driver, LockView view, LockKeys keys,
                      BiConsumer<LockKeys, String> threadCheck) {
        super(engine);
        this.driver = driver;
        this.view = view;
        this.keys = keys;
        this.threadCheck = threadCheck;
    }

    @Override
    public String name() {
        return keys.name();
    }

    @Override
    protected Pending<Hold> attempt(String owner, long leaseMillis, boolean watchdogLease, long waitNanos,
                                    boolean reentrant) {
        engine.checkOpen();
        if (reentrant) {
            threadCheck.accept(keys, owner);
        }
        return engine.attempt(driver, keys, owner, 1, leaseMillis, watchdogLease, waitNanos, reentrant,
                reentrant ? Thread.currentThread() : null);
    }

    @Override
    protected Lease lease(Hold hold) {
        return new HoldLease(engine, hold);
    }

    @Override
    protected String describe() {
        return "lock '" + name() + "'";
    }

    // ---- thread-owned ----

    @Override
    public void unlock() {
        engine.checkOpen();
        Hold hold = threadHold();
        if (hold == null) {
            throw notHeld();
        }
        if (hold.state() == Hold.State.LOST) {
            engine.forgetReentrantHold(hold);
            engine.releaseOrphan(driver, keys, hold.owner, hold.token);
            throw lostException(hold);
        }
        int left;
        try {
            left = engine.release(hold);
        } finally {
            if (!hold.isHeld()) {
                engine.forgetReentrantHold(hold);
            }
        }
        if (left < 0) {
            throw lostException(hold);
        }
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return holdCount() > 0;
    }

    @Override
    public int holdCount() {
        Hold hold = threadHold();
        return hold == null || !hold.isHeld() ? 0 : hold.count();
    }

    @Override
    public long fencingToken() {
        Hold hold = threadHold();
        if (hold == null) {
            throw notHeld();
        }
        if (!hold.isHeld()) {
            throw lostException(hold);
        }
        return hold.token;
    }

    private Hold threadHold() {
        return engine.reentrantHold(driver, keys, identity.threadOwner());
    }

    // ---- anyone ----

    @Override
    public boolean isLocked() {
        engine.checkOpen();
        return engine.gateway().await(view.isLocked(keys));
    }

    @Override
    public LockInfo inspect() {
        engine.checkOpen();
        return engine.gateway().await(view.inspect(keys));
    }

    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        return engine.gateway().await(view.forceUnlock(keys));
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name() + "}";
    }

    private IllegalMonitorStateException notHeld() {
        return new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
    }

    private IllegalMonitorStateException lostException(Hold hold) {
        return new IllegalMonitorStateException("lock '" + name() + "' was lost while held: " + hold.lostReason());
    }
}
