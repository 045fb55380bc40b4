package dev.baton.spring.metrics;

import dev.baton.BatonListener;
import dev.baton.LockType;
import dev.baton.RateLimitDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

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
 *       {@code refused} or {@code failed-open}): rate-limit decisions; peeks are not counted.</li>
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

    private final MeterRegistry registry;
    private final NameTags names;

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
