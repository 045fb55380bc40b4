/**
 * The count-down latch: its keys ({@code LatchKeys}), its scripts as typed calls ({@code LatchCalls},
 * {@code latch-*.lua}), the per-Baton subscriptions its waiters share ({@code LatchWaits}, over the engine's
 * {@code ReleaseNotifications}) and the facade ({@code RedisCountDownLatch}). Protocol: docs/count-down-latch.md.
 * Internal: not exported.
 */
package dev.baton.internal.latch;
