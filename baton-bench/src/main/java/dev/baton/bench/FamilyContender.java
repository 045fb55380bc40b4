package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * One client of the shared Redis as the lock-family benchmarks see it: it hands out a fair lock, a read-write lock
 * and a semaphore by name, so every workload body is written once against {@link Lock}, {@link ReadWriteLock} and
 * {@link Semaphore}.
 *
 * <ul>
 *   <li>{@value Contender#BATON}: one {@link Baton} with default settings: {@link Baton#fairLock(String)},
 *       {@link Baton#readWriteLock(String)}, {@link Baton#semaphore(String, int)} (permits acquired with the default
 *       watchdog lease).</li>
 *   <li>{@value Contender#REDISSON}: one {@link RedissonClient} with default settings: {@code getFairLock},
 *       {@code getReadWriteLock}, {@code getPermitExpirableSemaphore} (set to the permits with
 *       {@code trySetPermits} before use; each permit acquired with {@code acquire(leaseTime, unit)} and a lease of
 *       {@link #SEMAPHORE_LEASE}, since
 *       without one a crashed holder's permit never comes back, which is what the semaphore exists to prevent).</li>
 * </ul>
 *
 * <p>While a Baton primitive is not built yet, asking for it throws {@link UnsupportedOperationException}; the
 * benchmark then reports that contender's rows as not built.
 */
abstract class FamilyContender implements AutoCloseable {
    /** The contenders of the family benchmarks. */
    static final List<String> KINDS = Contender.LOCKS;
    /** Redisson's permit lease; Baton's watchdog lease is 30 s by default too. */
    static final Duration SEMAPHORE_LEASE = Duration.ofSeconds(30);
    /**
     * How long a Baton semaphore acquisition may wait before the benchmark counts it as an error (Redisson's
     * {@code acquire(leaseTime, unit)} waits without a bound; a hang shows as a stuck thread).
     */
    static final Duration SEMAPHORE_WAIT = Duration.ofSeconds(60);

    /** Permits held by one acquisition: whatever releases them. */
    interface Permit {
        void release();
    }

    /** A semaphore as the workload uses it: acquire one permit, waiting as long as it takes. */
    interface Semaphore {
        Permit acquire() throws InterruptedException;
    }

    /** Opens a client of this kind ({@value Contender#BATON} or {@value Contender#REDISSON}). */
    static FamilyContender open(String kind, RedisTarget target) {
        return switch (kind) {
            case Contender.BATON -> new BatonFamily(Baton.connect(target.baton()));
            case Contender.REDISSON -> new RedissonFamily(Redisson.create(target.redisson()));
            default -> throw new IllegalArgumentException("unknown family contender '" + kind + "', expected one of "
                    + KINDS);
        };
    }

    /** The fair lock of this name; no Redis call. */
    abstract Lock fairLock(String name);

    /** The read-write lock of this name; no Redis call. */
    abstract ReadWriteLock readWriteLock(String name);

    /** The semaphore of this name with this many permits (set now if the library needs it set before use). */
    abstract Semaphore semaphore(String name, int permits);

    @Override
    public abstract void close();

    private static final class BatonFamily extends FamilyContender {
        private final Baton baton;

        BatonFamily(Baton baton) {
            this.baton = baton;
        }

        @Override
        Lock fairLock(String name) {
            return baton.fairLock(name);
        }

        @Override
        ReadWriteLock readWriteLock(String name) {
            DistributedReadWriteLock lock = baton.readWriteLock(name);
            return new ReadWriteLock() {
                @Override
                public Lock readLock() {
                    return lock.readLock();
                }

                @Override
                public Lock writeLock() {
                    return lock.writeLock();
                }
            };
        }

        @Override
        Semaphore semaphore(String name, int permits) {
            DistributedSemaphore semaphore = baton.semaphore(name, permits);
            return () -> {
                Lease lease = semaphore.acquire(1, SEMAPHORE_WAIT);
                return lease::release;
            };
        }

        @Override
        public void close() {
            baton.close();
        }
    }

    private static final class RedissonFamily extends FamilyContender {
        private final RedissonClient redisson;

        RedissonFamily(RedissonClient redisson) {
            this.redisson = redisson;
        }

        @Override
        Lock fairLock(String name) {
            return redisson.getFairLock(name);
        }

        @Override
        ReadWriteLock readWriteLock(String name) {
            RReadWriteLock lock = redisson.getReadWriteLock(name);
            return lock;
        }

        @Override
        Semaphore semaphore(String name, int permits) {
            RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(name);
            semaphore.trySetPermits(permits);
            return () -> {
                String id = semaphore.acquire(SEMAPHORE_LEASE.toMillis(), TimeUnit.MILLISECONDS);
                return () -> semaphore.release(id);
            };
        }

        @Override
        public void close() {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
