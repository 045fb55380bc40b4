package dev.baton.spring.actuate;

import dev.baton.Baton;
import dev.baton.HeldLock;
import dev.baton.LockInfo;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimiter;
import dev.baton.spring.RateLimiterRegistry;
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
 *   <li>{@code /actuator/baton}: the locks this instance holds now ({@link Baton#heldLocks()}, no Redis call), and
 *       the rate limiters the {@link RateLimiterRegistry} knows;</li>
 *   <li>{@code /actuator/baton/locks/{name}}: any lock by name, as Redis sees it ({@link Baton#inspect});</li>
 *   <li>{@code /actuator/baton/limiters/{name}}: a rate limiter the registry knows, peeked (no permit is charged);
 *       404 when the registry does not know it, or there is no registry.</li>
 * </ul>
 * Nothing it answers holds a secret. Thread-safe.
 */
@Endpoint(id = "baton")
public class BatonEndpoint {
    private final Baton baton;
    private final ObjectProvider<RateLimiterRegistry> limiters;

    /**
     * @param baton    the Baton to report on
     * @param limiters the application's limiter registry, if it has one
     * @throws NullPointerException if an argument is null
     */
    public BatonEndpoint(Baton baton, ObjectProvider<RateLimiterRegistry> limiters) {
        this.baton = Objects.requireNonNull(baton, "baton");
        this.limiters = Objects.requireNonNull(limiters, "limiters");
    }

    /**
     * What this instance holds and knows.
     *
     * @return this instance's id, its held locks and the limiter names of the registry
     */
    @ReadOperation
    public BatonReport report() {
        RateLimiterRegistry registry = limiters.getIfAvailable();
        List<String> names = registry == null ? List.of() : registry.names().stream().sorted().toList();
        return new BatonReport(baton.instanceId(), baton.config().namespace(),
                baton.heldLocks().stream().map(BatonEndpoint::describe).toList(), names);
    }

    /**
     * One lock or one limiter by name.
     *
     * @param kind {@code locks} or {@code limiters}
     * @param name the lock's or limiter's name
     * @return a {@link LockDescriptor} or a {@link LimiterDescriptor}; null (404) for an unknown kind or limiter
     */
    @ReadOperation
    public Object inspect(@Selector String kind, @Selector String name) {
        return switch (kind) {
            case "locks" -> describe(baton.inspect(name));
            case "limiters" -> limiter(name).map(BatonEndpoint::describe).orElse(null);
            default -> null;
        };
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
                info.holder().map(h -> new LockDescriptor.Holder(h.batonInstance(), h.host(), h.pid(), h.thread(),
                        h.leaseOwned(), h.holdCount(), h.remainingLease().toMillis(), h.fencingToken())).orElse(null));
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
     */
    public record BatonReport(String instance, String namespace, List<HeldLockDescriptor> heldLocks,
                              List<String> rateLimiters) {
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
     * A lock as Redis sees it.
     *
     * @param name             the lock's name
     * @param locked           whether anybody holds it
     * @param holders          how many owners hold it
     * @param lastFencingToken the last fencing token issued, 0 if none is remembered
     * @param holder           the holder, or null
     */
    public record LockDescriptor(String name, boolean locked, int holders, long lastFencingToken, Holder holder) {

        /**
         * The holder of a lock.
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
        public record Holder(String instance, String host, long pid, String thread, boolean leaseOwned, int holdCount,
                             long remainingLeaseMillis, long fencingToken) {
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
