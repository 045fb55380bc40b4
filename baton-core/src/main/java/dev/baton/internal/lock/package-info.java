/**
 * The reentrant lock: the facade ({@code RedisDistributedLock}), the engine that runs attempts, holds, local handoff
 * and release ({@code LockEngine}), waiting on pub/sub ({@code ReleaseNotifications}), renewal ({@code Watchdog}) and
 * the typed calls of its scripts ({@code LockCalls}). Protocol: docs/lock-protocol.md. Internal: not exported.
 */
package dev.baton.internal.lock;
