package dev.baton.spring.metrics;

import dev.baton.BatonListener;
import dev.baton.LockType;
import dev.baton.RateLimitDecision;
import dev.baton.RevocationReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records Baton's events as Micrometer meters. Every lock meter is tagged {@code name} (the lock's name, or
 * {@code other} beyond {@code baton.metrics.max-names} distinct names) and {@code type} ({@code lock}, {@code fair},
 * {@code read}, {@code write}, {@code semaphore}):
 * <ul>
 *   <li>{@value #LOCK_WAIT} (timer, tagged {@code outcome} {@code acquired} or {@code timed-out}): how long callers
 *       waited for a lock, re-entries included;</li>
 *   <li>{@value #LOCK_HELD} (timer): how long holds lasted, from grant to release or local handover;</li>
 *   <li>{@value #LOCK_ACQUIRED}, {@value #LOCK_TIMEOUTS}, {@value #LOCK_LOST} (counters): acquisitions, waits that
 *       ended without the lock (a failed {@code tryLock()} included), holds lost while held;</li>
 *   <li>{@value #RENEWAL_FAILURES} (counter, no tags): watchdog renewal rounds that could not reach Redis;</li>
 *   <li>{@value #RATE_LIMIT_DECISIONS} (counter, tagged {@code name} and {@code outcome} {@code allowed},
 *       {@code refused} or {@code failed-open}): rate-limit decisions; peeks are not counted;</li>
 *   <li>{@value #ELECTION_CHANGES} (counter, tagged {@code name}, {@code outcome} {@code elected} or
 *       {@code revoked}, and {@code reason}: {@code none} for {@code elected}, else the
 *       {@link RevocationReason} in lower case, {@code resigned}, {@code closed}, {@code lost} or
 *       {@code unavailable}): leaderships this Baton won and lost, in any election (declared by property or not);</li>
 *   <li>{@value #ELECTION_LEADERSHIP} (timer, tagged {@code name} and {@code reason}): how long each ended leadership
 *       lasted, recorded when it ends;</li>
 *   <li>{@value #ELECTION_LEADER} (gauge, tagged {@code name}): 1 while this Baton leads the election, 0 otherwise
 *       (registered at its first leadership; elections beyond the name limit share the {@code other} gauge, which
 *       then counts their leaderships).</li>
 * </ul>
 * Baton delivers events on its own single thread, never in the caller's path; this listener is thread-safe anyway.
 */
public final class MicrometerBatonListener implements BatonListener {
    /** Timer of lock waits. */
    public static final String LOCK_WAIT = "baton.lock.wait";
    /** Timer of lock holds. */
    public static final String LOCK_HELD = "baton.lock.held";
    /** Counter of acquisitions. */
    public static final String LOCK_ACQUIRED = "baton.lock.acquired";
    /** Counter of waits that ended without the lock. */
    public static final String LOCK_TIMEOUTS = "baton.lock.timeouts";
    /** Counter of holds lost while held. */
    public static final String LOCK_LOST = "baton.lock.lost";
    /** Counter of failed watchdog renewal rounds. */
    public static final String RENEWAL_FAILURES = "baton.lock.renewal.failures";
    /** Counter of rate-limit decisions. */
    public static final String RATE_LIMIT_DECISIONS = "baton.ratelimit.decisions";
    /** Counter of leaderships won and lost. */
    public static final String ELECTION_CHANGES = "baton.election.changes";
    /** Timer of ended leaderships. */
    public static final String ELECTION_LEADERSHIP = "baton.election.leadership";
    /** Gauge of whether this Baton leads. */
    public static final String ELECTION_LEADER = "baton.election.leader";

    private final MeterRegistry registry;
    private final NameTags names;
    /** The leaderships held now, per election tag; the gauges read them (and keep them referenced). */
    private final Map<String, AtomicInteger> leading = new ConcurrentHashMap<>();

    /**
     * @param registry where to record
     * @param maxNames how many distinct lock and limiter names get a tag value of their own, at least 0
     * @throws IllegalArgumentException if {@code maxNames} is negative
     * @throws NullPointerException     if {@code registry} is null
     */
    public MicrometerBatonListener(MeterRegistry registry, int maxNames) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.names = new NameTags(maxNames);
    }

    @Override
    public void lockAcquired(LockAcquired event) {
        waitEnded(event.lock(), event.type(), "acquired", event.waited(), LOCK_ACQUIRED);
    }

    @Override
    public void lockTimedOut(LockTimedOut event) {
        waitEnded(event.lock(), event.type(), "timed-out", event.waited(), LOCK_TIMEOUTS);
    }

    @Override
    public void lockReleased(LockReleased event) {
        held(event.lock(), event.type(), event.held());
    }

    @Override
    public void lockHandedOver(LockHandedOver event) {
        held(event.lock(), event.type(), event.held());
    }

    @Override
    public void leaseLost(LeaseLost event) {
        counter(LOCK_LOST, names.tag(event.lock()), tag(event.type())).increment();
    }

    @Override
    public void renewalFailed(RenewalFailed event) {
        Counter.builder(RENEWAL_FAILURES).description("Watchdog renewal rounds that could not reach Redis")
                .register(registry).increment();
    }

    @Override
    public void rateLimitDecided(RateLimitDecided event) {
        if (event.peek()) {
            return; // a look at the quota, not a decision
        }
        RateLimitDecision decision = event.decision();
        String outcome = decision.failedOpen() ? "failed-open" : decision.allowed() ? "allowed" : "refused";
        Counter.builder(RATE_LIMIT_DECISIONS).description("Rate-limit decisions by outcome")
                .tag("name", names.tag(event.limiter())).tag("outcome", outcome).register(registry).increment();
    }

    @Override
    public void leaderElected(LeaderElected event) {
        String name = names.tag(event.election());
        leadershipChanged(name, "elected", "none");
        leading(name).incrementAndGet();
    }

    @Override
    public void leaderRevoked(LeaderRevoked event) {
        String name = names.tag(event.election());
        String reason = event.reason().name().toLowerCase(Locale.ROOT);
        leading(name).updateAndGet(n -> Math.max(0, n - 1));
        leadershipChanged(name, "revoked", reason);
        Timer.builder(ELECTION_LEADERSHIP).description("How long leaderships of this instance lasted")
                .tag("name", name).tag("reason", reason).register(registry).record(event.led());
    }

    private void leadershipChanged(String name, String outcome, String reason) {
        Counter.builder(ELECTION_CHANGES).description("Leaderships this instance won and lost")
                .tag("name", name).tag("outcome", outcome).tag("reason", reason).register(registry).increment();
    }

    /** The count behind an election's gauge, registering the gauge the first time. */
    private AtomicInteger leading(String name) {
        return leading.computeIfAbsent(name, n -> {
            AtomicInteger count = new AtomicInteger();
            Gauge.builder(ELECTION_LEADER, count, AtomicInteger::get).description("1 while this instance leads")
                    .tag("name", n).strongReference(true).register(registry);
            return count;
        });
    }

    /** A wait ended one way or the other: its time goes to the wait timer, and the outcome's counter counts it. */
    private void waitEnded(String lock, LockType lockType, String outcome, Duration waited, String counter) {
        String name = names.tag(lock);
        String type = tag(lockType);
        Timer.builder(LOCK_WAIT).description("Time callers waited for a lock")
                .tag("name", name).tag("type", type).tag("outcome", outcome).register(registry).record(waited);
        counter(counter, name, type).increment();
    }

    private void held(String lock, LockType type, Duration held) {
        Timer.builder(LOCK_HELD).description("Time locks were held, from grant to release")
                .tag("name", names.tag(lock)).tag("type", tag(type)).register(registry).record(held);
    }

    private Counter counter(String meter, String name, String type) {
        return Counter.builder(meter).tag("name", name).tag("type", type).register(registry);
    }

    private static String tag(LockType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }
}
