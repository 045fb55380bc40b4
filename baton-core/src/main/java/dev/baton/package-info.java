/**
 * Baton: distributed locks with leases and fencing tokens, and rate limiters, on Redis.
 *
 * <p>Start with {@link dev.baton.Baton#connect(String)}, then {@link dev.baton.Baton#lock(String)} or
 * {@link dev.baton.Baton#rateLimiter(String, dev.baton.RateLimit...)}. Everything public lives in this package;
 * the engine lives in {@code dev.baton.internal.*} (runtime, transport, one package per primitive family) and may
 * change at any time.
 */
package dev.baton;
