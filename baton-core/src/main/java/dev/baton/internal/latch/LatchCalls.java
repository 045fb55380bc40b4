package dev.baton.internal.latch;

import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The latch's scripts ({@code latch-*.lua}) as typed calls: the one place that builds their {@code KEYS} and
 * {@code ARGV} and reads their replies. Each is one key of one slot, so it runs as well on a Cluster.
 *
 * @param gateway where the scripts run
 */
record LatchCalls(Transport gateway) {

    static final Script SET = Script.integer("latch-set");
    static final Script COUNT_DOWN = Script.integer("latch-count-down", "notify");
    static final Script COUNT = Script.list("latch-count");

    /** {@code latch-set.lua}: true if the count was set, false if the latch already had one. */
    CompletableFuture<Boolean> trySet(LatchKeys keys, long count, long expiryMillis) {
        return gateway.<Long>run(SET, new String[] {keys.latch()}, Long.toString(count), Long.toString(expiryMillis))
                .thenApply(set -> set == 1);
    }

    /**
     * {@code latch-count-down.lua}: the count left, 0 if this call released the latch, -1 if it had no count.
     */
    CompletableFuture<Long> countDown(LatchKeys keys) {
        return gateway.run(COUNT_DOWN, new String[] {keys.latch()}, keys.channel(),
                gateway.shardedPubSub() ? "1" : "0");
    }

    /** {@code latch-count.lua}: the count, 0 if the latch has none. */
    CompletableFuture<Long> count(LatchKeys keys) {
        return gateway.<List<Object>>run(COUNT, new String[] {keys.latch()})
                .thenApply(reply -> Long.parseLong((String) reply.get(0)));
    }
}
