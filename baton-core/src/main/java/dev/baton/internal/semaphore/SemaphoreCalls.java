package dev.baton.internal.semaphore;

import dev.baton.BatonConfig;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.SemaphoreInfo;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.engine.Replies;
import dev.baton.internal.engine.Watchdog;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The driver of the semaphore with expiring permits: its scripts ({@code semaphore-*.lua}) as typed calls, the one
 * place that builds their {@code KEYS} and {@code ARGV} and reads their replies. The protocol, the keys and the
 * fairness argument are in {@code docs/semaphore.md} and in the scripts' headers.
 *
 * <p>A value: two drivers of one transport with the same settings and the same initial total are equal, and the
 * {@link Watchdog}, which renews the holds of equal drivers in one batch, then renews the leases of every semaphore
 * of a Baton in one call per hash slot, however many {@code DistributedSemaphore} objects were made for them. The
 * initial total is part of the driver because only the acquire script needs it (it writes the total of a semaphore
 * that has no state in Redis).
 *
 * @param gateway              where the scripts run
 * @param tokenRetentionMillis how long the total and the fencing counter outlive the last lease
 * @param waiterTtlMillis      how long a waiter keeps its place in the queue without trying again
 * @param initialPermits       the total written by the first acquisition of a semaphore that is new
 * @param totals               where a total in Redis other than {@code initialPermits} is reported (one per Baton)
 */
public record SemaphoreCalls(Transport gateway, long tokenRetentionMillis, long waiterTtlMillis, int initialPermits,
                      SemaphoreTotals totals) implements LockDriver, LockView {

    static final Script ACQUIRE = Script.list("semaphore-acquire", "owns", "notify", "mint-token", "semaphore-state");
    static final Script RELEASE = Script.integer("semaphore-release", "owns", "notify", "mint-token",
            "semaphore-state");
    static final Script RENEW = Script.list("semaphore-renew", "owns", "notify", "mint-token", "semaphore-state");
    static final Script ABANDON = Script.list("semaphore-abandon", "notify", "mint-token", "semaphore-state")
            .inOrder();
    static final Script SET_PERMITS = Script.integer("semaphore-set-permits", "notify", "mint-token",
            "semaphore-state");
    static final Script FORCE_RELEASE = Script.integer("semaphore-force-release", "notify", "mint-token",
            "semaphore-state");
    static final Script INSPECT = Script.list("semaphore-inspect", "notify", "mint-token", "semaphore-state");

    /**
     * The driver for one engine's semaphores with this initial total. A waiter's place in the queue lasts as long as
     * the longest gap its tries can have: a re-check interval of sleep, plus a command timeout for each of two
     * tries to reach Redis (a try that takes longer fails the wait and withdraws it). A waiter that stops trying
     * (its process died or hangs) stops blocking the queue that much later.
     */
    public static SemaphoreCalls of(Transport gateway, BatonConfig config, int initialPermits, SemaphoreTotals totals) {
        long waiterTtl = config.recheckInterval().plus(config.commandTimeout().multipliedBy(2)).toMillis();
        return new SemaphoreCalls(gateway, config.fencingTokenRetention().toMillis(), waiterTtl, initialPermits,
                totals);
    }

    /** The keys of a semaphore: {@code <ns>:semaphore:{<name>}} and its suffixes (docs/key-layout.md). */
    public static LockKeys keys(String namespace, String name) {
        String tag = HashTag.of(namespace, "semaphore", name);
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }

    public static String holders(LockKeys keys) {
        return keys.lock() + ":holders";
    }

    public static String expiry(LockKeys keys) {
        return keys.lock() + ":expiry";
    }

    public static String queue(LockKeys keys) {
        return keys.lock() + ":queue";
    }

    public static String waiters(LockKeys keys) {
        return keys.lock() + ":waiters";
    }

    private String sharded() {
        return gateway.shardedPubSub() ? "1" : "0";
    }

    /** Shared holds (permits) and a FIFO queue in Redis: no local handoff, no local queueing. */
    @Override
    public boolean localQueueing() {
        return false;
    }

    @Override
    public LockType type() {
        return LockType.SEMAPHORE;
    }

    /**
     * {@code semaphore-acquire.lua}: acquires {@code request.permits()} permits, or joins (or keeps a place in) the
     * queue if the caller will wait.
     *
     * @return the reply; completes exceptionally with {@link IllegalArgumentException} if the semaphore has fewer
     *         permits in total than asked for
     */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        LockKeys k = r.keys();
        return gateway.<List<Long>>run(ACQUIRE, sixKeys(k), r.owner(),
                Integer.toString(r.permits()), Long.toString(r.leaseMillis()), r.holder(),
                Long.toString(tokenRetentionMillis), Integer.toString(initialPermits), willWait ? "1" : "0",
                Long.toString(waiterTtlMillis), k.channel(), sharded()).thenApply(reply -> {
                    long outcome = reply.get(0);
                    if (outcome == 1) {
                        if (reply.size() > 2) {
                            totals.seen(k.name(), initialPermits, reply.get(2));
                        }
                        return new Acquired(true, reply.get(1), 1, 0);
                    }
                    if (outcome == 0) {
                        return new Acquired(false, 0, 0, reply.get(1));
                    }
                    throw new IllegalArgumentException("semaphore '" + k.name() + "' has " + reply.get(1)
                            + " permits in total, fewer than the " + r.permits() + " asked for");
                });
    }

    /**
     * {@code semaphore-release.lua}: returns the lease's permits and hands the permits now free to the first
     * waiters they satisfy, in queue order, telling each {@code "<owner> <token>"}. Waiters are known to Redis (the
     * queue), so {@code publish} is not needed.
     *
     * @return 0 if released, -1 if the lease was gone (nothing changed)
     */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(RELEASE, sixKeys(keys), owner, Long.toString(token),
                keys.channel(), sharded(), Long.toString(tokenRetentionMillis));
    }

    /** {@code semaphore-renew.lua}: extends the leases of the batch whose owner and token still match. */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        String[] keys = new String[3 * batch.size()];
        String[] args = new String[2 * batch.size() + 2];
        args[0] = Long.toString(leaseMillis);
        args[1] = Long.toString(tokenRetentionMillis);
        for (int i = 0; i < batch.size(); i++) {
            Hold h = batch.get(i);
            keys[3 * i] = h.keys.lock();
            keys[3 * i + 1] = holders(h.keys);
            keys[3 * i + 2] = expiry(h.keys);
            args[2 * i + 2] = h.owner;
            args[2 * i + 3] = Long.toString(h.token);
        }
        return gateway.<List<Long>>run(RENEW, keys, args).thenApply(Replies::renewed);
    }

    /**
     * A handoff, {@code "<owner> <token>"}: permits granted to that owner by a release (or by another script that
     * found them free), so its attempt takes them without another round trip; the token, for that owner's waiter,
     * and -1 for every other. "released" and "all" are a reason for anyone to try (see the scripts).
     */
    @Override
    public long grantIn(String message, AcquireRequest request) {
        String owner = request.owner();
        int length = owner.length();
        if (message.length() > length + 1 && message.charAt(length) == ' ' && message.startsWith(owner)) {
            try {
                return Long.parseLong(message, length + 1, message.length(), 10);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return message.indexOf(' ') >= 0 ? -1 : 0;
    }

    /**
     * {@code semaphore-abandon.lua}: leaves the queue; hands on the permits this lets through to the waiters
     * behind; reports permits of this owner that a try whose reply never came, or a handoff it never took, granted.
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        LockKeys k = request.keys();
        return gateway.<List<Long>>run(ABANDON, sixKeys(k), request.owner(), k.channel(),
                sharded(), Long.toString(request.heldToken()), Long.toString(tokenRetentionMillis))
                .thenApply(Replies::orphanIn);
    }

    /**
     * {@code semaphore-set-permits.lua}: sets the total and wakes every waiter.
     *
     * @return the previous total, 0 if the semaphore was new
     */
    CompletableFuture<Long> setPermits(LockKeys keys, int permits) {
        totals.setDeliberately(keys.name());
        return gateway.run(SET_PERMITS, new String[] {keys.lock(), queue(keys)},
                Integer.toString(permits), Long.toString(tokenRetentionMillis), keys.channel(), sharded());
    }

    /**
     * The counts of a semaphore at one instant.
     *
     * @param total the total in Redis, or the initial total if the semaphore is new
     * @param used  permits held by live leases
     */
    record Counts(int total, int used) {
        int available() {
            return Math.max(0, total - used);
        }
    }

    /** {@code semaphore-inspect.lua} without the holders: the total and the permits held. */
    CompletableFuture<Counts> counts(LockKeys keys) {
        return inspectScript(keys, false).thenApply(r -> new Counts(total(keys, r), ((Long) r.get(1)).intValue()));
    }

    /** {@code semaphore-inspect.lua}: the whole state, for operators. */
    CompletableFuture<SemaphoreInfo> inspectSemaphore(LockKeys keys) {
        return inspectScript(keys, true).thenApply(r -> {
            List<SemaphoreInfo.Holder> holders = new ArrayList<>();
            for (int i = 4; i + 2 < r.size(); i += 3) {
                holders.add(holder((String) r.get(i), (String) r.get(i + 1), (Long) r.get(i + 2)));
            }
            int total = total(keys, r);
            return new SemaphoreInfo(keys.name(), total, Math.max(0, total - ((Long) r.get(1)).intValue()),
                    holders, ((Long) r.get(2)).intValue(), (Long) r.get(3));
        });
    }

    private CompletableFuture<List<Object>> inspectScript(LockKeys keys, boolean holders) {
        return gateway.run(INSPECT, sixKeys(keys), holders ? "1" : "0");
    }

    private int total(LockKeys keys, List<Object> reply) {
        long stored = (Long) reply.get(0);
        if (stored < 0) {
            return initialPermits;
        }
        totals.seen(keys.name(), initialPermits, stored);
        return (int) stored;
    }

    /** One holder from its owner id, its entry {@code "<token> <permits> <instance> <pid> <host> <thread>"}. */
    private static SemaphoreInfo.Holder holder(String owner, String entry, long remainingMillis) {
        String[] f = entry.split(" ", 3); // token, permits, then the description Identity wrote
        Identity.Described d = Identity.describedBy(f[2]);
        return new SemaphoreInfo.Holder(d.instance(), d.host(), d.pid(), d.thread(), Integer.parseInt(f[1]),
                Duration.ofMillis(Math.max(0, remainingMillis)), Long.parseLong(f[0]));
    }

    /** The five keys of a semaphore's state and its fencing counter, in the order the scripts take them. */
    private static String[] sixKeys(LockKeys k) {
        return new String[] {k.lock(), holders(k), expiry(k), queue(k), waiters(k), k.counter()};
    }

    /** Whether any permit is held right now. */
    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        return counts(keys).thenApply(c -> c.used() > 0);
    }

    /** Not offered: a semaphore is inspected as a whole ({@link #inspectSemaphore}). */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "semaphore '" + keys.name() + "' is inspected with DistributedSemaphore.inspect()"));
    }

    /**
     * {@code semaphore-force-release.lua} (administrative): removes every live lease, whoever holds it, and hands
     * the permits to the first waiters in queue order; the total and the fencing counter stay.
     *
     * @return true if at least one lease was removed
     */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        return gateway.<Long>run(FORCE_RELEASE, sixKeys(keys), keys.channel(), sharded(),
                Long.toString(tokenRetentionMillis)).thenApply(permits -> permits > 0);
    }
}
