package dev.baton.internal.engine;

import dev.baton.LockType;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The protocol of one kind of lock: its scripts, as typed calls, and how the engine may treat its holds locally. The
 * {@link LockEngine} runs every kind the same way: one {@link AcquireAttempt} per wait (tries, pub/sub wake-ups, the
 * bounded re-check, time-outs, cancellation), {@link Hold}s renewed by the one {@link Watchdog}, lost-lease
 * notification, events. A new kind of lock adds a driver, its scripts and (if the {@code DistributedLock} facade does
 * not fit) a facade; it copies none of that machinery.
 *
 * <p>Every key a driver touches for one lock carries the lock's hash tag, so that one script can touch them all on a
 * Redis Cluster, and the watchdog may renew several holds of one driver and one hash slot in one call.
 *
 * <p>Implementations are stateless apart from their settings and are called from any thread.
 */
public interface LockDriver {

    /**
     * The reply of an acquisition try.
     *
     * @param granted   whether the caller now holds the lock (acquired, re-entered, or claimed after a handoff)
     * @param token     the fencing token of the hold, when granted
     * @param holdCount the hold count, when granted (1 for a fresh acquisition)
     * @param pttl      when not granted: how long to sleep at most before trying again, in milliseconds (the holder's
     *                  remaining lease, or less when the driver needs the waiter to come back sooner, for instance to
     *                  keep its place in a queue); 0 or less for "no hint"
     * @param lastToken when not granted: the last fencing token issued for the lock when the try ran, or 0 if the
     *                  driver does not say. A driver whose release hands the lock over names the new owner's token in
     *                  its message ({@link #grantIn}); a handed token not above this one was minted before the try
     *                  that found the lock busy, so the message is stale (meant for an earlier wait of the same
     *                  owner) and the attempt ignores it
     */
    record Acquired(boolean granted, long token, int holdCount, long pttl, long lastToken) {
        /** A reply without a last token (drivers that hand nothing over in their messages). */
        public Acquired(boolean granted, long token, int holdCount, long pttl) {
            this(granted, token, holdCount, pttl, 0);
        }
    }

    /**
     * Whether holds of this kind are exclusive and waiters unordered, so that a releasing local holder may pass the
     * lock straight to a local waiter ({@link #handoff}) and a newcomer may queue behind a local holder without asking
     * Redis. False for shared holds (readers, permits) and for FIFO queues, whose order a local shortcut would break.
     */
    boolean localQueueing();

    /** Which kind of lock this driver serves, as events and {@code HeldLock} snapshots name it. */
    LockType type();

    /**
     * For how long after an acquisition or renewal was sent a hold of {@code leaseMillis} counts as held here. The
     * default is the lease itself (a single Redis counts it from when the command arrived, which is after it was
     * sent); the Redlock keeps back an allowance for the masters' clocks drifting apart.
     *
     * <p>Also asked before an attempt sends anything: throws {@link IllegalArgumentException} (naming the lease) if
     * this kind of lock cannot grant it. The default accepts every positive lease; the Redlock refuses leases longer
     * than its masters' sit-out time.
     */
    default long validityMillis(long leaseMillis) {
        return leaseMillis;
    }

    /**
     * The re-check interval of this kind of lock, in nanoseconds: the longest a waiter sleeps without a notification
     * when the holder's lease (the reply's pttl) lasts longer. A safety net for a lost release message; the expiry of
     * a crashed holder's lease needs none, since the waiter sleeps until that lease would end. The default is the
     * Baton's ({@code BatonConfig.recheckInterval}); an election's candidates, which wait behind one long leadership,
     * use a longer one.
     *
     * @param configured the Baton's re-check interval, in nanoseconds
     */
    default long recheckNanos(long configured) {
        return configured;
    }

    /**
     * The longest a waiting attempt may sleep before its next try, in nanoseconds from now, whatever the last reply
     * said and even if it has not tried yet (queued behind a local holder); {@link Long#MAX_VALUE} for no limit of the
     * driver's own (the engine's re-check interval and the reply's pttl still apply). The default has none; the plain
     * lock uses it to make a waiter try right when it crosses its fairness threshold.
     */
    default long sleepLimitNanos(AcquireRequest request) {
        return Long.MAX_VALUE;
    }

    /**
     * One try: acquire, re-enter, or find the lock busy. A caller that will wait ({@code willWait}) may leave a mark
     * (a waiter flag, a queue entry) so that the release notifies it.
     */
    CompletableFuture<Acquired> acquire(AcquireRequest request, boolean willWait);

    /**
     * Releases one hold count of {@code owner}'s hold with fencing token {@code token}.
     *
     * @param publish whether to notify even if no waiter marked the lock (the releasing Baton has local waiters)
     * @return the hold count left (0: released), or -1 if the hold was no longer in Redis (nothing changed)
     */
    CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish);

    /**
     * Releases one hold count of a hold of this Baton (an {@code unlock()} or {@code release()}); the hold's local count
     * says whether it is the last. The default is {@link #release(LockKeys, String, long, boolean)}; the Redlock uses
     * the count to end the whole hold on its last release, on every master, whatever count a master that missed a
     * reply may still show.
     */
    default CompletableFuture<Long> releaseHold(Hold hold, boolean publish) {
        return release(hold.keys, hold.owner, hold.token, publish);
    }

    /**
     * Extends every hold of the batch whose owner and token still match; all holds are of this driver and of one hash
     * slot.
     *
     * @return for each hold, in order, whether it was renewed
     */
    CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis);

    /**
     * Passes the lock from its current single hold straight to another owner of this Baton; only called when
     * {@link #localQueueing()} is true. The driver may release the lock instead, when someone else has precedence
     * (the plain lock's claims of long waiters); the engine then treats it as a release, and {@code to} tries.
     *
     * @return the new owner's fencing token, 0 if the lock was released instead (and its waiters notified), or -1 if
     *         {@code from} no longer held the lock exactly once
     */
    default CompletableFuture<Long> handoff(Hold from, AcquireRequest to) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no local handoff");
    }

    /**
     * What a message on the lock's channel means for one waiting attempt: -1 if it is not for this attempt (another
     * waiter should take it), 0 if the attempt should try again, or a fencing token greater than 0 if the message
     * hands the lock to this attempt's owner with that token (the release script already made it the owner). The
     * default: every message is a plain "released", a reason to try.
     */
    default long grantIn(String message, AcquireRequest request) {
        return 0;
    }

    /**
     * An attempt ended without the lock: remove a mark it may have left in Redis (it would have waited), and, if
     * {@code mayHoldGrant}, find a grant of this owner that nobody will use. Sent after the attempt's last try, on the
     * shared command connection, before the caller hears the outcome. A driver whose tries travel on that connection
     * too gets its order for free: Redis runs the abandon after every try of the attempt and before any later try of
     * the owner. A driver whose tries take another connection must wait, before each try, for
     * {@link LockEngine#abandonsSettled}: otherwise Redis may run an abandon after the owner's next try and report
     * that try's grant as an orphan, which the engine then releases under its holder.
     *
     * <p>{@code mayHoldGrant} is true when a try of the attempt got no reply (a timeout, a lost connection): it may
     * have run, or may still run, and granted the lock to a caller that was told it failed. The driver then reports
     * the fencing token of a hold of {@code request.owner()} whose token is not {@code request.heldToken()} (the
     * outer hold of a re-entry stays the caller's), and the engine releases that hold with {@link #release}, owner
     * and token named. A driver that hands the lock over in its release script passes on such a hold itself (and on a
     * lock handed to this owner after its last try, since nobody would take it now) and reports 0.
     *
     * <p>The default does nothing and reports 0: a waiter flag costs only a spare notification.
     *
     * @return the fencing token of an orphaned hold of this owner to release, or 0
     */
    default CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        return CompletableFuture.completedFuture(0L);
    }

    /**
     * Leaves one hold to expire {@code millis} from now (shorter or longer than its lease was) instead of deleting
     * it, if its owner and token still match: the same ownership check as {@link #renew}, but the lease is set, not
     * only extended. Serves {@code Lease.releaseAfter}. The default refuses: a kind whose holds are not a lease of
     * their own (a semaphore's permits) does not support it.
     *
     * @return true if the expiry was set, false if the hold was no longer in Redis (nothing changed)
     * @throws UnsupportedOperationException if this kind of lock cannot leave a hold to expire
     */
    default CompletableFuture<Boolean> keep(Hold hold, long millis) {
        throw new UnsupportedOperationException("a lease of this kind of lock cannot be released after a delay");
    }
}
