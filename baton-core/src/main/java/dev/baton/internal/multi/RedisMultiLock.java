package dev.baton.internal.multi;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockInfo;
import dev.baton.internal.engine.AcquiringLock;
import dev.baton.internal.engine.DriverLock;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.lock.LockCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

/**
 * The facade of a multi-lock ({@code Baton.multiLock(names...)}): one {@link DistributedLock} over the plain locks of
 * several names, held all together or not at all. The locks are the very locks of {@code Baton.lock(name)}: a
 * multi-lock on {a, b} excludes a {@code lock("a")} holder, and a thread that holds {@code lock("a")} re-enters it
 * when it takes the multi-lock. Acquisition is a {@link MultiAttempt}; everything after it (renewal, release, loss)
 * is the plain lock's, per name.
 *
 * <ul>
 *   <li><b>Thread-owned:</b> the thread holds the multi-lock when it holds every one of the locks;
 *       {@link #holdCount()} is the least of its hold counts on them, {@link #unlock()} gives back one hold count of
 *       each, in reverse canonical order.</li>
 *   <li><b>Handle-owned:</b> a {@link MultiLease} owns one hold per name.</li>
 *   <li><b>Fencing token:</b> the highest of the locks' tokens. For one set of names it strictly increases from one
 *       acquisition to the next (each lock's own token does, so their maximum does), see docs/multi-lock.md.</li>
 * </ul>
 *
 * <p>Thread-safe; cheap to create (no Redis call).
 */
public final class RedisMultiLock extends AcquiringLock<List<Hold>> {
    /** The plain lock's driver: each name's lock is a plain lock. */
    private final LockCalls mutex;
    private final MultiLockCalls calls;
    private final MultiLockMembers members;
    /** The plain lock of each name, in canonical order, for the thread-owned side. */
    private final List<DriverLock> locks;

    public RedisMultiLock(LockEngine engine, LockCalls mutex, MultiLockCalls calls, MultiLockMembers members) {
        super(engine);
        this.mutex = mutex;
        this.calls = calls;
        this.members = members;
        List<DriverLock> plain = new ArrayList<>(members.size());
        for (LockKeys keys : members.locks()) {
            plain.add(new DriverLock(engine, mutex, keys));
        }
        this.locks = List.copyOf(plain);
    }

    /** The names, as given and without duplicates, joined by commas. */
    @Override
    public String name() {
        return members.name();
    }

    // ---- thread-owned ----

    /**
     * Gives back one hold count of each lock, in reverse canonical order. A lock that cannot be released (it was lost,
     * or Redis failed) does not keep the others from being released; the first such problem is thrown afterwards.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold every lock (then nothing is released),
     *                                      or one of them was lost while held
     */
    @Override
    public void unlock() {
        engine.checkOpen();
        String owner = identity.threadOwner();
        for (LockKeys keys : members.locks()) {
            if (engine.reentrantHold(mutex, keys, owner) == null) {
                throw new IllegalMonitorStateException("multi-lock '" + name() + "' is not held by the current "
                        + "thread (lock '" + keys.name() + "' is not)");
            }
        }
        releaseInReverse(locks.size(), i -> {
            try {
                locks.get(i).unlock();
            } catch (IllegalMonitorStateException lost) {
                throw new IllegalMonitorStateException("multi-lock '" + name() + "': " + lost.getMessage());
            }
        });
    }

    /** Whether the current thread holds every one of the locks. */
    @Override
    public boolean isHeldByCurrentThread() {
        return holdCount() > 0;
    }

    /** The least of the current thread's hold counts on the locks: 0 unless it holds all of them. */
    @Override
    public int holdCount() {
        int least = Integer.MAX_VALUE;
        for (DriverLock lock : locks) {
            least = Math.min(least, lock.holdCount());
        }
        return least;
    }

    /**
     * The highest fencing token of the current thread's holds on the locks.
     *
     * @throws IllegalMonitorStateException if the thread does not hold every lock, or one was lost
     */
    @Override
    public long fencingToken() {
        long max = 0;
        for (DriverLock lock : locks) {
            try {
                max = Math.max(max, lock.fencingToken());
            } catch (IllegalMonitorStateException e) {
                throw new IllegalMonitorStateException("multi-lock '" + name() + "': " + e.getMessage());
            }
        }
        return max;
    }

    @Override
    protected MultiAttempt attempt(String owner, long leaseMillis, boolean watchdogLease, long waitNanos,
                                   boolean reentrant) {
        engine.checkOpen();
        return new MultiAttempt(engine, mutex, calls, members, owner, identity.holderOfCallingThread(), leaseMillis,
                watchdogLease, waitNanos, reentrant).start();
    }

    @Override
    protected Lease lease(List<Hold> holds) {
        return new MultiLease(engine, name(), holds);
    }

    @Override
    protected String describe() {
        return "multi-lock '" + name() + "'";
    }

    // ---- anyone ----

    /** Whether any of the locks is held by anyone right now (so that another owner could not take them all). */
    @Override
    public boolean isLocked() {
        engine.checkOpen();
        List<CompletableFuture<Boolean>> answers = new ArrayList<>(members.size());
        for (LockKeys keys : members.locks()) {
            answers.add(mutex.isLocked(keys));
        }
        return awaitAll(answers).stream().anyMatch(Boolean::booleanValue);
    }

    /**
     * What Redis says about the locks, one read per lock (not one atomic snapshot when they are in several hash
     * slots). The holder is present when any lock is held: if one owner holds them all, its description with the
     * least hold count, the shortest remaining lease and the highest token; otherwise the holder of the first held
     * lock in canonical order. The last fencing token is the highest of the locks' last tokens. Inspect the names one
     * by one ({@code Baton.inspect(name)}) for the details of each.
     */
    @Override
    public LockInfo inspect() {
        engine.checkOpen();
        List<CompletableFuture<LockInfo>> answers = new ArrayList<>(members.size());
        for (LockKeys keys : members.locks()) {
            answers.add(mutex.inspect(keys));
        }
        return combine(name(), awaitAll(answers));
    }

    /** Deletes every one of the locks, whoever holds them (administrative); true if any existed. */
    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        List<CompletableFuture<Boolean>> answers = new ArrayList<>(members.size());
        for (LockKeys keys : members.locks()) {
            answers.add(mutex.forceUnlock(keys));
        }
        return awaitAll(answers).stream().anyMatch(Boolean::booleanValue);
    }

    @Override
    public String toString() {
        return "DistributedLock{multi-lock=" + name() + "}";
    }

    // ---- shared with MultiLease ----

    /**
     * Runs {@code release} for indexes {@code count - 1} down to 0; a release that throws does not stop the others.
     * The first exception is rethrown at the end, with the later ones suppressed; an {@link
     * IllegalMonitorStateException} comes first, since it says what the caller most needs to know (a lock was lost).
     */
    static void releaseInReverse(int count, IntConsumer release) {
        RuntimeException first = null;
        for (int i = count - 1; i >= 0; i--) {
            try {
                release.accept(i);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else if (e instanceof IllegalMonitorStateException
                        && !(first instanceof IllegalMonitorStateException)) {
                    e.addSuppressed(first);
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** See {@link #inspect()}. */
    private static LockInfo combine(String name, List<LockInfo> infos) {
        long lastToken = infos.stream().mapToLong(LockInfo::lastFencingToken).max().orElse(0);
        List<LockInfo.Holder> holders = infos.stream().map(LockInfo::holder).flatMap(Optional::stream).toList();
        if (holders.isEmpty()) {
            return new LockInfo(name, Optional.empty(), lastToken);
        }
        LockInfo.Holder first = holders.get(0);
        boolean oneOwner = holders.size() == infos.size() && holders.stream().allMatch(h ->
                h.batonInstance().equals(first.batonInstance()) && h.pid() == first.pid()
                        && h.host().equals(first.host()) && h.thread().equals(first.thread())
                        && h.leaseOwned() == first.leaseOwned());
        if (!oneOwner) {
            return new LockInfo(name, Optional.of(first), lastToken);
        }
        int holdCount = holders.stream().mapToInt(LockInfo.Holder::holdCount).min().orElseThrow();
        Duration remaining = holders.stream().map(LockInfo.Holder::remainingLease).min(Duration::compareTo)
                .orElseThrow();
        long token = holders.stream().mapToLong(LockInfo.Holder::fencingToken).max().orElseThrow();
        return new LockInfo(name, Optional.of(new LockInfo.Holder(first.batonInstance(), first.host(), first.pid(),
                first.thread(), first.leaseOwned(), holdCount, remaining, token)), lastToken);
    }

    // ---- waiting ----

    private <T> List<T> awaitAll(List<CompletableFuture<T>> answers) {
        engine.gateway().await(CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)));
        List<T> values = new ArrayList<>(answers.size());
        answers.forEach(a -> values.add(a.join()));
        return values;
    }
}
