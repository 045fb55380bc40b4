package dev.baton.internal.redlock;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the Redlocks of this JVM cost under contention, counted for benchmarks and tests (not an API: internal, and its
 * counts are summed over every Baton of the process): acquisitions, handovers, the rounds of calls to every master
 * that the acquisitions and handovers sent, the rounds that ended in a split vote, and the calls a contended try sent
 * to the first master alone before the others (the two-phase path, docs/redlock.md "Contended tries go to the first
 * master first"). Rounds per acquisition is {@code rounds / (acquisitions + handovers)}, round trips per acquisition
 * {@code (rounds + firstMasterCalls) / (acquisitions + handovers)}; releases, renewals and undos (single-master calls)
 * are not rounds here.
 *
 * <p>Counting costs one uncontended {@link LongAdder} increment per event. Thread-safe.
 */
public final class RedlockStatistics {
    private static final LongAdder ACQUISITIONS = new LongAdder();
    private static final LongAdder HANDOVERS = new LongAdder();
    private static final LongAdder ROUNDS = new LongAdder();
    private static final LongAdder SPLIT_VOTES = new LongAdder();
    private static final LongAdder HANDOVERS_MISSED = new LongAdder();
    private static final LongAdder FIRST_MASTER_CALLS = new LongAdder();
    private static final LongAdder FIRST_MASTER_LOST = new LongAdder();

    private RedlockStatistics() {
    }

    /**
     * The counts so far.
     *
     * @param acquisitions fresh holds won by a try (re-entries not counted)
     * @param handovers    holds passed from a releasing thread to a waiting thread of the same Baton in one round
     * @param rounds       calls of the acquire or the handover script sent to every master at once
     * @param splitVotes   rounds that ended with the masters divided among contenders and no majority for any, as
     *                     each contender saw them (a split between two contenders counts up to twice)
     * @param handoversMissed handovers that did not win a majority in time (the lock was released instead, or the
     *                        old hold was lost); their waiter then tries on its own
     * @param firstMasterCalls calls of the acquire script a contended try sent to the first master alone (one round
     *                         trip to one master; not in {@code rounds}); the parallel call to the others that follows
     *                         a grant there is a round
     * @param firstMasterLost  first-master calls that found it held by another contender (the try then sleeps until a
     *                         release or its bounded re-check)
     */
    public record Counts(long acquisitions, long handovers, long rounds, long splitVotes, long handoversMissed,
                         long firstMasterCalls, long firstMasterLost) {
        /** The events between {@code earlier} and this snapshot. */
        public Counts minus(Counts earlier) {
            return new Counts(acquisitions - earlier.acquisitions, handovers - earlier.handovers,
                    rounds - earlier.rounds, splitVotes - earlier.splitVotes,
                    handoversMissed - earlier.handoversMissed, firstMasterCalls - earlier.firstMasterCalls,
                    firstMasterLost - earlier.firstMasterLost);
        }

        /** The events of this and {@code other} together. */
        public Counts plus(Counts other) {
            return new Counts(acquisitions + other.acquisitions, handovers + other.handovers,
                    rounds + other.rounds, splitVotes + other.splitVotes, handoversMissed + other.handoversMissed,
                    firstMasterCalls + other.firstMasterCalls, firstMasterLost + other.firstMasterLost);
        }

        /** Round trips per hold taken: rounds to every master and first-master calls together; NaN before any. */
        public double roundTripsPerHold() {
            return holds() == 0 ? Double.NaN : (double) (rounds + firstMasterCalls) / holds();
        }

        /** Holds taken, by a try or a handover. */
        public long holds() {
            return acquisitions + handovers;
        }

        /** Rounds per hold taken; NaN before any. */
        public double roundsPerHold() {
            return holds() == 0 ? Double.NaN : (double) rounds / holds();
        }

        /** Split-vote rounds per 1,000 holds taken; NaN before any. */
        public double splitVotesPerThousand() {
            return holds() == 0 ? Double.NaN : 1000.0 * splitVotes / holds();
        }
    }

    /** A snapshot of the counts of every Redlock of this JVM (each read on its own, not all at one instant). */
    public static Counts snapshot() {
        return new Counts(ACQUISITIONS.sum(), HANDOVERS.sum(), ROUNDS.sum(), SPLIT_VOTES.sum(),
                HANDOVERS_MISSED.sum(), FIRST_MASTER_CALLS.sum(), FIRST_MASTER_LOST.sum());
    }

    static void acquired() {
        ACQUISITIONS.increment();
    }

    static void handedOver() {
        HANDOVERS.increment();
    }

    static void round() {
        ROUNDS.increment();
    }

    static void handoverMissed() {
        HANDOVERS_MISSED.increment();
    }

    static void firstMasterCall() {
        FIRST_MASTER_CALLS.increment();
    }

    static void firstMasterLost() {
        FIRST_MASTER_LOST.increment();
    }

    static void splitVote() {
        SPLIT_VOTES.increment();
    }
}
