package dev.baton.internal.lock;

import dev.baton.internal.runtime.Identity;
import dev.baton.internal.transport.Transport;
import dev.baton.internal.transport.Script;

import dev.baton.LockInfo;
import dev.baton.ReplicaAcknowledgement;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The driver of the reentrant, non-fair lock (the plain mutex): its scripts as typed calls, the one place that builds
 * their {@code KEYS} and {@code ARGV} and reads their replies, so that the engine, the watchdog and the attempts never
 * assemble arguments or cast replies. Each method names its script; the meaning of every argument and reply is in the script's header.
 */
final class LockCalls implements LockDriver {
    static final Script ACQUIRE = Script.load("lock-acquire", "owns", "mint-token");
    static final Script RELEASE = Script.load("lock-release", "owns", "notify");
    static final Script HANDOFF = Script.load("lock-handoff", "owns", "mint-token");
    static final Script RENEW = Script.load("lock-renew", "owns");
    static final Script FORCE_UNLOCK = Script.load("lock-force-unlock", "notify");
    static final Script INSPECT = Script.load("lock-inspect");

    private final Transport gateway;
    private final String tokenRetentionMillis;
    /** "1" where releases are announced with SPUBLISH (a Cluster of Redis 7+: see lib/notify.lua), else "0". */
    private final String sharded;

    LockCalls(Transport gateway, Duration tokenRetention) {
        this.gateway = gateway;
        this.tokenRetentionMillis = Long.toString(tokenRetention.toMillis());
        this.sharded = gateway.shardedPubSub() ? "1" : "0";
    }


    /** Exclusive, with unordered waiters: local handoff and local queueing are allowed. */
    @Override
    public boolean localQueueing() {
        return true;
    }

    /** {@code lock-acquire.lua}: acquire or re-enter; marks the lock as waited for if the caller will wait. */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        return gateway.<List<Long>>run(ACQUIRE, ScriptOutputType.MULTI, acquireKeys(r), acquireArgs(r, willWait))
                .thenApply(LockCalls::acquired);
    }

    /**
     * The reply of {@code lock-acquire.lua} followed by {@code WAIT}.
     *
     * @param acquired     the script's reply
     * @param acknowledged how many replicas {@code WAIT} counted
     * @param waitFailure  why {@code WAIT} did not answer, or null if it did
     */
    record AcknowledgedAcquire(Acquired acquired, long acknowledged, RuntimeException waitFailure) {
    }

    /**
     * {@code lock-acquire.lua} followed by {@code WAIT} on a connection for acknowledged writes, so that the count
     * covers this acquisition (see {@code AcknowledgedWrites}).
     */
    CompletableFuture<AcknowledgedAcquire> acquireAcknowledged(AcquireRequest r, boolean willWait,
                                                               ReplicaAcknowledgement ack) {
        try {
            return gateway.<List<Long>>runAcknowledged(ACQUIRE, ScriptOutputType.MULTI, acquireKeys(r),
                    acquireArgs(r, willWait), ack.replicas(), ack.timeout())
                    .thenApply(reply -> new AcknowledgedAcquire(acquired(reply.scriptReply()), reply.acknowledged(),
                            reply.waitFailure()));
        } catch (RuntimeException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    private static String[] acquireKeys(AcquireRequest r) {
        return new String[] {r.keys().lock(), r.keys().counter()};
    }

    private String[] acquireArgs(AcquireRequest r, boolean willWait) {
        return new String[] {r.owner(), Long.toString(r.leaseMillis()), r.holder(), tokenRetentionMillis,
                Long.toString(r.heldToken()), willWait ? "1" : "0"};
    }

    private static Acquired acquired(List<Long> reply) {
        return reply.get(0) == 1L ? new Acquired(true, reply.get(1), reply.get(2).intValue(), 0)
                : new Acquired(false, 0, 0, reply.get(1));
    }

    /**
     * {@code lock-release.lua}: releases one hold count.
     *
     * @param publish whether to notify even if no waiter marked the lock (the releasing Baton has local waiters)
     * @return the hold count left (0: released), or -1 if this hold was no longer in Redis
     */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(RELEASE, ScriptOutputType.INTEGER, new String[] {keys.lock()}, owner,
                Long.toString(token), keys.channel(), publish ? "1" : "0", sharded);
    }

    /**
     * {@code lock-handoff.lua}: passes the lock from its current single hold straight to another owner.
     *
     * @return the new owner's fencing token, or -1 if the current owner no longer held it exactly once
     */
    @Override
    public CompletableFuture<Long> handoff(Hold from, AcquireRequest to) {
        return gateway.run(HANDOFF, ScriptOutputType.INTEGER,
                new String[] {from.keys.lock(), from.keys.counter()}, from.owner, Long.toString(from.token),
                to.owner(), Long.toString(to.leaseMillis()), to.holder(), tokenRetentionMillis);
    }

    /**
     * {@code lock-renew.lua}: extends every hold of the batch whose owner and token still match.
     *
     * @return for each hold, in order, whether it was renewed
     */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        String[] keys = new String[batch.size()];
        String[] args = new String[2 * batch.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < keys.length; i++) {
            Hold h = batch.get(i);
            keys[i] = h.keys.lock();
            args[2 * i + 1] = h.owner;
            args[2 * i + 2] = Long.toString(h.token);
        }
        return gateway.<List<Long>>run(RENEW, ScriptOutputType.MULTI, keys, args).thenApply(reply -> {
            boolean[] renewed = new boolean[reply.size()];
            for (int i = 0; i < renewed.length; i++) {
                renewed[i] = reply.get(i) == 1L;
            }
            return renewed;
        });
    }

    /** {@code lock-force-unlock.lua}: deletes the lock whoever holds it; true if it existed. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return gateway.<Long>run(FORCE_UNLOCK, ScriptOutputType.INTEGER, new String[] {keys.lock()},
                keys.channel(), sharded).thenApply(deleted -> deleted == 1L);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return gateway.exists(keys.lock());
    }

    /** {@code lock-inspect.lua}: who holds the lock, how often, for how much longer, and the last token. */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return gateway.<List<Object>>run(INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.counter()}).thenApply(r -> {
                    long lastToken = r.get(5) == null ? 0 : Long.parseLong((String) r.get(5));
                    if (r.get(0) == null) {
                        return new LockInfo(keys.name(), Optional.empty(), lastToken);
                    }
                    String owner = (String) r.get(0);
                    // "instance pid host thread-name", as Identity.holderOfCallingThread() wrote it
                    String[] holder = ((String) r.get(3)).split(" ", 4);
                    return new LockInfo(keys.name(), Optional.of(new LockInfo.Holder(holder[0], holder[2],
                            Long.parseLong(holder[1]), holder.length > 3 ? holder[3] : "",
                            Identity.isLeaseOwner(owner), Integer.parseInt((String) r.get(1)),
                            Duration.ofMillis(Math.max(0, (Long) r.get(4))), Long.parseLong((String) r.get(2)))),
                            lastToken);
                });
    }
}
