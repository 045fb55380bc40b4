package dev.baton;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an operator does to Baton's objects in Redis, whoever created them: list them, read a rate limiter's state
 * without its configuration, take a lock away from its holder, reset a limiter. Obtained from {@link Baton#admin()};
 * the {@code baton} command line is built on it. Every method makes Redis calls bounded by the command timeout and
 * fails with {@link BatonUnavailableException} when Redis does not answer; arguments are checked before any call.
 * Thread-safe.
 *
 * <p>These are administrative actions: a forced unlock removes a live holder's hold, which that holder learns at its
 * next renewal (its {@link Lease#lost()} completes, {@link Lease#isValid()} turns false, a {@code leaseLost} event);
 * until then it may still believe it holds the lock, which is what fencing tokens are for.
 */
public interface BatonAdmin {

    /**
     * The kinds of object Baton keeps in Redis, each under a key word of its own ({@code <namespace>:<keyword>:{name}},
     * docs/key-layout.md).
     */
    enum Kind {
        /** Plain locks ({@link Baton#lock(String)}), also the members of multi-locks. */
        LOCK("lock"),
        /** Fair locks ({@link Baton#fairLock(String)}). */
        FAIR("fair"),
        /** Read-write locks ({@link Baton#readWriteLock(String)}). */
        READ_WRITE("rw"),
        /** Semaphores ({@link Baton#semaphore(String, int)}). */
        SEMAPHORE("semaphore"),
        /** Leader elections ({@link Baton#election(String)}). */
        ELECTION("election"),
        /** Count-down latches ({@link Baton#countDownLatch(String)}). */
        LATCH("latch"),
        /** Rate limiters ({@link Baton#rateLimiter(String, RateLimit...)}). */
        RATE_LIMITER("rate");

        private final String keyword;

        Kind(String keyword) {
            this.keyword = keyword;
        }

        /**
         * The word that names this kind in keys, and on the command line.
         *
         * @return e.g. {@code "lock"}, {@code "rw"}, {@code "rate"}
         */
        public String keyword() {
            return keyword;
        }

        /**
         * The kind of a key word.
         *
         * @param keyword a key word such as {@code "semaphore"} (case-insensitive)
         * @return the kind, empty if no kind has that word
         */
        public static Optional<Kind> ofKeyword(String keyword) {
            for (Kind k : values()) {
                if (k.keyword.equalsIgnoreCase(keyword)) {
                    return Optional.of(k);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * One object found in Redis.
     *
     * @param kind   what it is
     * @param name   its name, as the application gave it (unescaped)
     * @param active true if it has live state beyond its fencing counter: a lock or semaphore held or waited for, an
     *               election with a leader, a latch with a count, a limiter that has charged permits; false if only
     *               its fencing counter remains (it was used within the token retention and is free now)
     */
    record Entry(Kind kind, String name, boolean active) {
        /**
         * Checks the fields.
         *
         * @param kind   what it is
         * @param name   its name
         * @param active whether it has live state
         * @throws NullPointerException if {@code kind} or {@code name} is null
         */
        public Entry {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * What {@link #list} found.
     *
     * @param entries   the objects, sorted by name then kind, at most the limit asked for
     * @param complete  true if the whole key space was scanned and nothing was left out for the limit
     * @param scanCalls how many {@code SCAN} calls the listing made (over every node of a Cluster, every master of a
     *                  Redlock)
     */
    record Listing(List<Entry> entries, boolean complete, long scanCalls) {
        /**
         * Copies the entries.
         *
         * @param entries   the objects found
         * @param complete  whether the scan finished and nothing was cut
         * @param scanCalls how many {@code SCAN} calls were made
         */
        public Listing {
            entries = List.copyOf(entries);
        }
    }

    /**
     * The state of one limit of a rate limiter, as Redis holds it.
     *
     * @param index       the limit's position in the limiter's list, from 0
     * @param algorithm   its algorithm
     * @param permits     the permits per period it was last charged with; 0 if unknown (a window limit's state
     *                    written by a Baton older than this one, which did not store them)
     * @param period      its period
     * @param used        permits counted against it now (for GCRA: the permits not yet replenished, rounded up)
     * @param remaining   permits that could be taken at once now (for GCRA: of its burst); -1 if unknown (as for
     *                    {@code permits})
     * @param resetAfter  time until the limit is full again if nothing more is taken
     */
    record LimitState(int index, RateLimit.Algorithm algorithm, long permits, Duration period, long used,
                      long remaining, Duration resetAfter) {
        /**
         * Checks the fields.
         *
         * @param index      the limit's position
         * @param algorithm  its algorithm
         * @param permits    permits per period
         * @param period     its period
         * @param used       permits counted now
         * @param remaining  permits free now
         * @param resetAfter time until full again
         * @throws NullPointerException if {@code algorithm}, {@code period} or {@code resetAfter} is null
         */
        public LimitState {
            Objects.requireNonNull(algorithm, "algorithm");
            Objects.requireNonNull(period, "period");
            Objects.requireNonNull(resetAfter, "resetAfter");
        }
    }

    /**
     * One waiter in the queue of a fair lock or a semaphore.
     *
     * @param batonInstance id of the waiting {@link Baton} instance
     * @param host          host name of that process
     * @param pid           process id of that process
     * @param thread        name of the thread that waits
     * @param permits       the permits it waits for (1 for a fair lock)
     * @param placeKept     how long its place is kept unless it tries again (a live waiter tries at least every
     *                      re-check interval, so this only runs out for a waiter that died or gave up)
     */
    record Waiter(String batonInstance, String host, long pid, String thread, int permits, Duration placeKept) {
        /**
         * Checks the fields.
         *
         * @param batonInstance id of the waiting instance
         * @param host          host name
         * @param pid           process id
         * @param thread        thread name
         * @param permits       permits waited for
         * @param placeKept     how long its place is kept
         * @throws NullPointerException if {@code placeKept} is null
         */
        public Waiter {
            Objects.requireNonNull(placeKept, "placeKept");
        }
    }

    /**
     * Lists the objects of this Baton's namespace with {@code SCAN} (never {@code KEYS}): each call examines a bounded
     * number of keys, so Redis stays responsive however many keys it holds, and the listing stops once it has
     * {@code limit} objects. Objects created or removed while it runs may or may not appear (SCAN's guarantee: what
     * exists for the whole listing appears).
     *
     * @param kind  only this kind, or empty for every kind
     * @param glob  a pattern the names must match ({@code *} any characters, {@code ?} one, {@code [abc]} a set,
     *              {@code \} escapes), matched against the name as given, not the escaped key
     * @param limit the most entries to return, at least 1
     * @return the objects found, sorted
     * @throws IllegalArgumentException if {@code limit} is below 1 or {@code glob} is blank
     * @throws NullPointerException     if an argument is null
     * @throws BatonUnavailableException if Redis does not answer
     */
    Listing list(Optional<Kind> kind, String glob, int limit);

    /**
     * The queue of a fair lock or of a semaphore, first in line first: the waiters that keep a place in Redis (a plain
     * lock's waiters keep none). Read-only; at most {@code limit} waiters.
     *
     * @param name  the object's name
     * @param kind  {@link Kind#FAIR} or {@link Kind#SEMAPHORE}
     * @param limit the most waiters to read, at least 1
     * @return the live waiters in queue order, possibly empty
     * @throws IllegalArgumentException      if the name is blank or too long, the kind has no queue, or {@code limit}
     *                                       is below 1
     * @throws UnsupportedOperationException on Redlock masters, which run neither
     * @throws BatonUnavailableException if Redis does not answer
     */
    List<Waiter> queue(String name, Kind kind, int limit);

    /**
     * A rate limiter's state as Redis holds it, read without knowing its configuration: every limit that has state
     * (an idle limit has no key, and is left out: it is full). Limits are found among the first 32 positions of the
     * limiter's list.
     *
     * @param name the limiter's name
     * @return the limits with state, by position; empty if the limiter is idle or was never used
     * @throws IllegalArgumentException if the name is blank or too long
     * @throws UnsupportedOperationException on Redlock masters, which run no rate limiter
     * @throws BatonUnavailableException if Redis does not answer
     */
    List<LimitState> rateLimiter(String name);

    /**
     * Forgets everything a rate limiter has counted, in one atomic script: every limit is full again at once, for
     * every process.
     *
     * @param name the limiter's name
     * @return how many limits had state and were reset (0: it was idle already)
     * @throws IllegalArgumentException if the name is blank or too long
     * @throws UnsupportedOperationException on Redlock masters, which run no rate limiter
     * @throws BatonUnavailableException if Redis does not answer
     */
    int resetRateLimiter(String name);

    /**
     * Removes every hold of one object, whoever holds it, and wakes its waiters: a plain or fair lock's holder (a
     * fair lock's queue keeps its order), a read-write lock's writer and readers, a semaphore's leases (its total
     * stays), an election's leader (the candidates campaign again). The holders learn at their next renewal that
     * they lost it. The fencing counter stays, so the next holder's token is still higher.
     *
     * @param name the object's name
     * @param kind {@link Kind#LOCK}, {@link Kind#FAIR}, {@link Kind#READ_WRITE}, {@link Kind#SEMAPHORE} or
     *             {@link Kind#ELECTION}
     * @return true if something was held and was removed
     * @throws IllegalArgumentException      if the name is blank or too long, or the kind has no holders (latch,
     *                                       rate limiter: see {@link #resetRateLimiter})
     * @throws UnsupportedOperationException for a kind other than the plain lock and the election on Redlock masters
     * @throws BatonUnavailableException if Redis does not answer
     */
    boolean forceUnlock(String name, Kind kind);
}
