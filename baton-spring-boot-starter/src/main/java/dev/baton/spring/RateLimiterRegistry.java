package dev.baton.spring;

import dev.baton.RateLimit;
import dev.baton.RateLimiter;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The rate limiters this application has used through {@link RateLimited} (and any the application registers), by
 * name: the annotation's interceptor takes its limiters from here, and the Actuator endpoint inspects them. A bean
 * of the starter; thread-safe.
 */
public interface RateLimiterRegistry {

    /**
     * The limiter of that name with these limits, created on first use.
     *
     * @param name   the limiter's name
     * @param limits its limits
     * @return the limiter
     */
    RateLimiter limiter(String name, List<RateLimit> limits);

    /**
     * The limiter of that name, if this registry has created it (and not yet evicted it: it keeps a bounded number).
     *
     * @param name the limiter's name
     * @return the limiter, or empty
     */
    Optional<RateLimiter> find(String name);

    /**
     * @return the names of the limiters the registry holds now
     */
    Set<String> names();
}
