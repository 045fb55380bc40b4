/**
 * The semaphore with expiring permits: its driver and typed calls ({@code SemaphoreCalls}, {@code semaphore-*.lua},
 * {@code lua/lib/semaphore-state.lua}), the warning about totals ({@code SemaphoreTotals}) and the facade
 * ({@code RedisSemaphore}). Protocol: docs/semaphore.md. Internal: not exported.
 */
package dev.baton.internal.semaphore;
