/**
 * The one door to Redis: what the primitives need of it ({@code Transport}: scripts, a few commands, pub/sub
 * {@code Subscriptions}), connecting to a standalone server, a Sentinel-managed master or a Cluster
 * ({@code RedisGateway}), the URI as Baton parses it ({@code RedisAddress}), diagnostics for failed connections, and
 * the Lua scripts with their shared helpers ({@code Script}). Nothing above this package touches Lettuce's
 * connection types. Internal: not exported.
 */
package dev.baton.internal.transport;
