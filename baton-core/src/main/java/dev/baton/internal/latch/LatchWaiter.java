package dev.baton.internal.latch;

import dev.baton.internal.engine.ReleaseNotifications;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One thread waiting in {@code DistributedCountDownLatch.await}, as {@link ReleaseNotifications} sees it: every
 * message on the latch's channel wakes it, and it reads the count again. It never takes a lock from a holder, so it
 * claims nothing and never counts as asleep on a held lock.
 *
 * <p>Wake-ups are counted rather than flagged, so a message that comes between the waiter's read of the count and its
 * sleep is not lost: the waiter sleeps only while the count is still the one it saw before the read.
 */
final class LatchWaiter implements ReleaseNotifications.Waiter {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private long wakeUps;               // guarded by lock
    private RuntimeException closed;    // guarded by lock

    /** How many wake-ups came so far: taken before reading the count, and given to {@link #sleep}. */
    long wakeUps() {
        lock.lock();
        try {
            return wakeUps;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps until a wake-up after {@code seen}, the Baton closing, or {@code nanos} passed.
     *
     * @throws InterruptedException  if the thread is interrupted
     * @throws IllegalStateException if the Baton was closed
     */
    void sleep(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (wakeUps == seen && closed == null && left > 0) {
                left = woken.awaitNanos(left);
            }
            if (closed != null) {
                throw closed;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean wake(String message) {
        lock.lock();
        try {
            wakeUps++;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
        return true;
    }

    @Override
    public boolean claim() {
        return false;
    }

    @Override
    public boolean sleepsOnHeldLock() {
        return false;
    }

    @Override
    public void closed(RuntimeException reason) {
        lock.lock();
        try {
            closed = reason;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
