package dev.baton.internal.runtime;

import dev.baton.BatonUnavailableException;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one Baton knows its Redis to be unreachable right now, so that fail-open rate limiters answer at once during
 * an outage instead of each decision waiting out the rate-limit timeout (a frozen Redis or a silent network would
 * otherwise stall every request of a service by that much).
 *
 * <p>The rule: a decision that finds Redis unreachable (no connection, or no answer within the timeout) starts an
 * outage. While it lasts, fail-open limiters grant without asking Redis. A probe, one {@code PING} at a time with the
 * same timeout, repeated every {@link #PROBE_INTERVAL}, ends the outage as soon as Redis answers it; so does any
 * decision that gets an answer. Fail-closed limiters are not affected: they keep asking Redis, and throw.
 *
 * <p>It logs a warning when an outage starts, and the end at INFO. Fail-open grants are spoken of only when a
 * fail-open limiter has granted unchecked during this outage: then a warning says so (in the outage's first line, if
 * the decision that found Redis unreachable was fail-open), and the end says how many were granted. An application
 * without fail-open limiters, or whose fail-open limiters were not called meanwhile, is never told that requests
 * passed unchecked.
 */
public final class KnownOutage {
    /** How often a probe asks whether Redis is back: bounds how long unchecked grants outlive an outage. */
    static final Duration PROBE_INTERVAL = Duration.ofMillis(250);

    private static final Logger log = LoggerFactory.getLogger(KnownOutage.class);

    private final Transport gateway;
    private final BatonRuntime runtime;
    private final Duration probeTimeout;
    private final AtomicBoolean down = new AtomicBoolean();
    /** Whether this outage's log already says that fail-open limiters grant unchecked; cleared when it ends. */
    private final AtomicBoolean failOpenAnnounced = new AtomicBoolean();
    private final LongAdder grantedUnchecked = new LongAdder();

    public KnownOutage(Transport gateway, BatonRuntime runtime, Duration probeTimeout) {
        this.gateway = gateway;
        this.runtime = runtime;
        this.probeTimeout = probeTimeout;
    }

    /** Whether an outage is known: fail-open decisions are then granted without asking Redis. */
    public boolean isDown() {
        return down.get();
    }

    /**
     * Counts a decision granted without Redis, for the log line that ends the outage; the first of an outage whose
     * start did not say so logs that fail-open limiters now grant unchecked.
     */
    public void grantedUnchecked() {
        grantedUnchecked.increment();
        if (down.get() && failOpenAnnounced.compareAndSet(false, true)) {
            log.warn("Redis at {} is unreachable: fail-open rate limiters grant without checking until it answers "
                    + "again", gateway.endpoint());
        }
    }

    /**
     * A decision found Redis unreachable: starts an outage, unless one is known already.
     *
     * @param failOpen whether that decision's limiter fails open (and so is about to grant unchecked)
     */
    public void unreachable(BatonUnavailableException e, boolean failOpen) {
        if (down.compareAndSet(false, true)) {
            if (failOpen) {
                failOpenAnnounced.set(true); // the grant that follows need not say it again
                log.warn("{}: fail-open rate limiters grant without checking until it answers again",
                        e.getMessage());
            } else {
                log.warn("{}: rate limit decisions cannot be checked until it answers again", e.getMessage());
            }
            scheduleProbe();
        }
    }

    /** Redis answered: ends a known outage. Costs one volatile read when there is none (every decision calls it). */
    public void answered() {
        if (down.get() && down.compareAndSet(true, false)) {
            boolean announced = failOpenAnnounced.getAndSet(false);
            long unchecked = grantedUnchecked.sumThenReset();
            if (announced || unchecked > 0) {
                log.info("Redis at {} answers again: rate limiters check with it again ({} fail-open decisions "
                        + "were granted unchecked meanwhile)", gateway.endpoint(), unchecked);
            } else {
                log.info("Redis at {} answers again: rate limiters check with it again", gateway.endpoint());
            }
        }
    }

    private void scheduleProbe() {
        runtime.schedule(this::probe, PROBE_INTERVAL.toNanos()); // null once closed: the probes end with the Baton
    }

    private void probe() {
        if (!down.get() || runtime.isClosed()) {
            return;
        }
        gateway.ping().orTimeout(probeTimeout.toNanos(), TimeUnit.NANOSECONDS).whenComplete((pong, e) -> {
            if (e == null) {
                answered();
            } else {
                log.debug("probe of Redis at {} failed: {}", gateway.endpoint(), e.toString());
                scheduleProbe();
            }
        });
    }
}
