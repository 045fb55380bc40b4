package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Charges a Baton rate limiter before the annotated method of a Spring bean runs; when the limiter refuses, the
 * method does not run.
 *
 * <pre>{@code
 * @PostMapping("/items/{item}/buy")
 * @RateLimited(key = "'buy:' + #user", limits = {
 *         @Limit(permits = 5, period = "10s"),
 *         @Limit(permits = 100, period = "1h")})
 * public Receipt buy(@PathVariable String item, @RequestParam String user) { ... }
 * }</pre>
 *
 * <p>A refusal throws {@link dev.baton.RateLimitExceededException} carrying the decision. In a Spring MVC or WebFlux
 * application the starter turns it into {@code 429 Too Many Requests} with {@code Retry-After} and the IETF
 * {@code RateLimit} and {@code RateLimit-Policy} headers (turn that off with
 * {@code baton.rate-limit.web-responses=false}). A method returning a {@code Mono} or {@code Flux} is charged when it
 * is subscribed, without blocking the event loop, and the refusal is the publisher's error; one returning a
 * {@code CompletionStage} is charged without blocking and a refusal completes the stage exceptionally.
 *
 * <p>The limiter's name is {@link #key()} evaluated as a SpEL expression, as for {@link DistributedLock#key()}; one
 * limiter per distinct name, all with the same {@link #limits()}. Misuse fails the application's start, naming the
 * class and the method: a key or a period that does not parse, no limits, a cost out of range, a method proxies cannot
 * intercept, and a call from inside the same class ({@code this.buy(...)}), which would bypass the proxy and go
 * unlimited; it is found in the class's bytecode at startup.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RateLimited {

    /**
     * The limiter's name as a SpEL expression over the method's arguments, for example {@code "'buy:' + #user"}.
     *
     * @return the expression
     */
    String key();

    /**
     * The limits, all of which must allow a call (one or more).
     *
     * @return the limits
     */
    Limit[] limits();

    /**
     * How many permits one call takes (at least 1).
     *
     * @return the cost of a call
     */
    long cost() default 1;

    /**
     * Whether a call goes ahead unchecked when Redis cannot answer; empty (the default) takes
     * {@code baton.rate-limit.fail-open}. {@code "true"} or {@code "false"}, or a property placeholder.
     *
     * @return whether to fail open, or empty for the configured default
     */
    String failOpen() default "";
}
