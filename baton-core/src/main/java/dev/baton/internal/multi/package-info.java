/**
 * The multi-lock: several plain locks held all together or not at all ({@code RedisMultiLock}), acquired by a
 * {@code MultiAttempt} (one {@code multi-acquire.lua} per hash slot, then plain waits) and held as plain holds
 * ({@code MultiLease}). Built on the plain lock's typed calls. Protocol: docs/multi-lock.md. Internal: not exported.
 */
package dev.baton.internal.multi;
