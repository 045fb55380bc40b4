package dev.baton.internal.multi;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code multi-acquire.lua} as a typed call: the one place that builds its {@code KEYS} and {@code ARGV} and reads its
 * reply. Everything else a multi-lock does in Redis (waiting for one busy lock, release, renewal, inspection) goes
 * through the plain lock's driver, since the locks it takes are plain locks.
 */
public final class MultiLockCalls {
    static final Script ACQUIRE = Script.list("multi-acquire", "owns", "reenter", "mint-token");

    /**
     * The reply of one call.
     *
     * @param taken  how many of the asked locks, from the first, the caller holds now
     * @param pttl   when not all: the remaining lease (ms) of the first lock not taken, held by another owner (for
     *               diagnostics: the plain attempt that then waits for that lock asks again, and marks it waited for)
     * @param tokens the fencing token of each lock taken
     * @param counts the hold count of each lock taken (more than 1: re-entered)
     */
    record Reply(int taken, long pttl, long[] tokens, int[] counts) {
    }

    private final Transport gateway;
    private final String tokenRetentionMillis;

    public MultiLockCalls(Transport gateway, Duration tokenRetention) {
        this.gateway = gateway;
        this.tokenRetentionMillis = Long.toString(tokenRetention.toMillis());
    }

    /**
     * Acquires the locks (one run: on a Cluster, one hash slot), all of them or, unless {@code allOrNothing}, the ones
     * before the first busy lock.
     *
     * @param heldTokens for each lock, the token of the caller's hold it re-enters, 0 if none
     */
    CompletableFuture<Reply> acquire(List<LockKeys> locks, String owner, String holder, long leaseMillis,
                                     long[] heldTokens, boolean allOrNothing) {
        String[] keys = new String[2 * locks.size()];
        String[] args = new String[5 + locks.size()];
        args[0] = owner;
        args[1] = Long.toString(leaseMillis);
        args[2] = holder;
        args[3] = tokenRetentionMillis;
        args[4] = allOrNothing ? "1" : "0";
        for (int i = 0; i < locks.size(); i++) {
            keys[2 * i] = locks.get(i).lock();
            keys[2 * i + 1] = locks.get(i).counter();
            args[5 + i] = Long.toString(heldTokens[i]);
        }
        return gateway.<List<Long>>run(ACQUIRE, keys, args).thenApply(MultiLockCalls::reply);
    }

    private static Reply reply(List<Long> reply) {
        int taken = reply.get(0).intValue();
        long[] tokens = new long[taken];
        int[] counts = new int[taken];
        for (int i = 0; i < taken; i++) {
            tokens[i] = reply.get(2 + 2 * i);
            counts[i] = reply.get(3 + 2 * i).intValue();
        }
        return new Reply(taken, reply.get(1), tokens, counts);
    }
}
