package dev.baton.internal.redlock;

import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.runtime.Ticker;
import dev.baton.internal.transport.QuorumTransport;
import dev.baton.internal.transport.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of the Redlock: the plain reentrant lock held by a majority of N independent masters
 * ({@link QuorumTransport}). Each call goes to every master at once and counts as soon as a majority decided it
 * ({@link QuorumTally}); a master that is down, slow or partitioned costs nothing while a majority answers.
 *
 * <ul>
 *   <li><b>Acquire</b> ({@code redlock-acquire.lua} on each master): granted once a quorum granted, and only if time
 *   is left of the lease: validity = lease - elapsed - drift ({@link #validityMillis}), elapsed measured on the
 *   monotonic clock from sending to the deciding reply. Otherwise every grant, including one that arrives late, is
 *   released on its master, and so is the grant a master may still make for a try whose reply never came (timed
 *   out, or its connection lost): the undo goes behind the try on the same connection, and again after a reconnect
 *   ({@link #undoOn}). The fencing token is proposed by this Baton ({@link TokenProposals}) and granted only
 *   above each master's counter, so all masters of a hold store one token and tokens increase across quorums.</li>
 *   <li><b>Busy or unavailable</b>: a try is refused as busy only once a majority replied; with fewer replies it fails
 *   with {@link BatonUnavailableException} naming how many masters answered, within the command timeout, also for
 *   a caller that waits (a minority's "busy" must not make a waiter sleep through an outage).</li>
 *   <li><b>Release, renewal, expiry</b>: the plain lock's scripts on each master; a renewal counts only if a quorum
 *   confirmed it before the hold's validity ran out, else the hold is lost and its holder told.</li>
 *   <li><b>Masters that lost their data</b> sit out one longest lease ({@link RedlockAdmission}).</li>
 * </ul>
 *
 * <p>Local queueing and handover: threads of one Baton wait behind a local holder instead of each sending rounds to
 * every master, and the releasing holder hands the lock to the local waiter the engine picked on every master in one
 * round ({@link #handoff}, {@code redlock-handoff.lua}): a new proposal per handover, granted as an acquisition is, and
 * the lock is never free meanwhile, so the other processes' waiters do not wake into a race. What the Redlocks cost
 * under contention is counted in {@link RedlockStatistics}. See docs/redlock.md for the protocol, the token argument
 * and what is not guaranteed. Stateless apart from its settings and the proposal clock (the statistics are the JVM's);
 * thread-safe.
 */
public final class RedlockDriver implements LockDriver, LockView {
    static final Script ACQUIRE = Script.list("redlock-acquire", "owns", "reenter", "redlock-grant");
    static final Script UNDO = Script.integer("redlock-undo", "owns");
    static final Script HANDOFF = Script.list("redlock-handoff", "owns", "redlock-grant");
    private static final Logger log = LoggerFactory.getLogger(RedlockDriver.class);
    /** How often one acquire call may go round again at once: for a stale proposal or masters admitted meanwhile. */
    private static final int ROUNDS = 3;
    /** Upper bound of the random pause before retrying after a split vote, in milliseconds. */
    private static final int SPLIT_JITTER_MILLIS = 20;
    /** How often the contender that keeps its grants after a split vote goes round again for the rest. */
    private static final int KEEPS = 4;
    /** First pause before an undo that did not get through is sent again; it doubles each time, up to the next. */
    private static final long UNDO_RETRY_MILLIS = 100;
    private static final long UNDO_RETRY_MAX_MILLIS = 1_000;
    /** The first master: where contended tries take the lock alone before the others (masters in configured order). */
    static final int FIRST = 0;
    /** Longest sleep of a try that found the first master held by another contender, without a release heard. */
    static final long FIRST_MASTER_RECHECK_MILLIS = 250;
    /** How long contended tries go to every master at once after the first master failed to answer one. */
    private static final long FIRST_MASTER_SKIP_MILLIS = 1_000;
    /** Tries remembered as contended beyond which the forgotten ones are swept (see {@link #contended}). */
    private static final int CONTENDED_SWEEP_SIZE = 1_024;

    private final QuorumTransport masters;
    private final Ticker ticker;
    private final TokenProposals proposals;
    private final RedlockAdmission admission;
    private final String retentionMillis;
    private final double driftFactor;
    private final long maxLeaseMillis;
    /**
     * The acquisitions in progress (by the identity of their request, which the engine keeps across an attempt's
     * tries) that saw the lock held or lost a split vote, with when they last did: their next tries take the first
     * master alone first. Only a hint: an entry forgotten (swept, or never made) costs a parallel round, not safety.
     * An entry goes when its acquisition is granted or handed the lock; one whose caller gave up waiting is swept once
     * more than {@value #CONTENDED_SWEEP_SIZE} are remembered and it is two longest leases old.
     */
    private final Map<ContendedTry, Long> contended = new ConcurrentHashMap<>();
    /** Until when (ticker nanos) contended tries go to every master at once: the first master failed to answer. */
    private volatile long firstMasterSkippedUntil;

    public RedlockDriver(QuorumTransport masters, BatonConfig config, Ticker ticker) {
        this.masters = masters;
        this.ticker = ticker;
        this.proposals = new TokenProposals(ticker);
        this.admission = new RedlockAdmission(masters, config.namespace(), config.redlockMaxLease());
        this.retentionMillis = Long.toString(config.fencingTokenRetention().toMillis());
        this.driftFactor = config.redlockDriftFactor();
        this.maxLeaseMillis = config.redlockMaxLease().toMillis();
        this.firstMasterSkippedUntil = ticker.nanos();
    }

    /** An acquisition's request, compared by identity (two tries of one attempt share it; equal requests do not). */
    private record ContendedTry(AcquireRequest request) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ContendedTry other && other.request == request;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(request);
        }
    }

    /** Exclusive holds: threads of this Baton may queue behind a local holder (see the class comment). */
    @Override
    public boolean localQueueing() {
        return true;
    }

    /**
     * Hands {@code from}'s hold to {@code to} on every master in one round ({@code redlock-handoff.lua}): where a
     * master still has the hold, the new owner gets it there with a new proposal, granted only above the master's
     * counter, as a fresh acquisition is. The lock stays held throughout, so the waiters of other processes, which a
     * release would wake into a race (and split votes), sleep on.
     *
     * <p>Won like an acquisition: once a quorum handed over while the new hold's validity (lease less the time since
     * sending, less the drift) lasts; masters that hand over later join the hold, and a master still holding the old
     * hold afterwards (its proposal refused, its reply lost) has it expire at once, quietly. Otherwise the old holder's
     * giving up stands and the lock is released where anything is left of either hold, announced, so that waiters
     * try: every handover is released on its master ({@code lock-release.lua}, publishing), and so is the old hold
     * where it was not handed; a master whose reply never came gets the new owner's undo ({@link #undoOn}) and the old
     * hold's quiet expiry behind the handover on the same connection.
     *
     * @return the new owner's token; 0 if the lock was released instead (its waiters notified, {@code to} tries on
     *         its own); -1 if too many masters no longer had {@code from}'s hold for a majority to have had it
     * @throws BatonUnavailableException (in the future) if fewer than a majority replied
     */
    @Override
    public CompletableFuture<Long> handoff(Hold from, AcquireRequest to) {
        contended.remove(new ContendedTry(to)); // handed the lock, its acquisition makes no more tries of its own
        long proposal = proposals.next();
        if (proposal == 0) {
            // Never heard a master (cannot be, with a hold): nothing to propose, so release and let the waiter try.
            return release(from.keys, from.owner, from.token, true, true);
        }
        long sentAt = ticker.nanos();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(validityMillis(to.leaseMillis()));
        RedlockStatistics.round();
        List<CompletableFuture<List<Long>>> calls = masters.runOnEach(HANDOFF, new String[] {from.keys.lock(),
                from.keys.counter()}, from.owner, Long.toString(from.token), to.owner(),
                Long.toString(to.leaseMillis()), to.holder(), retentionMillis, Long.toString(proposal));
        int quorum = masters.quorum();
        AtomicBoolean won = new AtomicBoolean(); // set under the tally's lock, before any late reply is handled
        return QuorumTally.gather(calls, tally -> {
            int handed = 0;
            for (int i = 0; i < tally.masters(); i++) {
                List<Long> reply = tally.reply(i);
                handed += reply != null && reply.get(0) == 1L ? 1 : 0;
            }
            if (handed >= quorum) {
                won.set(validityNanos - (ticker.nanos() - sentAt) > 0);
                return tally;
            }
            return tally.pending() == 0 || (replied(tally) >= quorum && handed + tally.pending() < quorum)
                    ? tally : null;
        }, (i, late) -> settleHandoff(i, late, from, to, proposal, won.get()))
                .thenCompose(tally -> handedOver(tally, from, to, proposal, won.get()));
    }

    private CompletableFuture<Long> handedOver(QuorumTally<List<Long>> tally, Hold from, AcquireRequest to,
                                               long proposal, boolean won) {
        int gone = 0;
        for (int i = 0; i < tally.masters(); i++) {
            List<Long> reply = tally.reply(i);
            if (reply != null) {
                proposals.clock(reply.get(3));
                if (reply.get(0) == -1L) {
                    proposals.above(reply.get(1));
                }
                gone += reply.get(0) == -2L ? 1 : 0;
            }
            if (reply != null || tally.failure(i) != null) {
                settleHandoff(i, reply, from, to, proposal, won);
            }
        }
        if (won) {
            RedlockStatistics.handedOver();
            return CompletableFuture.completedFuture(proposal);
        }
        RedlockStatistics.handoverMissed();
        int replied = replied(tally);
        if (replied < masters.quorum()) {
            Throwable first = tally.firstFailure();
            return CompletableFuture.failedFuture(new BatonUnavailableException("Redlock '" + from.keys.name()
                    + "': only " + replied + " of " + tally.masters() + " masters answered the handover ("
                    + masters.quorum() + " needed); where it still is, it expires with its lease", first));
        }
        return CompletableFuture.completedFuture(gone > tally.masters() - masters.quorum() ? -1L : 0L);
    }

    /**
     * What one master's part of a handover leaves to do once the handover is decided (see {@link #handoff}).
     *
     * @param reply the master's reply, or null if its call failed (it may still run there)
     */
    private void settleHandoff(int master, List<Long> reply, Hold from, AcquireRequest to, long proposal,
                               boolean won) {
        long code = reply == null ? Long.MIN_VALUE : reply.get(0);
        if (code == 1L && !won) {
            masters.runOn(master, LockCalls.releaseCall(to.keys(), to.owner(), proposal, true, "0",
                    "released " + proposal));
        } else if (code == -1L && !won) {
            masters.runOn(master, LockCalls.releaseCall(from.keys, from.owner, from.token, true, "0",
                    "released " + from.token));
        } else if (code == -1L || reply == null) {
            if (reply == null && !won) {
                undoOn(master, to, proposal);
            }
            masters.runOn(master, LockCalls.keepCall(from.keys, from.owner, from.token, 1));
        }
    }

    @Override
    public LockType type() {
        return LockType.LOCK;
    }

    /**
     * How long a hold counts as held after the acquisition or renewal was sent: the lease less the drift allowance,
     * {@code lease * driftFactor + 2 ms} (the masters' clocks may run at different rates, and expiry is measured in
     * milliseconds).
     */
    @Override
    public long validityMillis(long leaseMillis) {
        if (leaseMillis > maxLeaseMillis) {
            throw new IllegalArgumentException("lease must not be longer than redlockMaxLease (" + maxLeaseMillis
                    + " ms), which is how long a master that lost its data sits out: " + leaseMillis + " ms");
        }
        long validity = leaseMillis - (long) (leaseMillis * driftFactor) - 2;
        if (validity <= 0) {
            throw new IllegalArgumentException("lease is too short for a Redlock: nothing is left of " + leaseMillis
                    + " ms after the clock drift allowance");
        }
        return validity;
    }

    // ---- acquiring ----

    /** One master's answer to {@code redlock-acquire.lua}. */
    private enum Answer { GRANTED, BUSY, STALE, UNMARKED, SITTING_OUT }

    /**
     * A try: one parallel round to every master, unless this acquisition already saw the lock held or lost a split
     * vote (a retry of a waiting caller); then it takes the first master alone first ({@link #firstMaster}), so that
     * contenders queue there instead of splitting the masters among themselves.
     */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        CompletableFuture<Acquired> outcome = willWait && r.heldToken() == 0 && masters.size() > 1
                && contended.containsKey(new ContendedTry(r)) && ticker.nanos() - firstMasterSkippedUntil >= 0
                ? firstMaster(r, ROUNDS) : round(r, willWait, ROUNDS, KEEPS, List.of());
        return willWait ? outcome.whenComplete((a, e) -> remember(r, a)) : outcome;
    }

    /** Remembers a refused waiting try as contended, forgets a granted one; sweeps entries no try came back for. */
    private void remember(AcquireRequest r, Acquired a) {
        ContendedTry key = new ContendedTry(r);
        if (a == null || a.granted()) {
            contended.remove(key);
            return;
        }
        long now = ticker.nanos();
        contended.put(key, now);
        if (contended.size() > CONTENDED_SWEEP_SIZE) {
            long forgetNanos = TimeUnit.MILLISECONDS.toNanos(2 * maxLeaseMillis);
            contended.values().removeIf(seen -> now - seen > forgetNanos);
        }
    }

    /**
     * The two-phase try of a contended acquisition. Phase one: {@code redlock-acquire.lua} with a fresh proposal on
     * the first master ({@link #FIRST}) alone. Held there by another contender: no other master is asked, and the try
     * sleeps until a release is heard or, at most, {@value #FIRST_MASTER_RECHECK_MILLIS} ms (the holder there may have
     * crashed between the phases; its grant expires with its lease). Granted: phase two sends the same proposal to
     * the other masters at once and the round is decided as a parallel one whose first master granted at phase one's
     * sending time, so the validity (lease - elapsed - drift) counts both phases; a split vote (a first try of a
     * newcomer, in parallel) finds this try holding the first master, which makes it the keeper that goes round again
     * while the newcomer gives way ({@link #holdsFirstTaken}). A stale proposal goes up and phase one is repeated; a
     * master without its marker, or a first master that fails to answer (down, timed out: the call may still run
     * there and gets its undo behind it), sends the try to every master at once, and after a failure the following
     * contended tries too, for {@value #FIRST_MASTER_SKIP_MILLIS} ms.
     */
    private CompletableFuture<Acquired> firstMaster(AcquireRequest r, int roundsLeft) {
        long proposal = proposals.next();
        if (proposal == 0) {
            return round(r, true, roundsLeft, KEEPS, List.of()); // never heard the masters' clock: nothing to propose
        }
        long sentAt = ticker.nanos();
        RedlockStatistics.firstMasterCall();
        CompletableFuture<List<Long>> call = masters.runOn(FIRST, ACQUIRE, acquireKeys(r), acquireArgs(r, true,
                proposal));
        return call.handle((reply, failure) -> {
            if (failure != null) {
                if (QuorumTransport.mayHaveRun(failure)) {
                    undoOn(FIRST, r, proposal);
                }
                firstMasterSkippedUntil = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(FIRST_MASTER_SKIP_MILLIS);
                log.debug("Redlock '{}': the first master {} did not answer a contended try, which goes to every "
                        + "master at once: {}", r.keys().name(), masters.endpoint(FIRST), failure.getMessage());
                return round(r, true, roundsLeft, KEEPS, List.of());
            }
            proposals.clock(reply.get(3));
            return switch (answer(reply)) {
                case GRANTED -> otherMasters(r, roundsLeft, proposal, sentAt, reply);
                case BUSY -> {
                    proposals.above(reply.get(2));
                    RedlockStatistics.firstMasterLost();
                    yield CompletableFuture.completedFuture(new Acquired(false, 0, 0,
                            Math.max(1, Math.min(reply.get(1), FIRST_MASTER_RECHECK_MILLIS))));
                }
                case STALE -> {
                    proposals.above(reply.get(1));
                    yield roundsLeft > 1 ? firstMaster(r, roundsLeft - 1) : round(r, true, 1, KEEPS, List.of());
                }
                case UNMARKED, SITTING_OUT -> round(r, true, roundsLeft, KEEPS, List.of()); // admission needs all
            };
        }).thenCompose(outcome -> outcome);
    }

    /** Phase two of {@link #firstMaster}: the proposal the first master granted, to every other master at once. */
    private CompletableFuture<Acquired> otherMasters(AcquireRequest r, int roundsLeft, long proposal, long sentAt,
                                                     List<Long> firstReply) {
        RedlockStatistics.round();
        String[] keys = acquireKeys(r);
        String[] args = acquireArgs(r, true, proposal);
        List<CompletableFuture<List<Long>>> calls = new ArrayList<>(masters.size());
        for (int i = 0; i < masters.size(); i++) {
            calls.add(i == FIRST ? CompletableFuture.completedFuture(firstReply) : masters.runOn(i, ACQUIRE, keys,
                    args));
        }
        return tally(r, true, roundsLeft, KEEPS, List.of(), proposal, sentAt, calls);
    }

    private String[] acquireKeys(AcquireRequest r) {
        return new String[] {r.keys().lock(), r.keys().counter(), admission.marker()};
    }

    private String[] acquireArgs(AcquireRequest r, boolean willWait, long proposal) {
        return new String[] {r.owner(), Long.toString(r.leaseMillis()), r.holder(), retentionMillis,
                Long.toString(r.heldToken()), willWait ? "1" : "0", Long.toString(proposal)};
    }

    /**
     * One parallel round to every master.
     *
     * @param roundsLeft rounds this try may still make for a stale proposal or masters admitted meanwhile
     * @param keepsLeft  rounds it may still make while keeping its grants after a split vote
     * @param kept       the grants it kept from its last round, as {master, token}: this round replaces them where
     *                   its own proposal is granted, and whatever is not replaced is undone or kept again
     */
    private CompletableFuture<Acquired> round(AcquireRequest r, boolean willWait, int roundsLeft, int keepsLeft,
                                              List<long[]> kept) {
        long proposal = proposals.next();
        long sentAt = ticker.nanos();
        RedlockStatistics.round();
        List<CompletableFuture<List<Long>>> calls = masters.runOnEach(ACQUIRE, acquireKeys(r), acquireArgs(r,
                willWait, proposal));
        return tally(r, willWait, roundsLeft, keepsLeft, kept, proposal, sentAt, calls);
    }

    /**
     * Decides a round from its masters' replies as they come.
     *
     * @param sentAt when the round's first call was sent: its grants' leases started no earlier
     * @param calls  one call per master, in the masters' order
     */
    private CompletableFuture<Acquired> tally(AcquireRequest r, boolean willWait, int roundsLeft, int keepsLeft,
                                              List<long[]> kept, long proposal, long sentAt,
                                              List<CompletableFuture<List<Long>>> calls) {
        long heldToken = r.heldToken();
        int quorum = masters.quorum();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(validityMillis(r.leaseMillis()));
        // The winning token, once a quorum holds one in time: the held token (a re-entry) or the proposal (a fresh
        // hold). It stays 0 for a quorum heard too late, so that every grant of this try, early or late, is undone.
        AtomicLong won = new AtomicLong();
        AtomicBoolean tooLate = new AtomicBoolean();
        return QuorumTally.gather(calls, tally -> {
            int reentered = 0;
            int fresh = 0;
            for (int i = 0; i < tally.masters(); i++) {
                List<Long> reply = tally.reply(i);
                if (reply != null && answer(reply) == Answer.GRANTED) {
                    if (heldToken != 0 && reply.get(1) == heldToken) {
                        reentered++;
                    } else {
                        fresh++;
                    }
                }
            }
            if (reentered >= quorum || fresh >= quorum) {
                if (validityNanos - (ticker.nanos() - sentAt) > 0) {
                    won.set(reentered >= quorum ? heldToken : proposal);
                } else {
                    tooLate.set(true); // the lease may already be running out on some master: never returned
                }
                return tally;
            }
            if (tally.pending() == 0) {
                return tally;
            }
            // Decided without a quorum once the grants and the masters still to answer cannot make one, and once a
            // majority replied: "busy" from a minority must not hide that the others did not answer (that is
            // BatonUnavailableException, not a busy lock, and a waiter must not sleep on it). Without a majority of
            // replies it waits for every master (at most the command timeout), so that the exception says how many
            // answered. Masters without their marker also wait for the answers that tell how to admit them.
            return replied(tally) >= quorum && admissionOf(tally) != Admission.UNDECIDED
                    && Math.max(reentered, fresh) + tally.pending() < quorum ? tally : null;
        }, (i, late) -> {
            // A grant after the outcome: part of the hold if it carries the winning token, else undone.
            if (late != null && answer(late) == Answer.GRANTED && late.get(1) != won.get()) {
                undoOn(i, r, late.get(1));
            } else if (late == null && won.get() != proposal && mayHaveRun(calls.get(i))) {
                undoOn(i, r, proposal); // no reply, yet the script may still run there (see undoOn)
            } else if (late != null && answer(late) == Answer.UNMARKED && won.get() != 0) {
                admission.admit(List.of(i), false); // a majority granted, so a majority has its marker: sits out
            }
        }).thenCompose(tally -> decided(r, willWait, roundsLeft, keepsLeft, kept, proposal, won.get(), tooLate.get(),
                sentAt, tally));
    }

    private CompletableFuture<Acquired> decided(AcquireRequest r, boolean willWait, int roundsLeft, int keepsLeft,
                                                List<long[]> kept, long proposal, long won, boolean tooLate,
                                                long sentAt, QuorumTally<List<Long>> tally) {
        int n = tally.masters();
        Map<Long, List<Long>> busy = new HashMap<>(); // pttls of the masters held by others, by the holder's token
        List<Integer> unmarked = new ArrayList<>();
        // Grants of this try that are not part of an outcome, as {master, token}: this round's, and those kept from
        // the last round that this round's proposal did not replace.
        List<long[]> grants = new ArrayList<>();
        for (long[] k : kept) {
            List<Long> reply = tally.reply((int) k[0]);
            if (reply == null || reply.get(0) != 1L || reply.get(1) != proposal) {
                grants.add(k);
            }
        }
        int stale = 0;
        int holdCount = 1;
        for (int i = 0; i < n; i++) {
            List<Long> reply = tally.reply(i);
            if (reply == null) {
                continue;
            }
            proposals.clock(reply.get(3));
            switch (answer(reply)) {
                case GRANTED -> {
                    if (won != 0 && reply.get(1) == won) {
                        holdCount = Math.max(holdCount, reply.get(2).intValue());
                    } else {
                        grants.add(new long[] {i, reply.get(1)});
                    }
                }
                case BUSY -> {
                    busy.computeIfAbsent(reply.get(4), t -> new ArrayList<>()).add(reply.get(1));
                    proposals.above(reply.get(2));
                }
                case STALE -> {
                    stale++;
                    proposals.above(reply.get(1));
                }
                case UNMARKED -> unmarked.add(i);
                case SITTING_OUT -> { }
                default -> throw new IllegalStateException();
            }
        }
        CompletableFuture<Boolean> admitted = switch (admissionOf(tally)) {
            // A new deployment: every master is admitted, including those whose answer is still to come (a marker
            // already there is kept), so that none of them is taken later for one that lost its data.
            case AT_ONCE -> {
                List<Integer> all = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    all.add(i);
                }
                yield admission.admit(all, true);
            }
            case SIT_OUT -> admission.admit(unmarked, false);
            case NONE, UNDECIDED -> null;
        };
        // Masters whose reply never came (a timeout, a connection lost with the script on its way) may still run it,
        // and grant this try's proposal there after the caller has been told otherwise: undone unless it is the hold.
        if (won != proposal) {
            for (int i = 0; i < n; i++) {
                if (tally.failure(i) != null && QuorumTransport.mayHaveRun(tally.failure(i))) {
                    undoOn(i, r, proposal);
                }
            }
        }
        if (won != 0) {
            for (long[] g : grants) {
                undoOn((int) g[0], r, g[1]); // a grant of another token than the hold's (a re-entry's own, or kept)
            }
            if (won != r.heldToken()) {
                RedlockStatistics.acquired();
            }
            return CompletableFuture.completedFuture(new Acquired(true, won, holdCount, 0));
        }
        int replied = replied(tally);
        boolean split = !tooLate && splitVote(tally, busy);
        if (split) {
            RedlockStatistics.splitVote();
        }
        // How long one round took: the time the rivals' undos take to land, and the pace of the keeper's rounds.
        long roundMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - sentAt));
        boolean heldByOther = heldByMajority(busy);
        if (!tooLate && keepsLeft > 0 && r.heldToken() == 0 && replied >= masters.quorum() && !heldByOther
                && holdsFirstTaken(tally)) {
            // A split vote that this try leads: it keeps its grants, and goes round again (a higher proposal
            // replaces them) once its rivals, who do not hold the first taken master, have had a round trip to undo.
            return CompletableFuture.runAsync(() -> { },
                            CompletableFuture.delayedExecutor(roundMillis, TimeUnit.MILLISECONDS))
                    .thenCompose(v -> round(r, willWait, roundsLeft, keepsLeft - 1, grants));
        }
        for (long[] g : grants) {
            if (g[0] == FIRST && !tooLate && !heldByOther && masters.size() > 1
                    && contended.containsKey(new ContendedTry(r))) {
                // A contended try gives the first master back: the contended tries that found it taken sleep until
                // a release, and this one wakes them (one round trip each, to the first master alone). Not while
                // another hold has a majority: its release wakes them, and waking them now would only send them
                // round the first master in vain. A first try's grants there are undone quietly, as before.
                masters.runOn(FIRST, LockCalls.releaseCall(r.keys(), r.owner(), g[1], true, "0",
                        "released " + g[1]));
            } else {
                undoOn((int) g[0], r, g[1]); // a grant that is not part of an outcome, on its master alone
            }
        }
        if (tooLate) {
            log.debug("Redlock '{}': a majority granted it only after {} ms, past its validity; released",
                    r.keys().name(), TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - sentAt));
            return CompletableFuture.completedFuture(new Acquired(false, 0, 0, jitter()));
        }
        if (replied < masters.quorum()) {
            // Fewer than a majority replied at all (granted, busy or otherwise): whatever the others said, nothing
            // can be decided here, so the caller is told at once, waiting or not.
            Throwable first = tally.firstFailure();
            return CompletableFuture.failedFuture(new BatonUnavailableException("Redlock '" + r.keys().name()
                    + "': only " + replied + " of " + n + " masters answered (" + masters.quorum()
                    + " needed): " + (first == null ? "" : first.getMessage()), first));
        }
        if (admitted != null) {
            if (roundsLeft > 1) {
                return admitted.thenCompose(atOnce -> atOnce ? round(r, willWait, roundsLeft - 1, keepsLeft, List.of())
                        : CompletableFuture.completedFuture(notGranted(busy, roundMillis)));
            }
        }
        if (stale > 0 && roundsLeft > 1) {
            // The proposals have learned the counters: propose above them.
            return round(r, willWait, roundsLeft - 1, keepsLeft, List.of());
        }
        return CompletableFuture.completedFuture(notGranted(busy, roundMillis));
    }

    /** Whether one other hold has a majority of the masters (from the busy replies, by the holder's token). */
    private boolean heldByMajority(Map<Long, List<Long>> busy) {
        for (List<Long> pttls : busy.values()) {
            if (pttls.size() >= masters.quorum()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the first master (in the masters' order) that some contender holds is held by this try. Every
     * contender of a split vote sees the same first master held by the same one of them (unless a reply failed), so
     * exactly one keeps its grants and the others give theirs back, instead of all retrying into another split.
     */
    private static boolean holdsFirstTaken(QuorumTally<List<Long>> tally) {
        for (int i = 0; i < tally.masters(); i++) {
            List<Long> reply = tally.reply(i);
            if (reply != null && (reply.get(0) == 1L || reply.get(0) == 0L)) {
                return reply.get(0) == 1L;
            }
        }
        return false;
    }

    /**
     * Whether a round that won nothing found the masters divided among two or more contenders (this try's grants
     * and each other holder's token), none of them with a majority.
     */
    private boolean splitVote(QuorumTally<List<Long>> tally, Map<Long, List<Long>> busy) {
        boolean mine = false;
        for (int i = 0; i < tally.masters(); i++) {
            List<Long> reply = tally.reply(i);
            mine |= reply != null && answer(reply) == Answer.GRANTED;
        }
        for (List<Long> held : busy.values()) {
            if (held.size() >= masters.quorum()) {
                return false;
            }
        }
        return busy.size() + (mine ? 1 : 0) >= 2;
    }

    /** How this try's masters without a marker are to be admitted, as far as the answers so far tell. */
    private enum Admission { NONE, AT_ONCE, SIT_OUT, UNDECIDED }

    /**
     * At once if a majority answered without a marker (a new deployment); after the sit-out if a majority answered
     * with one (the unmarked master lost its data), or once every master answered (one that did not answer counts as
     * marked, which errs towards sitting out); undecided before that.
     */
    private Admission admissionOf(QuorumTally<List<Long>> tally) {
        int unmarked = 0;
        int marked = 0; // any answer but "no marker" comes from a master that has one
        for (int i = 0; i < tally.masters(); i++) {
            List<Long> reply = tally.reply(i);
            if (reply != null) {
                if (answer(reply) == Answer.UNMARKED) {
                    unmarked++;
                } else {
                    marked++;
                }
            }
        }
        int quorum = masters.quorum();
        return unmarked == 0 ? Admission.NONE : unmarked >= quorum ? Admission.AT_ONCE
                : marked >= quorum || tally.pending() == 0 ? Admission.SIT_OUT : Admission.UNDECIDED;
    }

    /** How many masters replied so far (with any answer; a failure or a master still to answer is not a reply). */
    private static int replied(QuorumTally<?> tally) {
        int n = 0;
        for (int i = 0; i < tally.masters(); i++) {
            if (tally.replied(i)) {
                n++;
            }
        }
        return n;
    }

    private static Answer answer(List<Long> reply) {
        long code = reply.get(0);
        return code == 1 ? Answer.GRANTED : code == 0 ? Answer.BUSY : code == -1 ? Answer.STALE
                : code == -2 ? Answer.UNMARKED : Answer.SITTING_OUT;
    }

    /**
     * Not granted. If one other hold has a majority, sleep until its release is heard (or, at most, until its lease
     * runs out on enough of its masters for a majority to be free). Otherwise it was a split vote, or a majority is
     * not yet there for anyone: stand back while the contender that keeps its grants goes its rounds (up to
     * {@value #KEEPS} of them, each paced by a round trip), so as not to split the masters with it again, then try
     * after a short random pause on top, since that contender may not win and undone grants publish nothing that
     * would wake this waiter. If it wins, its release wakes this waiter as any release does.
     *
     * @param roundMillis how long this try's round took, at least 1 ms
     */
    private Acquired notGranted(Map<Long, List<Long>> busy, long roundMillis) {
        for (List<Long> pttls : busy.values()) {
            if (pttls.size() >= masters.quorum()) {
                // A majority is free once that many of its masters expired: those it does not hold do not suffice.
                int mustExpire = masters.quorum() - (masters.size() - pttls.size());
                pttls.sort(null);
                return new Acquired(false, 0, 0, pttls.get(mustExpire - 1));
            }
        }
        return new Acquired(false, 0, 0, (KEEPS + 1) * roundMillis + jitter());
    }

    private static long jitter() {
        return 1 + ThreadLocalRandom.current().nextInt(SPLIT_JITTER_MILLIS);
    }

    /**
     * Undoes one master's grant of this try: releases one hold count of this owner with this token on that master
     * alone (a fresh grant is deleted, a re-entry counted back), once per grant. Owner and token name the try, so an
     * undo never touches a later acquisition, even of the same owner (its proposal is higher).
     *
     * <p>Sent on the master's one command connection, where Redis runs commands in the order sent: an undo sent after
     * a try whose reply never came runs after that try's script, if the script runs at all (a frozen master runs it
     * when it thaws). Until the undo is answered it is sent again, first after {@value #UNDO_RETRY_MILLIS} ms, the
     * pause doubling up to {@value #UNDO_RETRY_MAX_MILLIS} ms: refused while the connection is down, it gets through
     * once the connection is back (the try may have run before it was lost); timed out, it may have been lost with
     * a connection replaced meanwhile. It gives up after one longest lease ({@code redlockMaxLease}), or when the
     * Baton closes; a grant it never reached expires with its lease. An undo that finds nothing does nothing.
     */
    private void undoOn(int master, AcquireRequest r, long token) {
        undoUntilAnswered(master, r.keys(), r.owner(), token, UNDO_RETRY_MILLIS,
                ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(maxLeaseMillis));
    }

    private void undoUntilAnswered(int master, LockKeys keys, String owner, long token, long retryMillis,
                                   long giveUpAtNanos) {
        masters.<Long>runOn(master, UNDO, new String[] {keys.lock()}, owner,
                Long.toString(token)).whenComplete((v, e) -> {
                    if (e != null && !masters.isClosed() && unreachable(e) && ticker.nanos() - giveUpAtNanos < 0) {
                        CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS).execute(() ->
                                undoUntilAnswered(master, keys, owner, token,
                                        Math.min(2 * retryMillis, UNDO_RETRY_MAX_MILLIS), giveUpAtNanos));
                    } else if (e != null) {
                        log.debug("Redlock '{}': could not undo the grant of token {} on master {}; it expires with "
                                + "its lease: {}", keys.name(), token, masters.endpoint(master), e.getMessage());
                    }
                });
    }

    /**
     * Whether a call that failed may still have run (or may yet run) on its master: it timed out, or its connection
     * was lost while it was on its way. Not a call refused before it was sent (no connection) or answered with an
     * error.
     */
    private static boolean mayHaveRun(CompletableFuture<?> failedCall) {
        return QuorumTransport.mayHaveRun(failedCall.handle((v, e) -> e).join());
    }

    /** Whether a call failed because its master could not be reached or did not answer (worth sending again). */
    private static boolean unreachable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BatonUnavailableException) {
                return true;
            }
        }
        return false;
    }

    // ---- releasing, renewing, keeping ----

    /**
     * {@code lock-release.lua} on every master.
     *
     * @return the hold count left once a quorum still held it (0: released), -1 once a quorum no longer did
     * @throws BatonUnavailableException (in the future) if too few masters answered to say either
     */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return release(keys, owner, token, publish, false);
    }

    /**
     * The last release of a hold ends it on every master that still shows a count for it: a re-entry whose reply a
     * master never gave in time (a timeout) may still have run there, and its count would otherwise outlive the hold
     * and keep the lock taken on that master until its lease ran out (or, on a majority of masters, keep it held).
     */
    @Override
    public CompletableFuture<Long> releaseHold(Hold hold, boolean publish) {
        return release(hold.keys, hold.owner, hold.token, publish, hold.count() <= 1);
    }

    /** @param last whether this ends the hold: masters that still count it have it expire at once */
    private CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish, boolean last) {
        List<CompletableFuture<Long>> calls = masters.runOnEach(LockCalls.releaseCall(keys, owner, token, publish,
                "0", "released " + token));
        int quorum = masters.quorum();
        BiConsumer<Integer, Long> endLeftover = (i, left) -> {
            if (last && left != null && left > 0) {
                masters.runOn(i, LockCalls.keepCall(keys, owner, token, 1));
            }
        };
        return QuorumTally.gather(calls, tally -> {
            int held = 0;
            int gone = 0;
            long left = 0;
            for (int i = 0; i < tally.masters(); i++) {
                Long reply = tally.reply(i);
                if (reply != null && reply >= 0) {
                    held++;
                    left = Math.max(left, reply);
                } else if (reply != null) {
                    gone++;
                }
            }
            if (held >= quorum) {
                if (last) {
                    for (int i = 0; i < tally.masters(); i++) {
                        endLeftover.accept(i, tally.reply(i));
                    }
                    return 0L;
                }
                return left;
            }
            if (gone > tally.masters() - quorum) {
                return -1L;
            }
            return tally.pending() == 0 ? Long.MIN_VALUE : null;
        }, endLeftover).thenCompose(left -> left != Long.MIN_VALUE ? CompletableFuture.completedFuture(left)
                : CompletableFuture.failedFuture(new BatonUnavailableException("Redlock '" + keys.name()
                        + "': too few masters answered the release to tell whether it was still held (" + quorum
                        + " needed); where it still is, it expires with its lease", null)));
    }

    /**
     * {@code lock-renew.lua} on every master: a hold is renewed once a quorum renewed it before its validity ran out,
     * and lost once too many masters no longer have it for a quorum to be possible. Only the masters that hold it can
     * renew it, and a renewal does not take the masters where the lock is free: a hold on k masters (a majority, not
     * always all of them under contention) survives the loss of k - quorum of them; with more of them gone it can
     * neither be renewed nor released, and is lost when its validity runs out (docs/redlock.md, "What losing a
     * minority costs a holder").
     *
     * @throws BatonUnavailableException (in the future) if too few masters answered to decide a hold (the watchdog
     *                                   tries again next round, and the hold is lost if its validity runs out first)
     */
    @Override
    public CompletableFuture<boolean[]> renew(List<Hold> batch, long leaseMillis) {
        List<CompletableFuture<List<Long>>> calls = masters.runOnEach(LockCalls.renewCall(batch, leaseMillis));
        int quorum = masters.quorum();
        return QuorumTally.gather(calls, tally -> {
            Boolean[] decided = new Boolean[batch.size()];
            boolean all = true;
            for (int h = 0; h < decided.length; h++) {
                int renewed = 0;
                int gone = 0;
                for (int i = 0; i < tally.masters(); i++) {
                    List<Long> reply = tally.reply(i);
                    if (reply != null) {
                        if (reply.get(h) == 1L) {
                            renewed++;
                        } else {
                            gone++;
                        }
                    }
                }
                decided[h] = renewed >= quorum ? Boolean.TRUE : gone > tally.masters() - quorum ? Boolean.FALSE : null;
                all &= decided[h] != null;
            }
            return all || tally.pending() == 0 ? decided : null;
        }, null).thenCompose(decided -> {
            long now = ticker.nanos();
            boolean[] renewed = new boolean[decided.length];
            for (int h = 0; h < decided.length; h++) {
                if (decided[h] == null) {
                    return CompletableFuture.failedFuture(new BatonUnavailableException("too few Redlock masters "
                            + "answered the renewal of '" + batch.get(h).keys.name() + "' (" + quorum + " needed)",
                            null));
                }
                // Within validity: a quorum confirmed after the hold ran out does not count.
                renewed[h] = decided[h] && batch.get(h).expiresAtNanos() - now > 0;
            }
            return CompletableFuture.completedFuture(renewed);
        });
    }

    /**
     * {@code lock-keep.lua} on every master: set once a quorum set it.
     *
     * @throws UnsupportedOperationException for longer than {@code redlockMaxLease}, which would outlast the sit-out
     *                                       of a master that lost its data (nothing is sent)
     */
    @Override
    public CompletableFuture<Boolean> keep(Hold hold, long millis) {
        if (millis > maxLeaseMillis) {
            throw new UnsupportedOperationException("a Redlock can be left to expire for at most redlockMaxLease ("
                    + maxLeaseMillis + " ms), how long a master that lost its data sits out: " + millis + " ms");
        }
        List<CompletableFuture<Long>> calls = masters.runOnEach(LockCalls.keepCall(hold.keys, hold.owner,
                hold.token, millis));
        return countYes(calls, hold.keys, "leave it to expire");
    }

    /**
     * Counts 1-replies: true once a quorum said 1, false once that can no longer happen.
     *
     * @param what for the message if too few masters answer
     */
    private CompletableFuture<Boolean> countYes(List<CompletableFuture<Long>> calls, LockKeys keys, String what) {
        int quorum = masters.quorum();
        return QuorumTally.gather(calls, tally -> {
            int yes = 0;
            int no = 0;
            for (int i = 0; i < tally.masters(); i++) {
                Long reply = tally.reply(i);
                if (reply != null) {
                    if (reply == 1L) {
                        yes++;
                    } else {
                        no++;
                    }
                }
            }
            if (yes >= quorum) {
                return 1;
            }
            if (no > tally.masters() - quorum) {
                return 0;
            }
            return tally.pending() == 0 ? -1 : null;
        }, null).thenCompose(outcome -> outcome >= 0 ? CompletableFuture.completedFuture(outcome == 1)
                : CompletableFuture.failedFuture(new BatonUnavailableException("Redlock '" + keys.name()
                        + "': too few masters answered to " + what + " (" + quorum + " needed)", null)));
    }

    // ---- administration and views ----

    /** {@code lock-force-unlock.lua} on every master; true if any of them held it. Needs a majority to answer. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(LockKeys keys) {
        List<CompletableFuture<Long>> calls = masters.runOnEach(LockCalls.forceUnlockCall(keys, "0"));
        return everyAnswer(calls, keys, "force-unlock").thenApply(tally -> {
            for (int i = 0; i < tally.masters(); i++) {
                if (Long.valueOf(1L).equals(tally.reply(i))) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Whether a majority of the masters has the lock. */
    @Override
    public CompletableFuture<Boolean> isLocked(LockKeys keys) {
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (CompletableFuture<Boolean> exists : masters.existsOnEach(keys.lock())) {
            calls.add(exists.thenApply(e -> e ? 1L : 0L));
        }
        return countYes(calls, keys, "tell whether it is held");
    }

    /**
     * {@code lock-inspect.lua} on every master: the holder that a majority names (with the lease left on the
     * majority), and the highest token any master remembers. Needs a majority to answer.
     */
    @Override
    public CompletableFuture<LockInfo> inspect(LockKeys keys) {
        List<CompletableFuture<List<Object>>> calls = masters.runOnEach(LockCalls.inspectCall(keys));
        return everyAnswer(calls, keys, "inspect it").thenApply(tally -> {
            long lastToken = 0;
            Map<String, List<LockInfo.Holder>> byHold = new HashMap<>();
            for (int i = 0; i < tally.masters(); i++) {
                List<Object> reply = tally.reply(i);
                if (reply == null) {
                    continue;
                }
                LockInfo info = LockCalls.lockInfo(keys, reply);
                lastToken = Math.max(lastToken, info.lastFencingToken());
                info.holder().ifPresent(h -> byHold.computeIfAbsent(h.batonInstance() + " " + h.thread() + " "
                        + h.fencingToken(), k -> new ArrayList<>()).add(h));
            }
            for (List<LockInfo.Holder> seen : byHold.values()) {
                if (seen.size() >= masters.quorum()) {
                    // Held while a majority has it: the quorum-th longest lease left.
                    Duration[] leases = seen.stream().map(LockInfo.Holder::remainingLease)
                            .sorted(Comparator.reverseOrder()).toArray(Duration[]::new);
                    LockInfo.Holder h = seen.get(0);
                    return new LockInfo(keys.name(), Optional.of(new LockInfo.Holder(h.batonInstance(), h.host(),
                            h.pid(), h.thread(), h.leaseOwned(), h.holdCount(), leases[masters.quorum() - 1],
                            h.fencingToken())), lastToken);
                }
            }
            return new LockInfo(keys.name(), Optional.empty(), lastToken);
        });
    }

    /** Waits for every master (an administrative call may wait for the slow ones); fails if fewer than a quorum. */
    private <T> CompletableFuture<QuorumTally<T>> everyAnswer(List<CompletableFuture<T>> calls, LockKeys keys,
                                                              String what) {
        return QuorumTally.<T, QuorumTally<T>>gather(calls, tally -> tally.pending() == 0 ? tally : null, null)
                .thenCompose(tally -> tally.masters() - tally.failed() >= masters.quorum()
                        ? CompletableFuture.completedFuture(tally)
                        : CompletableFuture.failedFuture(new BatonUnavailableException("Redlock '" + keys.name()
                                + "': only " + (tally.masters() - tally.failed()) + " of " + tally.masters()
                                + " masters answered to " + what + " (" + masters.quorum() + " needed)",
                                tally.firstFailure())));
    }
}
