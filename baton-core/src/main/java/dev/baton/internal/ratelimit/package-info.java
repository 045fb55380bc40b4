/**
 * The rate limiters: the facade ({@code RedisRateLimiter}), the typed call of {@code rate-decide.lua}
 * ({@code RateLimitCall}) and the local memory of refusals ({@code KnownRefusal}). Protocol: docs/rate-limiting.md.
 * Internal: not exported.
 */
package dev.baton.internal.ratelimit;
