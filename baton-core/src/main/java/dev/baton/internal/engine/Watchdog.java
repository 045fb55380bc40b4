package dev.baton.internal.engine;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog-leased hold of one Baton from one scheduler, every third of the watchdog lease, in batches:
 * one renew call (its {@link LockDriver}'s script, {@code lock-renew.lua} for the plain lock) for up to {@value #BATCH}
 * holds of one kind of lock. On a standalone or Sentinel-managed master a script
 * may touch any keys; on a Cluster each batch holds the locks of one hash slot.
 *
 * <p>A thread-owned hold whose thread has ended is not renewed: nobody could ever unlock it, so the engine releases it
 * ({@link LockEngine#ownerThreadEnded}). The check costs one {@code isAlive()} per hold and round.
 *
 * <p>Outcomes per hold: renewed (its local expiry moves on); gone or owned by someone else (the hold is marked lost
 * at once); no answer (Redis unreachable: retried next round). A hold whose local expiry estimate passes without a
 * renewal is marked lost at that moment, not a round later: whenever an estimate would run out before the next
 * round, a sweep is scheduled for it. A hold that is released is removed before its release script is sent, and the
 * renew script only extends a lock whose owner and token match, so a renewal can never revive a released lock nor
 * stretch a later acquisition by the same owner.
 */
public final class Watchdog {
    static final int BATCH = 256;
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final LockEngine engine;
    private final long leaseMillis;
    private final long periodNanos;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> sweep; // only touched on the scheduler thread

    Watchdog(LockEngine engine, long leaseMillis) {
        this.engine = engine;
        this.leaseMillis = leaseMillis;
        this.periodNanos = Math.max(1, TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3);
    }

    void start() {
        engine.scheduleRepeating(this::renewAll, periodNanos);
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

    /** The holds under renewal right now (a copy). */
    List<Hold> watched() {
        return new ArrayList<>(holds);
    }

    private void renewAll() {
        List<Hold> live = sweepExpired();
        // Each kind of lock renews with its own script; a script may only touch keys of one hash slot on a cluster
        // (else CROSSSLOT): one batch per driver, and on a cluster per slot as well.
        boolean cluster = engine.gateway().isCluster();
        Map<Batch, List<Hold>> batches = new HashMap<>();
        for (Hold h : live) {
            Batch b = new Batch(h.driver, cluster ? SlotHash.getSlot(h.keys.lock()) : 0);
            batches.computeIfAbsent(b, k -> new ArrayList<>()).add(h);
        }
        batches.values().forEach(this::renewInBatches);
    }

    /** Holds that one renew call may serve together: same driver (same script), same hash slot on a cluster. */
    private record Batch(LockDriver driver, int slot) {
    }

    private void renewInBatches(List<Hold> holds) {
        for (int from = 0; from < holds.size(); from += BATCH) {
            renew(holds.subList(from, Math.min(holds.size(), from + BATCH)));
        }
    }

    /**
     * Marks every hold whose estimate ran out as lost and returns the others; schedules the next sweep if one of
     * them would run out before the next renewal round could look.
     */
    private List<Hold> sweepExpired() {
        List<Hold> live = new ArrayList<>();
        long now = engine.nanos();
        long earliest = Long.MAX_VALUE;
        for (Hold h : holds) {
            if (!h.isHeld()) {
                holds.remove(h);
            } else if (h.ownerThread != null && !h.ownerThread.isAlive()) {
                holds.remove(h);
                engine.ownerThreadEnded(h);
            } else if (now - h.expiresAtNanos() >= 0) {
                // Two causes look alike here: Redis did not answer the renewals (one was sent and none succeeded
                // since), or this process did not run them in time (paused, starved of CPU, a long GC: no renewal was
                // even sent since the last success), and Redis may have let the lease run out and granted the lock to
                // someone else while it answered everyone.
                if (h.isRenewalUnanswered()) {
                    engine.lost(h, "its lease could not be renewed before it ran out (Redis did not answer)",
                            Hold.Loss.UNANSWERED);
                } else {
                    engine.lost(h, "its lease ran out before this process renewed it (the process was paused or "
                            + "too busy to run the renewal in time)");
                }
            } else {
                live.add(h);
                earliest = Math.min(earliest, h.expiresAtNanos() - now);
            }
        }
        if (sweep != null) {
            sweep.cancel(false);
            sweep = null;
        }
        if (earliest < periodNanos) {
            sweep = engine.schedule(this::sweepExpired, earliest);
        }
        return live;
    }

    private void renew(List<Hold> batch) {
        long sentAt = engine.nanos();
        batch.forEach(Hold::renewalSent);
        batch.get(0).driver.renew(batch, leaseMillis).whenComplete((renewed, error) -> {
            if (error != null) {
                // Retried next round; a hold whose estimate runs out meanwhile is marked lost then.
                String reason = engine.translate(error).getMessage();
                log.warn("could not renew {} lock{} (retrying in {} ms, before the leases run out): {}",
                        batch.size(), batch.size() == 1 ? "" : "s", TimeUnit.NANOSECONDS.toMillis(periodNanos),
                        reason);
                engine.renewalFailed(batch.size(), reason);
                return;
            }
            int count = 0;
            for (int i = 0; i < renewed.length; i++) {
                Hold h = batch.get(i);
                if (renewed[i]) {
                    count++;
                    h.renewed(sentAt + TimeUnit.MILLISECONDS.toNanos(h.driver.validityMillis(leaseMillis)));
                } else {
                    engine.lost(h, Hold.goneAt("renewal"));
                }
            }
            log.debug("renewed {} of {} locks", count, renewed.length);
        });
    }
}
