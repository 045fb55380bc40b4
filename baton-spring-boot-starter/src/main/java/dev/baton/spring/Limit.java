package dev.baton.spring;

import dev.baton.RateLimit;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One limit of a {@link RateLimited} method: at most {@link #permits()} per {@link #period()}, as
 * {@link RateLimit#builder(long, java.time.Duration)} builds it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Limit {

    /**
     * @return how many permits per period (at least 1)
     */
    long permits();

    /**
     * The period, written as Spring Boot writes durations ({@code "1s"}, {@code "10m"}, {@code "PT1H"}), or a
     * property placeholder.
     *
     * @return the period
     */
    String period();

    /**
     * How many permits can be taken at once; 0 (the default) means {@link #permits()}.
     *
     * @return the burst, or 0 for the default
     */
    long burst() default 0;

    /**
     * @return the algorithm; GCRA by default
     */
    RateLimit.Algorithm algorithm() default RateLimit.Algorithm.GCRA;
}
