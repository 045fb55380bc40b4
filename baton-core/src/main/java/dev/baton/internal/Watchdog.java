package dev.baton.internal;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Renews every watchdog-leased hold of one Baton from one scheduler, every third of the watchdog lease, in batches:
 * one {@code lock-renew.lua} call per Cluster hash slot and at most {@value #BATCH} locks (on a standalone Redis,
 * one call for up to {@value #BATCH} locks).
 *
 * <p>Outcomes per hold: renewed (its local expiry moves on); gone or owned by someone else (the hold is marked lost
 * at once); no answer (Redis unreachable: retried next round, and the hold is marked lost as soon as its local
 * expiry estimate passes, since it may have expired in Redis). A hold that is released is removed before its release
 * script is sent, and the renew script only extends a lock whose owner matches, so a renewal can never revive a
 * released lock.
 */
final class Watchdog {
    static final int BATCH = 256;

    private final LockEngine engine;
    private final long leaseMillis;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();

    Watchdog(LockEngine engine, long leaseMillis) {
        this.engine = engine;
        this.leaseMillis = leaseMillis;
    }

    void start() {
        long period = TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
        engine.scheduleRepeating(this::renewAll, period);
    }

    void watch(Hold hold) {
        holds.add(hold);
    }

    void unwatch(Hold hold) {
        holds.remove(hold);
    }

    int watchedCount() {
        return holds.size();
    }

    private void renewAll() {
        if (holds.isEmpty()) {
            return;
        }
        Map<Integer, List<Hold>> bySlot = new TreeMap<>();
        long now = System.nanoTime();
        for (Hold h : holds) {
            if (!h.isHeld()) {
                holds.remove(h);
            } else if (now - h.expiresAtNanos() >= 0) {
                engine.lost(h, "its lease could not be renewed before it ran out (Redis did not answer)");
            } else {
                bySlot.computeIfAbsent(SlotHash.getSlot(h.keys.lock()), k -> new ArrayList<>()).add(h);
            }
        }
        for (List<Hold> slot : bySlot.values()) {
            for (int from = 0; from < slot.size(); from += BATCH) {
                renew(slot.subList(from, Math.min(slot.size(), from + BATCH)));
            }
        }
    }

    private void renew(List<Hold> batch) {
        String[] keys = new String[batch.size()];
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = batch.get(i).keys.lock();
            args[i + 1] = batch.get(i).owner;
        }
        long sentAt = System.nanoTime();
        engine.gateway().<List<Long>>run(Script.LOCK_RENEW, ScriptOutputType.MULTI, keys, args)
                .whenComplete((renewed, error) -> {
                    if (error != null) {
                        return; // retried next round; a hold whose estimate runs out meanwhile is marked lost then
                    }
                    for (int i = 0; i < keys.length; i++) {
                        Hold h = batch.get(i);
                        if (renewed.get(i) == 1L) {
                            h.renewed(sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
                        } else {
                            engine.lost(h, "the lock was found deleted or owned by someone else at renewal "
                                    + "(expired, force-unlocked, or lost by Redis)");
                        }
                    }
                });
    }
}
