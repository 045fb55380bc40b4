package dev.baton.internal.ratelimit;

import dev.baton.BatonListener;
import dev.baton.BatonUnavailableException;
import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import dev.baton.RateLimiter;
import dev.baton.internal.runtime.BatonRuntime;
import dev.baton.internal.runtime.Require;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link RateLimiter} facade: checks arguments, runs {@code rate-decide.lua} (at most one script call per
 * decision), sleeps out admitted reservations and applies the fail-open choice. The algorithms live in the script;
 * a refusal this limiter already knows of is repeated without asking Redis ({@link KnownRefusal}).
 */
public final class RedisRateLimiter implements RateLimiter {
    private final BatonRuntime runtime;
    private final String name;
    private final List<RateLimit> limits;
    private final RateLimitCall call;
    private final long maxPermits;
    private final boolean failOpen;
    private final KnownRefusal knownRefusal = new KnownRefusal();

    private RedisRateLimiter(BatonRuntime runtime, String name, List<RateLimit> limits, RateLimitCall call,
                             boolean failOpen) {
        this.runtime = runtime;
        this.name = name;
        this.limits = limits;
        this.call = call;
        this.maxPermits = limits.stream().mapToLong(RateLimit::burst).min().orElseThrow();
        this.failOpen = failOpen;
    }

    /** Checks the name and limits; makes no Redis call. */
    public static RateLimiter create(BatonRuntime runtime, String name, RateLimit... limits) {
        Require.lockName(name);
        Objects.requireNonNull(limits, "limits");
        if (limits.length == 0) {
            throw new IllegalArgumentException("limits must not be empty");
        }
        for (int i = 0; i < limits.length; i++) {
            Objects.requireNonNull(limits[i], "limits[" + i + "]");
        }
        runtime.checkOpen();
        if (!runtime.config().redlockMasters().isEmpty()) {
            // Each master would count only the decisions it heard, so a majority's counts could each allow what
            // together is far over the limit; a limiter needs one counter, not a vote (docs/redlock.md).
            throw new UnsupportedOperationException("rate limiter '" + name + "' cannot run on Redlock masters "
                    + "(BatonConfig.redlock): a rate has no meaningful majority over independent counters; use a "
                    + "Baton on one Redis (standalone, Sentinel or Cluster) for rate limits");
        }
        List<RateLimit> list = List.of(limits);
        return new RedisRateLimiter(runtime, name, list, new RateLimitCall(runtime.config().namespace(), name, list),
                false);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<RateLimit> limits() {
        return limits;
    }

    @Override
    public RateLimitDecision tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public RateLimitDecision tryAcquire(long permits) {
        return decideAndWait(true, checkPermits(permits), 0).decision();
    }

    @Override
    public CompletableFuture<RateLimitDecision> tryAcquireAsync(long permits) {
        return decideForUser(true, checkPermits(permits), 0).thenApply(RateLimitCall.Reply::decision);
    }

    @Override
    public RateLimitDecision peek() {
        return peek(1);
    }

    @Override
    public RateLimitDecision peek(long permits) {
        return decideAndWait(false, checkPermits(permits), 0).decision();
    }

    @Override
    public RateLimitDecision tryAcquire(long permits, Duration maxWait) throws InterruptedException {
        long max = maxWaitMicros(maxWait);
        checkPermits(permits);
        if (max > 0 && Thread.interrupted()) {
            throw new InterruptedException("interrupted before reserving permits of rate limiter '" + name + "'");
        }
        RateLimitCall.Reply reply = decideAndWait(true, permits, max);
        if (reply.waitMicros() > 0) {
            // The permits are ours from now on; the sleep only lets their time come. Redis measured the wait a
            // moment before the reply arrived, so sleeping all of it from here errs on the late side.
            TimeUnit.MICROSECONDS.sleep(reply.waitMicros());
        }
        return reply.decision();
    }

    @Override
    public CompletableFuture<RateLimitDecision> tryAcquireAsync(long permits, Duration maxWait) {
        long max = maxWaitMicros(maxWait);
        return decideForUser(true, checkPermits(permits), max).thenCompose(reply -> reply.waitMicros() == 0
                ? CompletableFuture.completedFuture(reply.decision())
                // The JDK's delayer, not the runtime's scheduler: a reservation already made must complete even if
                // this Baton closes meanwhile, and a closing scheduler drops its pending tasks.
                : CompletableFuture.supplyAsync(reply::decision, CompletableFuture.delayedExecutor(
                        reply.waitMicros(), TimeUnit.MICROSECONDS, runtime::completeForUser)));
    }

    @Override
    public RateLimitDecision acquire(long permits, Duration maxWait) throws InterruptedException {
        return grantedOrThrow(tryAcquire(permits, maxWait), permits, maxWait);
    }

    @Override
    public CompletableFuture<RateLimitDecision> acquireAsync(long permits, Duration maxWait) {
        return tryAcquireAsync(permits, maxWait).thenApply(d -> grantedOrThrow(d, permits, maxWait));
    }

    private RateLimitDecision grantedOrThrow(RateLimitDecision decision, long permits, Duration maxWait) {
        if (decision.allowed()) {
            return decision;
        }
        throw new RateLimitExceededException("rate limiter '" + name + "' cannot grant " + permits + " permit"
                + (permits == 1 ? "" : "s") + " within " + maxWait + " (limit " + decision.limit()
                + "; retry after " + decision.retryAfter() + ")", decision);
    }

    @Override
    public RateLimiter failOpen() {
        return failOpen ? this : new RedisRateLimiter(runtime, name, limits, call, true);
    }

    @Override
    public boolean isFailOpen() {
        return failOpen;
    }

    /**
     * One decision for a blocking caller. The reply is read in the caller's thread rather than on Lettuce's event
     * loop, which serves every caller of this Baton and so is kept to I/O.
     */
    private RateLimitCall.Reply decideAndWait(boolean take, long permits, long maxWaitMicros) {
        runtime.checkOpen();
        long sent = runtime.ticker().nanos();
        RateLimitCall.Reply known = knownAnswer(take, permits, maxWaitMicros, sent);
        if (known != null) {
            return decided(known, take);
        }
        List<Object> raw;
        try {
            raw = runtime.gateway().await(send(take, permits, maxWaitMicros), runtime.rateLimitTimeout());
        } catch (BatonUnavailableException e) {
            return decided(unreachable(e), take);
        }
        runtime.outage().answered();
        return decided(read(raw, permits, sent), take);
    }

    /** Tells the listener, if any, about a decision (a peek when not {@code take}), and passes it on. */
    private RateLimitCall.Reply decided(RateLimitCall.Reply reply, boolean take) {
        if (runtime.events().enabled()) {
            RateLimitDecision d = reply.decision();
            runtime.events().emit(l -> l.rateLimitDecided(new BatonListener.RateLimitDecided(name, d, !take)));
        }
        return reply;
    }

    private CompletableFuture<RateLimitCall.Reply> decide(boolean take, long permits, long maxWaitMicros) {
        runtime.checkOpen();
        long sent = runtime.ticker().nanos();
        RateLimitCall.Reply known = knownAnswer(take, permits, maxWaitMicros, sent);
        if (known != null) {
            return CompletableFuture.completedFuture(decided(known, take));
        }
        return runtime.gateway().within(send(take, permits, maxWaitMicros), runtime.rateLimitTimeout())
                .handle((raw, failure) -> {
                    if (failure == null) {
                        runtime.outage().answered();
                        return decided(read(raw, permits, sent), take);
                    }
                    RuntimeException e = runtime.gateway().translate(failure);
                    if (e instanceof BatonUnavailableException u) {
                        return decided(unreachable(u), take);
                    }
                    throw e;
                });
    }

    /**
     * What this limiter can answer without Redis, or null: a refusal it already knows of (only a take can be
     * refused), or, for a fail-open limiter while Redis is known to be unreachable, an unchecked grant.
     */
    private RateLimitCall.Reply knownAnswer(boolean take, long permits, long maxWaitMicros, long sent) {
        RateLimitDecision known = take ? knownRefusal.answer(permits, maxWaitMicros * 1000, sent) : null;
        if (known != null) {
            return new RateLimitCall.Reply(known, 0);
        }
        return failOpen && runtime.outage().isDown() ? grantedUnchecked() : null;
    }

    /** Redis could not be asked: the fail-open grant, or the exception for a fail-closed limiter. */
    private RateLimitCall.Reply unreachable(BatonUnavailableException e) {
        runtime.outage().unreachable(e, failOpen);
        if (failOpen) {
            return grantedUnchecked();
        }
        throw e;
    }

    private RateLimitCall.Reply grantedUnchecked() {
        runtime.outage().grantedUnchecked();
        return new RateLimitCall.Reply(call.failedOpen(), 0);
    }

    private CompletableFuture<List<Object>> send(boolean take, long permits, long maxWaitMicros) {
        return call.send(runtime.gateway(), take, permits, maxWaitMicros);
    }

    private RateLimitCall.Reply read(List<Object> raw, long permits, long sent) {
        RateLimitCall.Reply parsed = call.parse(raw);
        if (!parsed.decision().allowed()) { // only a refusal is remembered: a grant needs no second clock read
            knownRefusal.learn(permits, sent, runtime.ticker().nanos(), parsed.decision());
        }
        return parsed;
    }

    /** As {@link #decide}, but completed off Lettuce's event loop, where user callbacks must not run. */
    private CompletableFuture<RateLimitCall.Reply> decideForUser(boolean take, long permits, long maxWaitMicros) {
        return decide(take, permits, maxWaitMicros).whenCompleteAsync((r, e) -> { }, runtime::completeForUser);
    }

    private long checkPermits(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        if (permits > maxPermits) {
            throw new IllegalArgumentException("permits must be at most the smallest burst of rate limiter '" + name
                    + "' (" + maxPermits + "), or the request could never pass: " + permits);
        }
        return permits;
    }

    private static long maxWaitMicros(Duration maxWait) {
        Require.notNegative(maxWait, "maxWait");
        // Anything beyond a century is "forever" for a reservation; keeps the script's arithmetic finite.
        return maxWait.getSeconds() >= 3_153_600_000L ? 3_153_600_000L * 1_000_000 : RateLimitCall.micros(maxWait);
    }

    @Override
    public String toString() {
        return "RateLimiter{" + name + ", " + limits + (failOpen ? ", fail-open" : "") + "}";
    }
}
