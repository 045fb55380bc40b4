/**
 * The read-write lock: one driver per side ({@code ReadLockCalls}, {@code WriteLockCalls}) over shared keys and
 * scripts ({@code ReadWriteCalls}, {@code rw-*.lua}, {@code lua/lib/rw-state.lua}), and the facade
 * ({@code RedisReadWriteLock}), which refuses a read-to-write upgrade. Protocol: docs/read-write-lock.md. Internal:
 * not exported.
 */
package dev.baton.internal.rw;
