package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import dev.baton.spring.RateLimiterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The starter's {@link RateLimiterRegistry}: at most {@code baton.rate-limit.max-limiters} limiters, the least
 * recently used dropped beyond that. Dropping one loses nothing: a limiter object holds no state (it lives in Redis),
 * and the next call for its name creates it again. Asking for a name with other limits than the registry holds
 * replaces the limiter (Baton keeps the state in Redis, converted to the new limits). Thread-safe: one lock guards the
 * map, held only for map operations (creating a limiter makes no Redis call).
 */
public final class BoundedRateLimiterRegistry implements RateLimiterRegistry {

    private final Baton baton;
    private final Map<String, RateLimiter> limiters;

    /**
     * @param baton       creates the limiters
     * @param maxLimiters how many limiters to keep, at least 1
     * @throws IllegalArgumentException if {@code maxLimiters} is below 1
     */
    public BoundedRateLimiterRegistry(Baton baton, int maxLimiters) {
        this.baton = Objects.requireNonNull(baton, "baton");
        if (maxLimiters < 1) {
            throw new IllegalArgumentException("maxLimiters must be at least 1: " + maxLimiters);
        }
        this.limiters = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, RateLimiter> eldest) {
                return size() > maxLimiters;
            }
        };
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the name is blank or too long, or no limit is given (as
     *                                  {@link Baton#rateLimiter} checks)
     */
    @Override
    public RateLimiter limiter(String name, List<RateLimit> limits) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(limits, "limits");
        synchronized (limiters) {
            RateLimiter known = limiters.get(name);
            if (known != null && known.limits().equals(limits)) {
                return known;
            }
        }
        RateLimiter created = baton.rateLimiter(name, limits.toArray(RateLimit[]::new));
        synchronized (limiters) {
            RateLimiter known = limiters.get(name);
            if (known != null && known.limits().equals(limits)) {
                return known; // another thread created it meanwhile: share one
            }
            limiters.put(name, created);
            return created;
        }
    }

    @Override
    public Optional<RateLimiter> find(String name) {
        synchronized (limiters) {
            return Optional.ofNullable(limiters.get(name));
        }
    }

    @Override
    public Set<String> names() {
        synchronized (limiters) {
            return Set.copyOf(limiters.keySet());
        }
    }
}
