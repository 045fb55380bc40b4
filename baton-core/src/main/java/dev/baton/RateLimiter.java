package dev.baton;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A rate limiter shared by every process that uses the same name on the same Redis: get one with
 * {@link Baton#rateLimiter(String, RateLimit...)}.
 *
 * <pre>{@code
 * RateLimiter api = baton.rateLimiter("api:" + customerId,
 *         RateLimit.builder(100, Duration.ofSeconds(1)).burst(200).build(),   // 100/s, bursts of 200
 *         RateLimit.of(10_000, Duration.ofHours(1)));                         // and 10,000 an hour
 * RateLimitDecision d = api.tryAcquire();
 * if (!d.allowed()) {
 *     response.setStatus(429);
 *     response.setHeader("Retry-After", Long.toString(d.retryAfterSeconds()));
 * }
 * }</pre>
 *
 * <p><b>Guarantees.</b> Every decision is one Lua script run on Redis: all limits are checked and, only if every
 * one of them admits the request, all are charged (all or nothing). Time comes from the Redis server's clock
 * ({@code TIME}), never from the callers', so clients with skewed clocks agree; arithmetic is in integer
 * microseconds. Each limit keeps its state in its own small key, which expires by itself once the limit is back
 * to full, so idle limiters cost no memory. How exact each {@link RateLimit.Algorithm} is: {@code docs/rate-limiting.md}.
 *
 * <p><b>Configuration changes.</b> Limits are stored by their position in the limiter's list and their algorithm.
 * Calling with another rate, period or burst at the same position keeps the state: permits already spent stay
 * spent and are replenished at the new rate. Changing a limit's algorithm starts that limit afresh (the old state
 * expires by itself). Processes that use different limits for one name at the same time each apply their own.
 *
 * <p><b>When Redis fails.</b> By default a decision that cannot reach Redis within
 * {@link BatonConfig#rateLimitTimeout()} (500 ms unless configured) throws {@link BatonUnavailableException} (fail
 * closed). A limiter from {@link #failOpen()} instead grants the permits with {@link RateLimitDecision#failedOpen()}
 * set; once a decision of its {@code Baton} has found Redis unreachable, fail-open limiters grant at once, without
 * waiting, until a probe sees Redis answer again (one {@code PING} every 250 ms). A Redis that
 * restarts without persistence has forgotten every limiter: they start full again. A decision that timed out had
 * already been sent, so a Redis that was only slow may still apply it later: those permits may be counted although
 * the caller got an exception (or a fail-open grant).
 *
 * <p><b>Exhausted limiters cost Redis little.</b> Once Redis has refused this object a request, it refuses further
 * requests for as many permits or more itself, until that refusal's {@code retryAfter} has passed (at most 1 s), with
 * {@code retryAfter} counting down. An exhausted hot limiter then costs Redis one script per retry interval per
 * process instead of one per request. Nothing is granted without Redis. The price: a limit raised by another process
 * (or keys deleted by an operator) is noticed up to 1 s late. {@link #peek} always asks Redis. Keep one limiter
 * object per name and limits, and share it between threads, to benefit.
 *
 * <p>Invalid arguments (permits below 1, or above the smallest burst of the limiter) throw
 * {@link IllegalArgumentException} before any Redis call. Thread-safe; cheap to create (no Redis call).
 */
public interface RateLimiter {

    /**
     * The name given to {@link Baton#rateLimiter(String, RateLimit...)}.
     *
     * @return the name
     */
    String name();

    /**
     * The limits, in the order given.
     *
     * @return an immutable list, never empty
     */
    List<RateLimit> limits();

    /**
     * {@code tryAcquire(1)}.
     *
     * @return the decision
     * @throws BatonUnavailableException if Redis cannot be reached within {@link BatonConfig#rateLimitTimeout()}
     *                                   (unless the limiter fails open)
     */
    RateLimitDecision tryAcquire();

    /**
     * Takes {@code permits} if every limit admits them now, and charges nothing otherwise. Never waits beyond
     * one Redis round trip.
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @return the decision: allowed if the permits were taken
     * @throws IllegalArgumentException if {@code permits} is below 1 or above the smallest burst
     * @throws BatonUnavailableException if Redis cannot be reached (unless the limiter fails open)
     */
    RateLimitDecision tryAcquire(long permits);

    /**
     * {@link #tryAcquire(long)} without blocking the caller. Its failures are those of the blocking call; its
     * callbacks run on a Baton thread, never on the Redis client's event loop.
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @return the future decision
     */
    CompletableFuture<RateLimitDecision> tryAcquireAsync(long permits);

    /**
     * {@code peek(1)}.
     *
     * @return what {@link #tryAcquire()} would answer now
     * @throws BatonUnavailableException if Redis cannot be reached within {@link BatonConfig#rateLimitTimeout()}
     *                                   (unless the limiter fails open)
     */
    RateLimitDecision peek();

    /**
     * What {@link #tryAcquire(long)} would answer now, without taking anything: for showing quota to a user or
     * deciding whether to start expensive work. Like a refused request, a peek may tidy the limiter's keys
     * (drop expired entries, store a state converted to a changed limit); it never charges a permit.
     *
     * @param permits how many to ask about, from 1 to the smallest burst of the limiter
     * @return what {@link #tryAcquire(long)} would answer now
     * @throws IllegalArgumentException  if {@code permits} is out of range
     * @throws BatonUnavailableException if Redis cannot be reached within {@link BatonConfig#rateLimitTimeout()}
     *                                   (unless the limiter fails open)
     */
    RateLimitDecision peek(long permits);

    /**
     * Takes {@code permits}, waiting up to {@code maxWait} for them, and answers whether it got them. The permits are
     * reserved in Redis at once, in the same script that checks the limits, and the caller then sleeps until they are
     * due: there is no polling and no race with other callers while it sleeps. If they cannot be due within
     * {@code maxWait}, nothing is reserved and the refusal returns at once (its {@link RateLimitDecision#retryAfter()}
     * says when they would be). A zero {@code maxWait} is {@link #tryAcquire(long)}.
     *
     * <p>A thread already interrupted when it calls (with a positive {@code maxWait}) gets
     * {@link InterruptedException} and reserves nothing. If it is interrupted while it sleeps, the permits stay
     * reserved (they are spent) and {@link InterruptedException} is thrown.
     *
     * <p>With several limits, the permits are due when the slowest limit admits them, and every limit is charged
     * for that moment. A {@link RateLimit.Algorithm#FIXED_WINDOW} limit can only hold a reservation for its current
     * or next window, so a request that another limit delays beyond that is refused.
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @param maxWait how long the caller accepts to wait for them; zero for no wait
     * @return the decision: when allowed, the caller may use the permits as soon as this returns; when refused, it
     *         must not (use {@link #acquire(long, Duration)} to get an exception instead)
     * @throws IllegalArgumentException  if {@code permits} is out of range or {@code maxWait} is negative
     * @throws InterruptedException      if the thread is interrupted before reserving or while sleeping
     * @throws BatonUnavailableException if Redis cannot be reached within {@link BatonConfig#rateLimitTimeout()}
     *                                   (unless the limiter fails open)
     */
    RateLimitDecision tryAcquire(long permits, Duration maxWait) throws InterruptedException;

    /**
     * {@link #tryAcquire(long, Duration)} without blocking: the future completes when the reserved permits are due,
     * or at once when refused. Its failures are those of the blocking call; its callbacks run on a Baton thread,
     * never on the Redis client's event loop.
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @param maxWait how long the caller accepts to wait for them; zero for no wait
     * @return the future decision
     * @throws IllegalArgumentException if {@code permits} is out of range or {@code maxWait} is negative
     */
    CompletableFuture<RateLimitDecision> tryAcquireAsync(long permits, Duration maxWait);

    /**
     * Takes {@code permits}, waiting up to {@code maxWait} for them, or throws: the form to use when the work must
     * not go ahead without them, since it cannot be mistaken for a grant. Reserves and sleeps exactly like
     * {@link #tryAcquire(long, Duration)}.
     *
     * <pre>{@code
     * api.acquire(1, Duration.ofSeconds(2));   // returns once the permit is ours, or throws
     * callTheApi();
     * }</pre>
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @param maxWait how long the caller accepts to wait for them; zero for no wait
     * @return the grant (always {@link RateLimitDecision#allowed() allowed}; {@link RateLimitDecision#failedOpen()}
     *         if a fail-open limiter could not ask Redis)
     * @throws RateLimitExceededException if the permits cannot be due within {@code maxWait}; nothing was reserved,
     *                                    and {@link RateLimitExceededException#decision()} says when to retry
     * @throws IllegalArgumentException   if {@code permits} is out of range or {@code maxWait} is negative
     * @throws InterruptedException       if the thread is interrupted before reserving or while sleeping
     * @throws BatonUnavailableException  if Redis cannot be reached within {@link BatonConfig#rateLimitTimeout()}
     *                                    (unless the limiter fails open)
     */
    RateLimitDecision acquire(long permits, Duration maxWait) throws InterruptedException;

    /**
     * {@link #acquire(long, Duration)} without blocking: the future completes when the reserved permits are due, or
     * exceptionally with {@link RateLimitExceededException} at once when refused. Its callbacks run on a Baton thread,
     * never on the Redis client's event loop.
     *
     * @param permits how many to take, from 1 to the smallest burst of the limiter
     * @param maxWait how long the caller accepts to wait for them; zero for no wait
     * @return the future grant
     * @throws IllegalArgumentException if {@code permits} is out of range or {@code maxWait} is negative
     */
    CompletableFuture<RateLimitDecision> acquireAsync(long permits, Duration maxWait);

    /**
     * A limiter on the same state that grants requests it cannot check because Redis is unreachable, marking
     * those decisions {@link RateLimitDecision#failedOpen()}, instead of throwing {@link BatonUnavailableException}.
     * Other failures (a Redis that rejects the script, wrong credentials) still throw.
     *
     * @return a fail-open limiter on the same state ({@code this} if it already fails open)
     */
    RateLimiter failOpen();

    /**
     * Whether this limiter grants requests while Redis is unreachable; see {@link #failOpen()}.
     *
     * @return true for a limiter from {@link #failOpen()}
     */
    boolean isFailOpen();
}
