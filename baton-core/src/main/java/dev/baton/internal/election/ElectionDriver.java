package dev.baton.internal.election;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.ForwardingLockDriver;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.transport.HashTag;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The driver of an election's lock: the plain lock's protocol, as the topology runs it (its scripts on one Redis, the
 * Redlock's on independent masters), on keys of the election's own ({@code <namespace>:election:{<name>}}), and
 * reported as {@link LockType#ELECTION} in events, {@code heldLocks()} and inspections. An election needs nothing a
 * mutex lacks: one holder, a lease the watchdog renews, a fencing token (the epoch), waiters woken by the release.
 *
 * <p>Forwards every other call; stateless apart from the driver it wraps; thread-safe.
 */
public final class ElectionDriver extends ForwardingLockDriver implements LockView {
    private final LockView mutexView;
    private final long leaseNanos;

    /**
     * @param leaseMillis the leaders' lease (the watchdog's), which bounds how long a candidate sleeps between two
     *                    tries when no notification comes
     */
    public ElectionDriver(LockDriver mutex, LockView mutexView, long leaseMillis) {
        super(mutex);
        this.mutexView = mutexView;
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    }

    /** The keys of the election of this name: its lock hash, epoch counter and release channel. */
    public static LockKeys keys(String namespace, String name) {
        String tag = HashTag.of(namespace, "election", name);
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }

    @Override
    public LockType type() {
        return LockType.ELECTION;
    }

    /**
     * A candidate sleeps until the leader's lease would run out (the reply's pttl, which bounds every sleep), at most a
     * lease, rather than one re-check interval: it waits behind one long leadership, whose end comes either as a
     * message (a resignation) or as the lease running out (a crash), when the candidate wakes anyway. The interval
     * only guards against a lost resignation message, which now costs at most one lease instead of one interval, and
     * an idle election costs each waiting Baton one try per lease rather than one per second.
     */
    @Override
    public long recheckNanos(long configured) {
        return Math.max(delegate.recheckNanos(configured), leaseNanos);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return mutexView.forceUnlock(keys);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return mutexView.isLocked(keys);
    }

    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return mutexView.inspect(keys).thenApply(ElectionDriver::asElection);
    }

    /** The mutex's reading of the election's lock, labelled as an election (its holder is the leader). */
    private static LockInfo asElection(LockInfo info) {
        return LockInfo.of(info.name(), LockType.ELECTION,
                info.allHolders().stream().map(h -> new LockInfo.Holder(h.batonInstance(), h.host(), h.pid(),
                        h.thread(), h.leaseOwned(), h.holdCount(), h.remainingLease(), h.fencingToken(),
                        LockType.ELECTION, h.permits())).toList(),
                info.lastFencingToken(), info.waiting(), info.permits());
    }
}
