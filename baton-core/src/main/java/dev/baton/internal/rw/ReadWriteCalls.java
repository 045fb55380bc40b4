package dev.baton.internal.rw;

import dev.baton.LockInfo;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.InspectCall;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.engine.Replies;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the two drivers of a read-write lock share: its keys, and the scripts that serve both sides with a side
 * argument (renewal, inspection, administrative unlock). Each side is a {@link LockDriver} of its own
 * ({@link ReadLockCalls}, {@link WriteLockCalls}), so the engine keeps a thread's read hold and write hold of one lock
 * apart, and the watchdog renews each side with its own call. The protocol is in {@code rw-*.lua} and
 * {@code lua/lib/rw-state.lua}, and explained in docs/read-write-lock.md.
 *
 * <p>Keys of the read-write lock {@code N}, all under one hash tag: {@code <ns>:rw:{N}} (hash of holds; the engine's
 * {@link LockKeys#lock()}), {@code <ns>:rw:{N}:readers} (reader leases), {@code <ns>:rw:{N}:writers} (waiting
 * writers' intents), {@code <ns>:rw:{N}:token} (the one fencing counter of both sides) and the channel
 * {@code <ns>:rw:{N}:released}.
 */
public abstract sealed class ReadWriteCalls implements LockDriver, LockView permits ReadLockCalls, WriteLockCalls {
    static final Script RENEW = Script.list("rw-renew", "owns", "notify", "rw-state");
    static final Script KEEP = Script.integer("rw-keep", "owns", "notify", "rw-state");
    static final Script INSPECT = Script.list("rw-inspect", "notify", "rw-state");
    static final Script FORCE_UNLOCK = Script.integer("rw-force-unlock", "notify", "rw-state");

    /** The reply of the write side's acquire script to a read-to-write upgrade. */
    static final long UPGRADE_REFUSED = -1;

    final Transport gateway;
    final String tokenRetentionMillis;
    /** "1" where releases are announced with SPUBLISH (a Cluster of Redis 7+: see lib/notify.lua), else "0". */
    final String sharded;

    ReadWriteCalls(Transport gateway, Duration tokenRetention) {
        this.gateway = gateway;
        this.tokenRetentionMillis = Long.toString(tokenRetention.toMillis());
        this.sharded = gateway.shardedPubSub() ? "1" : "0";
    }

    /** The keys of the read-write lock {@code name}; both sides use the same. */
    public static LockKeys keys(String namespace, String name) {
        String tag = HashTag.of(namespace, "rw", name);
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }

    /** Sorted set: reader owner by the end of its lease. */
    public static String readers(LockKeys keys) {
        return keys.lock() + ":readers";
    }

    /** Sorted set: waiting writer by the end of its intent. */
    public static String writers(LockKeys keys) {
        return keys.lock() + ":writers";
    }

    /** "r" or "w": the side argument of the shared scripts. */
    abstract String side();

    /** Shared holds (readers) and a writer whose waiting holds readers back: no local shortcut may skip Redis. */
    @Override
    public boolean localQueueing() {
        return false;
    }

    /** The reply {1, token, holdCount} or {0, pttl} of both acquire scripts. */
    static Acquired acquired(List<Long> reply) {
        return reply.get(0) == 1L ? new Acquired(true, reply.get(1), reply.get(2).intValue(), 0)
                : new Acquired(false, 0, 0, reply.get(1));
    }

    /**
     * {@code rw-renew.lua}: extends every hold of the batch (all of this side, one hash slot) whose owner and token
     * still match and whose lease has not run out.
     */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        String[] keys = new String[2 * batch.size()];
        String[] args = new String[2 * batch.size() + 2];
        args[0] = Long.toString(leaseMillis);
        args[1] = side();
        for (int i = 0; i < batch.size(); i++) {
            Hold h = batch.get(i);
            keys[2 * i] = h.keys.lock();
            keys[2 * i + 1] = readers(h.keys);
            args[2 * i + 2] = h.owner;
            args[2 * i + 3] = Long.toString(h.token);
        }
        return gateway.<List<Long>>run(RENEW, keys, args).thenApply(Replies::renewed);
    }

    /** {@code rw-keep.lua}: sets this side's hold to run out {@code millis} from now, if owner and token match. */
    @Override
    public CompletableFuture<Boolean> keep(Hold hold, long millis) {
        return gateway.<Long>run(KEEP, new String[] {hold.keys.lock(), readers(hold.keys)}, Long.toString(millis),
                side(), hold.owner,
                Long.toString(hold.token)).thenApply(set -> set == 1L);
    }

    /** {@code rw-force-unlock.lua}: removes this side's holds (the writer, or every reader); true if there were any. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return gateway.<Long>run(FORCE_UNLOCK, new String[] {keys.lock(), readers(keys), writers(keys)}, side(),
                keys.channel(), sharded)
                .thenApply(removed -> removed == 1L);
    }

    /**
     * {@code rw-inspect.lua}: whether this side is held: a writer for the write side, at least one reader for the
     * read side.
     */
    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return gateway.<List<Object>>run(INSPECT, new String[] {keys.lock(), readers(keys), keys.counter()}, side())
                .thenApply(r -> (Long) r.get(6) > 0);
    }

    /**
     * {@code name-inspect.lua} on this read-write lock: the whole lock, whichever side asks (the writer and every
     * reader, each with its side, and the waiting writers), so that neither side looks free while the other holds
     * it; see {@code DistributedReadWriteLock}.
     */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return InspectCall.read(gateway, keys.name(), type(),
                new String[] {keys.lock(), readers(keys), writers(keys), keys.counter()}, "R").thenApply(i -> i.get(0));
    }
}
