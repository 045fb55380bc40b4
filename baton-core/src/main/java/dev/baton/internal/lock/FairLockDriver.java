package dev.baton.internal.lock;

import dev.baton.BatonConfig;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.InspectCall;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of the fair lock: a queue in Redis, in the order in which waiters' first tries reached it, and a
 * release that hands the lock straight to the first live waiter (docs/fair-lock.md). The one place that builds the
 * {@code KEYS} and {@code ARGV} of the {@code fair-*.lua} scripts and reads their replies.
 *
 * <ul>
 *   <li><b>Order.</b> A try that cannot have the lock and will wait joins the tail of the queue; a free lock goes only
 *       to a caller with no live waiter ahead of it, so nobody overtakes, single tries included. Waiters never queue
 *       locally ({@link #localQueueing()} is false): a local shortcut would let a thread of this process overtake
 *       waiters of others.</li>
 *   <li><b>Handoff.</b> The release script makes the first live waiter the owner, with a fresh fencing token and the
 *       waiter's own lease, and publishes {@code "<owner> <token>"}: one message, which only that waiter takes
 *       ({@link #grantIn}), so its attempt completes without another round trip; nobody else is woken to try.</li>
 *   <li><b>Liveness.</b> A waiter keeps its place by trying again before its entry's deadline:
 *       {@link #entryLifetimeMillis} after its last try, where the lifetime is three re-check intervals plus twice the
 *       command timeout, and every try's reply asks it back within a third of that. A waiter that stops trying (its
 *       process died) is skipped once its entry dies; a wait that ends without the lock removes its entry and passes
 *       on a lock handed to it meanwhile ({@link #abandon}). A waiter that died after its last try and is handed the
 *       lock before its entry dies holds it like a crashed holder: until its lease runs out.</li>
 * </ul>
 *
 * <p>The lock hash has the plain lock's layout ({@code owner}, {@code count}, {@code token}, {@code holder}), so the
 * plain lock's renew call serves fair holds as well. A fair lock is a lock of its own: its keys carry the
 * kind {@code fair} ({@link #keys}), so it never excludes the plain lock of the same name.
 */
public final class FairLockDriver implements LockDriver, LockView {
    private static final Logger log = LoggerFactory.getLogger(FairLockDriver.class);
    static final String[] HELPERS = {"owns", "mint-token", "notify", "fair-queue"};
    static final Script ACQUIRE = Script.list("fair-acquire", "owns", "reenter", "mint-token", "notify", "fair-queue");
    static final Script RELEASE = Script.integer("fair-release", HELPERS);
    static final Script ABANDON = Script.integer("fair-abandon", HELPERS).inOrder();
    static final Script FORCE_UNLOCK = Script.integer("fair-force-unlock", HELPERS);

    private final Transport gateway;
    /** Renew: the lock hash has the plain lock's layout. */
    private final LockDriver plain;
    private final String tokenRetentionMillis;
    private final String entryLifetimeMillis;
    /** "1" where the channel is sharded (a Cluster of Redis 7+: see lib/notify.lua), else "0". */
    private final String sharded;

    /**
     * @param plain the plain lock's driver, whose renew script serves the same hash layout
     */
    public FairLockDriver(Transport gateway, BatonConfig config, LockDriver plain) {
        this.gateway = gateway;
        this.plain = plain;
        this.tokenRetentionMillis = Long.toString(config.fencingTokenRetention().toMillis());
        this.entryLifetimeMillis = Long.toString(entryLifetimeMillis(config));
        this.sharded = gateway.shardedPubSub() ? "1" : "0";
    }

    /**
     * How long a waiter's place in the queue is kept without another try: three re-check intervals plus twice the
     * command timeout. A sleeping waiter tries at least every re-check interval (the acquire script's reply asks it
     * back within a third of this); the longest gap is after its first try, which it follows up only once its
     * subscription to the lock's channel is confirmed: that may take opening the pub/sub connection and a
     * {@code SUBSCRIBE}, each bounded by the command timeout. So a live waiter loses its place (and joins the tail
     * again at its next try) only if it stalls for longer than that. This is also how long a waiter that died (or
     * gave up without being able to say so) can hold up the queue.
     */
    static long entryLifetimeMillis(BatonConfig config) {
        return 3 * config.recheckInterval().toMillis() + 2 * config.commandTimeout().toMillis();
    }

    /** The keys of the fair lock {@code name}: {@code <ns>:fair:{name}}, with its counter, queue and channel. */
    public static LockKeys keys(String namespace, String name) {
        String tag = HashTag.of(namespace, "fair", name);
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }

    public static String queue(LockKeys keys) {
        return keys.lock() + ":queue";
    }

    public static String waiters(LockKeys keys) {
        return keys.lock() + ":waiters";
    }

    private static String[] allKeys(LockKeys keys) {
        return new String[] {keys.lock(), keys.counter(), queue(keys), waiters(keys)};
    }

    /** FIFO across processes: no local handoff, no local queueing. */
    @Override
    public boolean localQueueing() {
        return false;
    }

    @Override
    public LockType type() {
        return LockType.FAIR;
    }

    /**
     * {@code fair-acquire.lua}: acquire, re-enter, claim a handed lock, or join (keep) a place in the queue if the
     * caller will wait.
     */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        return gateway.<List<Long>>run(ACQUIRE, allKeys(r.keys()), r.owner(),
                Long.toString(r.leaseMillis()), r.holder(), tokenRetentionMillis, Long.toString(r.heldToken()),
                willWait ? "1" : "0", entryLifetimeMillis).thenApply(FairLockDriver::acquired);
    }

    private static Acquired acquired(List<Long> reply) {
        return reply.get(0) == 1L ? new Acquired(true, reply.get(1), reply.get(2).intValue(), 0)
                : new Acquired(false, 0, 0, reply.get(1), reply.get(2));
    }

    /**
     * {@code fair-release.lua}: releases one hold count; the last one hands the lock to the first live waiter.
     *
     * @param publish ignored: the release tells the waiter it hands the lock to, and nobody else needs to know
     */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(RELEASE, allKeys(keys), owner, Long.toString(token),
                keys.channel(), sharded, tokenRetentionMillis);
    }

    /**
     * The plain lock's keep script: same hash layout. Once the hold expires, the queue's first live waiter takes the
     * lock at its next try, as after a crashed holder.
     */
    @Override
    public CompletableFuture<Boolean> keep(Hold hold, long millis) {
        return plain.keep(hold, millis);
    }

    /** The plain lock's renew script: same hash layout, same owner and token check. */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        return plain.renew(batch, leaseMillis);
    }

    /**
     * A handoff message, {@code "<owner> <token>"}, is for the waiter of that owner alone: its token, or -1 for every
     * other waiter. Any other message (there are none today) is a reason to try.
     */
    @Override
    public long grantIn(String message, AcquireRequest request) {
        int space = message.lastIndexOf(' ');
        if (space < 0) {
            return 0;
        }
        String owner = request.owner();
        if (space != owner.length() || !message.startsWith(owner)) {
            return -1;
        }
        try {
            return Long.parseLong(message, space + 1, message.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * {@code fair-abandon.lua}: leaves the queue and passes on a lock handed to this owner after its last try, or
     * granted by a try whose reply never came; so it reports 0 (nothing left for the engine to release).
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        return gateway.<Long>run(ABANDON, allKeys(request.keys()), request.owner(),
                Long.toString(request.heldToken()), request.keys().channel(), sharded, tokenRetentionMillis)
                .thenApply(passedOn -> {
                    if (passedOn == 1L && log.isDebugEnabled()) {
                        log.debug("fair lock '{}' was handed to {} as its wait ended; passed on to the next in line",
                                request.keys().name(), request.owner());
                    }
                    return 0L;
                });
    }

    /**
     * {@code fair-force-unlock.lua}: takes the lock from whoever holds it and hands it to the first live waiter (so it
     * may be locked again at once, by the next in line); true if somebody held it.
     */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return gateway.<Long>run(FORCE_UNLOCK, allKeys(keys), keys.channel(), sharded,
                tokenRetentionMillis).thenApply(held -> held == 1L);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return gateway.exists(keys.lock());
    }

    /** {@code name-inspect.lua} on the fair lock alone: its holder, last token and the live waiters of its queue. */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return InspectCall.read(gateway, keys.name(), null,
                new String[] {keys.lock(), keys.counter(), queue(keys), waiters(keys)}, "F").thenApply(i -> i.get(0));
    }
}
