package dev.baton.spring.actuate;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.HeldLock;
import dev.baton.LeaderInfo;
import dev.baton.Leadership;
import dev.baton.LockInfo;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimiter;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.election.ElectionCandidates;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code baton} Actuator endpoint, read-only:
 * <ul>
 *   <li>{@code /actuator/baton}: the locks this instance holds now ({@link Baton#heldLocks()}, no Redis call), the
 *       rate limiters the {@link RateLimiterRegistry} knows, and the elections declared under {@code baton.elections}:
 *       whether this instance campaigns and leads, and who leads as Redis sees it ({@code LeaderElection.leader()},
 *       one read per election; when Redis does not answer, {@code leader} is null and {@code error} says why);</li>
 *   <li>{@code /actuator/baton/locks/{name}}: whatever is held under a name, as Redis sees it ({@link Baton#inspect}):
 *       the plain lock, the fair lock, the read-write lock or the semaphore of that name, with its kind, every
 *       holder, its waiters and permits, and any other kind held under the same name;</li>
 *   <li>{@code /actuator/baton/limiters/{name}}: a rate limiter the registry knows, peeked (no permit is charged);
 *       404 when the registry does not know it, or there is no registry;</li>
 *   <li>{@code /actuator/baton/elections/{name}}: one declared election, as in the report; 404 when it is not
 *       declared.</li>
 * </ul>
 * Nothing it answers holds a secret. Thread-safe.
 */
@Endpoint(id = "baton")
public class BatonEndpoint {
    private final Baton baton;
    private final ObjectProvider<RateLimiterRegistry> limiters;
    private final ObjectProvider<ElectionCandidates> elections;

    /**
     * An endpoint that reports no elections.
     *
     * @param baton    the Baton to report on
     * @param limiters the application's limiter registry, if it has one
     * @throws NullPointerException if an argument is null
     */
    public BatonEndpoint(Baton baton, ObjectProvider<RateLimiterRegistry> limiters) {
        this(baton, limiters, null);
    }

    /**
     * @param baton     the Baton to report on
     * @param limiters  the application's limiter registry, if it has one
     * @param elections the declared elections, if the context has them; null reports none
     * @throws NullPointerException if {@code baton} or {@code limiters} is null
     */
    public BatonEndpoint(Baton baton, ObjectProvider<RateLimiterRegistry> limiters,
                         ObjectProvider<ElectionCandidates> elections) {
        this.baton = Objects.requireNonNull(baton, "baton");
        this.limiters = Objects.requireNonNull(limiters, "limiters");
        this.elections = elections;
    }

    /**
     * What this instance holds and knows.
     *
     * @return this instance's id, its held locks, the limiter names of the registry and the declared elections
     */
    @ReadOperation
    public BatonReport report() {
        RateLimiterRegistry registry = limiters.getIfAvailable();
        List<String> names = registry == null ? List.of() : registry.names().stream().sorted().toList();
        ElectionCandidates candidates = candidates();
        List<ElectionDescriptor> declared = candidates == null ? List.of()
                : candidates.names().stream().map(name -> describe(candidates, name)).toList();
        return new BatonReport(baton.instanceId(), baton.config().namespace(),
                baton.heldLocks().stream().map(BatonEndpoint::describe).toList(), names, declared);
    }

    /**
     * One lock or one limiter by name.
     *
     * @param kind {@code locks}, {@code limiters} or {@code elections}
     * @param name the lock's, limiter's or election's name
     * @return a {@link LockDescriptor}, a {@link LimiterDescriptor} or an {@link ElectionDescriptor}; null (404) for
     *         an unknown kind, limiter or election
     */
    @ReadOperation
    public Object inspect(@Selector String kind, @Selector String name) {
        return switch (kind) {
            case "locks" -> describe(baton.inspect(name));
            case "limiters" -> limiter(name).map(BatonEndpoint::describe).orElse(null);
            case "elections" -> election(name);
            default -> null;
        };
    }

    private ElectionCandidates candidates() {
        return elections == null ? null : elections.getIfUnique();
    }

    private ElectionDescriptor election(String name) {
        ElectionCandidates candidates = candidates();
        return candidates == null || !candidates.names().contains(name) ? null : describe(candidates, name);
    }

    private static ElectionDescriptor describe(ElectionCandidates candidates, String name) {
        Optional<Leadership> mine = candidates.leadership(name);
        LeaderDescriptor leader = null;
        String error = null;
        try {
            leader = candidates.election(name).leader().map(BatonEndpoint::describe).orElse(null);
        } catch (BatonException e) { // the report still shows what this instance knows itself
            error = e.getMessage();
        }
        return new ElectionDescriptor(name, candidates.isCandidate(name), mine.isPresent(),
                mine.map(Leadership::epoch).orElse(null), leader, error);
    }

    private static LeaderDescriptor describe(LeaderInfo info) {
        return new LeaderDescriptor(info.instance(), info.host(), info.pid(), info.since().toString(), info.epoch());
    }

    private Optional<RateLimiter> limiter(String name) {
        RateLimiterRegistry registry = limiters.getIfAvailable();
        return registry == null ? Optional.empty() : registry.find(name);
    }

    private static HeldLockDescriptor describe(HeldLock lock) {
        return new HeldLockDescriptor(lock.name(), lock.type().name(), lock.fencingToken(), lock.holdCount(),
                lock.thread(), lock.leaseOwned(), lock.since().toString(), lock.remainingLease().toMillis(),
                lock.watchdog());
    }

    private static LockDescriptor describe(LockInfo info) {
        return new LockDescriptor(info.name(), info.isLocked(), info.holders(), info.lastFencingToken(),
                info.holder().map(BatonEndpoint::describe).orElse(null), info.kind().name(),
                info.allHolders().stream().map(BatonEndpoint::describe).toList(), info.waiting(), info.permits(),
                info.availablePermits(), info.otherKinds().stream().map(BatonEndpoint::describe).toList());
    }

    private static LockDescriptor.Holder describe(LockInfo.Holder h) {
        return new LockDescriptor.Holder(h.batonInstance(), h.host(), h.pid(), h.thread(), h.leaseOwned(),
                h.holdCount(), h.remainingLease().toMillis(), h.fencingToken(), h.kind().name(), h.permits());
    }

    private static LimiterDescriptor describe(RateLimiter limiter) {
        RateLimitDecision peek = limiter.peek();
        return new LimiterDescriptor(limiter.name(), limiter.limits().stream().map(Object::toString).toList(),
                limiter.isFailOpen(), peek.allowed(), peek.remaining(), peek.retryAfter().toMillis(),
                peek.resetAfter().toMillis(), peek.failedOpen());
    }

    /**
     * The endpoint's main report.
     *
     * @param instance   this Baton's instance id ({@link Baton#instanceId()})
     * @param namespace  the key namespace
     * @param heldLocks  the locks held now
     * @param rateLimiters the names of the limiters the registry holds
     * @param elections  the elections declared under {@code baton.elections}, in declaration order
     */
    public record BatonReport(String instance, String namespace, List<HeldLockDescriptor> heldLocks,
                              List<String> rateLimiters, List<ElectionDescriptor> elections) {

        /**
         * A report without elections, as reports were before they listed them.
         *
         * @param instance     this Baton's instance id
         * @param namespace    the key namespace
         * @param heldLocks    the locks held now
         * @param rateLimiters the names of the limiters the registry holds
         */
        public BatonReport(String instance, String namespace, List<HeldLockDescriptor> heldLocks,
                           List<String> rateLimiters) {
            this(instance, namespace, heldLocks, rateLimiters, List.of());
        }
    }

    /**
     * A declared election, as JSON-friendly values.
     *
     * @param name      the election's name
     * @param candidate whether this instance campaigns in it ({@code baton.elections.NAME.enabled})
     * @param leading   whether this instance leads it now, as it knows without asking Redis
     * @param epoch     this instance's leadership epoch while it leads, else null
     * @param leader    who leads, as Redis sees it; null when nobody leads or Redis did not answer
     * @param error     why Redis could not be asked, or null
     */
    public record ElectionDescriptor(String name, boolean candidate, boolean leading, Long epoch,
                                     LeaderDescriptor leader, String error) {
    }

    /**
     * The leader of an election ({@code LeaderInfo}).
     *
     * @param instance the leader's Baton instance id
     * @param host     its host
     * @param pid      its process id
     * @param since    when its leadership began, by the Redis clock, ISO-8601
     * @param epoch    its leadership's epoch
     */
    public record LeaderDescriptor(String instance, String host, long pid, String since, long epoch) {
    }

    /**
     * A held lock, as JSON-friendly values.
     *
     * @param name                 the lock's name
     * @param type                 LOCK, FAIR, READ, WRITE or SEMAPHORE
     * @param fencingToken         the hold's fencing token
     * @param holdCount            the reentrant hold count
     * @param thread               the thread that acquired it
     * @param leaseOwned           whether a lease (rather than the thread) owns it
     * @param since                when it was acquired, ISO-8601
     * @param remainingLeaseMillis the lease left by this process's estimate
     * @param watchdog             whether the watchdog renews it
     */
    public record HeldLockDescriptor(String name, String type, long fencingToken, int holdCount, String thread,
                                     boolean leaseOwned, String since, long remainingLeaseMillis, boolean watchdog) {
    }

    /**
     * What Redis holds under a name, as JSON-friendly values ({@link LockInfo}): the first object found held, and the
     * others in {@code otherKinds}.
     *
     * @param name             the name
     * @param locked           whether anybody holds anything described here (this object or another kind)
     * @param holders          how many holds this object has: 0 or 1 for a plain or fair lock, the writer and each
     *                         reader of a read-write lock, each live lease of a semaphore
     * @param lastFencingToken the last fencing token issued for this object, 0 if none is remembered
     * @param holder           the first of {@code allHolders}, or null
     * @param kind             LOCK, FAIR, READ (a read-write lock held by readers only), WRITE (held by a writer) or
     *                         SEMAPHORE; LOCK when nothing is held under the name
     * @param allHolders       every holder: a read-write lock's writer before its readers
     * @param waiting          waiters that keep a place in Redis: a fair lock's or a semaphore's queue, the writers
     *                         waiting for a read-write lock; 0 for a plain lock
     * @param permits          a semaphore's total, 0 for other kinds
     * @param availablePermits a semaphore's permits that no live lease holds, 0 for other kinds
     * @param otherKinds       the other objects found held or waited for under the same name
     */
    public record LockDescriptor(String name, boolean locked, int holders, long lastFencingToken, Holder holder,
                                 String kind, List<Holder> allHolders, int waiting, int permits, int availablePermits,
                                 List<LockDescriptor> otherKinds) {

        /**
         * Copies the lists.
         *
         * @param name             the name
         * @param locked           whether anybody holds anything described here
         * @param holders          how many holds this object has
         * @param lastFencingToken the last fencing token issued for this object
         * @param holder           the first holder, or null
         * @param kind             the kind of this object
         * @param allHolders       every holder
         * @param waiting          waiters that keep a place in Redis
         * @param permits          a semaphore's total
         * @param availablePermits a semaphore's free permits
         * @param otherKinds       the other objects under the same name
         */
        public LockDescriptor {
            allHolders = List.copyOf(allHolders);
            otherKinds = List.copyOf(otherKinds);
        }

        /**
         * A plain lock with at most one holder known, as lock descriptors were before they said their kind.
         *
         * @param name             the lock's name
         * @param locked           whether anybody holds it
         * @param holders          how many owners hold it
         * @param lastFencingToken the last fencing token issued, 0 if none is remembered
         * @param holder           the holder, or null
         */
        public LockDescriptor(String name, boolean locked, int holders, long lastFencingToken, Holder holder) {
            this(name, locked, holders, lastFencingToken, holder, "LOCK", holder == null ? List.of() : List.of(holder),
                    0, 0, 0, List.of());
        }

        /**
         * One holder.
         *
         * @param instance             the holding Baton's instance id
         * @param host                 its host
         * @param pid                  its process id
         * @param thread               the thread that acquired it
         * @param leaseOwned           whether a lease owns it
         * @param holdCount            the reentrant hold count
         * @param remainingLeaseMillis the lease left in Redis
         * @param fencingToken         the hold's fencing token
         * @param kind                 what it holds: LOCK, FAIR, READ, WRITE or SEMAPHORE
         * @param permits              the permits it holds: a semaphore lease's, 1 for other kinds
         */
        public record Holder(String instance, String host, long pid, String thread, boolean leaseOwned, int holdCount,
                             long remainingLeaseMillis, long fencingToken, String kind, int permits) {

            /**
             * The holder of a plain lock, as holders were described before they said their kind.
             *
             * @param instance             the holding Baton's instance id
             * @param host                 its host
             * @param pid                  its process id
             * @param thread               the thread that acquired it
             * @param leaseOwned           whether a lease owns it
             * @param holdCount            the reentrant hold count
             * @param remainingLeaseMillis the lease left in Redis
             * @param fencingToken         the hold's fencing token
             */
            public Holder(String instance, String host, long pid, String thread, boolean leaseOwned, int holdCount,
                          long remainingLeaseMillis, long fencingToken) {
                this(instance, host, pid, thread, leaseOwned, holdCount, remainingLeaseMillis, fencingToken, "LOCK",
                        1);
            }
        }
    }

    /**
     * A rate limiter and what it would answer now.
     *
     * @param name            the limiter's name
     * @param limits          its limits
     * @param failOpen        whether it grants unchecked when Redis cannot answer
     * @param allowed         whether one permit would be granted now
     * @param remaining       permits left after that one
     * @param retryAfterMillis when refused, how long until one permit can be had
     * @param resetAfterMillis how long until every limit is full again
     * @param failedOpen      whether the peek itself failed open (Redis did not answer)
     */
    public record LimiterDescriptor(String name, List<String> limits, boolean failOpen, boolean allowed,
                                    long remaining, long retryAfterMillis, long resetAfterMillis,
                                    boolean failedOpen) {
    }
}
