package dev.baton.internal.lock;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.ReplicaAcknowledgement;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.engine.Replies;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.ScriptCall;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The driver of the reentrant, non-fair lock (the plain mutex): its scripts as typed calls, the one place that builds
 * their {@code KEYS} and {@code ARGV} and reads their replies, so that the engine, the watchdog and the attempts never
 * assemble arguments or cast replies. Each method names its script; the meaning of every argument and reply is in the script's header.
 *
 * <p>Bounded waits: a waiter that has waited longer than the fairness threshold ({@code BatonConfig.fairnessThreshold})
 * claims precedence with each try from then on (the acquire script's {@code ARGV[7]}, its wait so far), so that the
 * lock goes to it (or to an older claimant) next; before that point, it never sleeps past the threshold
 * ({@link #sleepLimitNanos}). The claim lasts {@link #claimMillis} unless renewed by the claimant's next try, which the
 * acquire script makes come within a third of that. A release that passes the lock to a claimant says so with the
 * message {@code "next <owner>"}, which only that owner's attempt takes ({@link #grantIn}); a claimant's grant
 * publishes {@code "unclaimed"} if others wait, a plain reason to try, so that the next longest waiter claims during
 * that hold. A waiter that gave up after the threshold withdraws its claim ({@link #abandon}). See
 * {@code docs/lock-protocol.md}, "Bounded waits under contention".
 */
public final class LockCalls implements LockDriver, LockView {
    public static final Script ACQUIRE = Script.list("lock-acquire", "owns", "reenter", "mint-token", "notify");
    public static final Script RELEASE = Script.integer("lock-release", "owns", "notify", "claim");
    public static final Script HANDOFF = Script.integer("lock-handoff", "owns", "mint-token", "notify", "claim");
    /** Sent whole, in order: see {@link Script#inOrder()} (every kind's abandon is). */
    public static final Script ABANDON = Script.list("lock-abandon", "notify").inOrder();
    public static final Script RENEW = Script.list("lock-renew", "owns");
    public static final Script KEEP = Script.integer("lock-keep", "owns");
    public static final Script FORCE_UNLOCK = Script.integer("lock-force-unlock", "notify");
    public static final Script INSPECT = Script.list("lock-inspect");

    /** Prefix of the release message that passes the lock to one claimant: {@code "next <owner>"}. */
    static final String NEXT = "next ";
    /** The longest a claim lives without its claimant's renewal: 3 s, or 3 re-check intervals if those are shorter. */
    static long claimMillis(Duration recheckInterval) {
        return 3 * Math.min(recheckInterval.toMillis(), 1_000);
    }

    private final Transport gateway;
    private final String tokenRetentionMillis;
    /** "1" where releases are announced with SPUBLISH (a Cluster of Redis 7+: see lib/notify.lua), else "0". */
    private final String sharded;
    private final Ticker ticker;
    /** How long a waiter waits before it claims precedence, in nanoseconds; 0: never (precedence is off). */
    private final long thresholdNanos;
    private final String claimMillis;
    /** The text of the last lease sent ({@link #leaseText}). */
    private volatile Lease lastLease;

    /**
     * @param fairnessThreshold how long a waiter waits before it claims precedence; zero turns claims off
     * @param recheckInterval   the engine's re-check interval, which sets how long a claim lives
     */
    public LockCalls(Transport gateway, Duration tokenRetention, Ticker ticker, Duration fairnessThreshold,
              Duration recheckInterval) {
        this.gateway = gateway;
        this.tokenRetentionMillis = Long.toString(tokenRetention.toMillis());
        this.sharded = gateway.shardedPubSub() ? "1" : "0";
        this.ticker = ticker;
        this.thresholdNanos = fairnessThreshold.toNanos();
        this.claimMillis = Long.toString(claimMillis(recheckInterval));
    }


    /** Exclusive, with unordered waiters: local handoff and local queueing are allowed. */
    @Override
    public boolean localQueueing() {
        return true;
    }

    @Override
    public LockType type() {
        return LockType.LOCK;
    }

    /** {@code lock-acquire.lua}: acquire or re-enter; marks the lock as waited for if the caller will wait. */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        return gateway.<List<Long>>run(ACQUIRE, acquireKeys(r), acquireArgs(r, willWait))
                .thenApply(LockCalls::acquired);
    }

    /**
     * The reply of {@code lock-acquire.lua} followed by {@code WAIT}.
     *
     * @param acquired     the script's reply
     * @param acknowledged how many replicas {@code WAIT} counted
     * @param waitFailure  why {@code WAIT} did not answer, or null if it did
     */
    public record AcknowledgedAcquire(Acquired acquired, long acknowledged, RuntimeException waitFailure) {
    }

    /**
     * {@code lock-acquire.lua} followed by {@code WAIT} on a connection for acknowledged writes, so that the count
     * covers this acquisition (see {@code AcknowledgedWrites}).
     */
    public CompletableFuture<AcknowledgedAcquire> acquireAcknowledged(AcquireRequest r, boolean willWait,
                                                               ReplicaAcknowledgement ack) {
        try {
            return gateway.<List<Long>>runAcknowledged(ACQUIRE, acquireKeys(r),
                    acquireArgs(r, willWait), ack.replicas(), ack.timeout())
                    .thenApply(reply -> new AcknowledgedAcquire(acquired(reply.scriptReply()),
                            reply.acknowledged(), reply.waitFailure()));
        } catch (RuntimeException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    private static String[] acquireKeys(AcquireRequest r) {
        return new String[] {r.keys().lock(), r.keys().counter()};
    }

    /** Six arguments, as before claims existed, unless the caller has waited past the threshold and claims. */
    private String[] acquireArgs(AcquireRequest r, boolean willWait) {
        long waited = willWait ? waitedNanos(r) : 0;
        String heldToken = r.heldToken() == 0 ? "0" : Long.toString(r.heldToken());
        if (thresholdNanos == 0 || !willWait || waited - thresholdNanos < 0) {
            return new String[] {r.owner(), leaseText(r.leaseMillis()), r.holder(), tokenRetentionMillis,
                    heldToken, willWait ? "1" : "0"};
        }
        return new String[] {r.owner(), leaseText(r.leaseMillis()), r.holder(), tokenRetentionMillis,
                heldToken, "1", Long.toString(TimeUnit.NANOSECONDS.toMillis(waited)), claimMillis,
                r.keys().channel(), sharded};
    }

    /** A lease in milliseconds, as sent: nearly every acquisition asks for the same (the watchdog lease). */
    private String leaseText(long millis) {
        Lease last = lastLease;
        if (last == null || last.millis != millis) {
            last = new Lease(millis, Long.toString(millis));
            lastLease = last; // racy on purpose: any thread's latest is as good as another's
        }
        return last.text;
    }

    /** A lease and its decimal text, replaced whole so that a reader never sees one without the other. */
    private record Lease(long millis, String text) {
    }

    private long waitedNanos(AcquireRequest r) {
        return ticker.nanos() - r.startedNanos();
    }

    private static Acquired acquired(List<Long> reply) {
        return reply.get(0) == 1L ? new Acquired(true, reply.get(1), reply.get(2).intValue(), 0)
                : new Acquired(false, 0, 0, reply.get(1));
    }

    /**
     * A waiter that has not reached the threshold yet sleeps at most until it does (plus a millisecond, so that its
     * try is past it), whether it tried already or is queued behind a local holder: its claim is made on time rather
     * than up to a re-check interval late. Past the threshold, the acquire script's pttl keeps the claim renewed.
     */
    @Override
    public long sleepLimitNanos(AcquireRequest r) {
        if (thresholdNanos == 0) {
            return Long.MAX_VALUE;
        }
        long untilThreshold = thresholdNanos - waitedNanos(r);
        return untilThreshold > 0 ? untilThreshold + TimeUnit.MILLISECONDS.toNanos(1) : Long.MAX_VALUE;
    }

    /**
     * {@code lock-release.lua}: releases one hold count.
     *
     * @param publish whether to notify even if no waiter marked the lock (the releasing Baton has local waiters)
     * @return the hold count left (0: released), or -1 if this hold was no longer in Redis
     */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(releaseCall(keys, owner, token, publish, sharded));
    }

    /**
     * {@code lock-release.lua} as sent by a single Redis and by each master of a Redlock.
     *
     * @param sharded "1" to announce with {@code SPUBLISH}, else "0"
     * @param message what to publish instead of the plain "released" (a Redlock names the token), or none
     */
    public static ScriptCall releaseCall(LockKeys keys, String owner, long token, boolean publish, String sharded,
                                         String... message) {
        String[] args = {owner, Long.toString(token), keys.channel(), publish ? "1" : "0", sharded};
        if (message.length > 0) {
            args = new String[] {args[0], args[1], args[2], args[3], args[4], message[0]};
        }
        return new ScriptCall(RELEASE, new String[] {keys.lock()}, args);
    }

    /**
     * {@code lock-handoff.lua}: passes the lock from its current single hold straight to another owner, unless a
     * waiter of any Baton claimed it (then it is released to that claimant instead).
     *
     * @return the new owner's fencing token, 0 if the lock was released to a claimant, or -1 if the current owner no
     *         longer held it exactly once
     */
    @Override
    public CompletableFuture<Long> handoff(Hold from, AcquireRequest to) {
        return gateway.run(HANDOFF, new String[] {from.keys.lock(), from.keys.counter()}, from.owner,
                Long.toString(from.token),
                to.owner(), Long.toString(to.leaseMillis()), to.holder(), tokenRetentionMillis,
                from.keys.channel(), sharded);
    }

    /**
     * A release message {@code "next <owner>"} is for that owner's attempt alone (the lock waits for it); every other
     * message is a reason to try.
     */
    @Override
    public long grantIn(String message, AcquireRequest request) {
        if (!message.startsWith(NEXT)) {
            return 0;
        }
        String owner = request.owner();
        return message.length() == NEXT.length() + owner.length() && message.endsWith(owner) ? 0 : -1;
    }

    /**
     * {@code lock-abandon.lua}: withdraws the claim of a waiter that gave up, so that a free lock does not wait for it
     * until the claim runs out, and reports an orphaned grant when a try got no reply. Only a waiter that waited past
     * the threshold can have claimed: unless a grant may be orphaned, the others send nothing.
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest r, boolean mayHoldGrant) {
        if (!mayHoldGrant && (thresholdNanos == 0 || waitedNanos(r) - thresholdNanos < 0)) {
            return CompletableFuture.completedFuture(0L);
        }
        try {
            return gateway.<List<Long>>run(ABANDON, new String[] {r.keys().lock()}, r.owner(),
                    r.keys().channel(), sharded, Long.toString(r.heldToken())).thenApply(Replies::orphanIn);
        } catch (RuntimeException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    /**
     * {@code lock-renew.lua}: extends every hold of the batch whose owner and token still match.
     *
     * @return for each hold, in order, whether it was renewed
     */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        return gateway.<List<Long>>run(renewCall(batch, leaseMillis))
                .thenApply(Replies::renewed);
    }

    /**
     * {@code lock-renew.lua} for a batch of holds: each hold's lock as a key, the lease, then each hold's owner and
     * token (the Redlock sends the same to every master).
     */
    public static ScriptCall renewCall(List<Hold> batch, long leaseMillis) {
        return new ScriptCall(RENEW, renewKeys(batch), renewArgs(batch, leaseMillis));
    }

    private static String[] renewKeys(List<Hold> batch) {
        String[] keys = new String[batch.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = batch.get(i).keys.lock();
        }
        return keys;
    }

    private static String[] renewArgs(List<Hold> batch, long leaseMillis) {
        String[] args = new String[2 * batch.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < batch.size(); i++) {
            Hold h = batch.get(i);
            args[2 * i + 1] = h.owner;
            args[2 * i + 2] = Long.toString(h.token);
        }
        return args;
    }

    /** {@code lock-keep.lua}: sets the hold's lock to expire {@code millis} from now, if owner and token match. */
    @Override
    public CompletableFuture<Boolean> keep(Hold hold, long millis) {
        return gateway.<Long>run(keepCall(hold.keys, hold.owner, hold.token, millis)).thenApply(set -> set == 1L);
    }

    /** {@code lock-keep.lua}: the hold of {@code owner} with {@code token} expires {@code millis} from now. */
    public static ScriptCall keepCall(LockKeys keys, String owner, long token, long millis) {
        return new ScriptCall(KEEP, new String[] {keys.lock()}, Long.toString(millis), owner, Long.toString(token));
    }

    /** {@code lock-force-unlock.lua}: deletes the lock whoever holds it; true if it existed. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return gateway.<Long>run(forceUnlockCall(keys, sharded)).thenApply(deleted -> deleted == 1L);
    }

    /** {@code lock-force-unlock.lua}: deletes the lock, announcing it ("1" to use {@code SPUBLISH}). */
    public static ScriptCall forceUnlockCall(LockKeys keys, String sharded) {
        return new ScriptCall(FORCE_UNLOCK, new String[] {keys.lock()}, keys.channel(), sharded);
    }

    /**
     * Whether the lock hash exists: held, or (for one notification's time, or until the claim runs out if its claimant
     * died) free but reserved for a waiter's claim, when nobody else can take it either.
     */
    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return gateway.exists(keys.lock());
    }

    /** {@code lock-inspect.lua}: who holds the lock, how often, for how much longer, and the last token. */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return gateway.<List<Object>>run(inspectCall(keys)).thenApply(r -> lockInfo(keys, r));
    }

    /** {@code lock-inspect.lua}: the holder, its count, token, description and remaining lease, the last token. */
    public static ScriptCall inspectCall(LockKeys keys) {
        return new ScriptCall(INSPECT, new String[] {keys.lock(), keys.counter()});
    }

    /** Reads a reply of {@code lock-inspect.lua}, which also serves the Redlock on each of its masters. */
    public static LockInfo lockInfo(LockKeys keys, List<Object> r) {
        long lastToken = r.get(5) == null ? 0 : Long.parseLong((String) r.get(5));
        if (r.get(0) == null) {
            return new LockInfo(keys.name(), Optional.empty(), lastToken);
        }
        String owner = (String) r.get(0);
        Identity.Described holder = Identity.describedBy((String) r.get(3));
        return new LockInfo(keys.name(), Optional.of(new LockInfo.Holder(holder.instance(), holder.host(),
                holder.pid(), holder.thread(), Identity.isLeaseOwner(owner), Integer.parseInt((String) r.get(1)),
                Duration.ofMillis(Math.max(0, (Long) r.get(4))), Long.parseLong((String) r.get(2)))),
                lastToken);
    }
}
