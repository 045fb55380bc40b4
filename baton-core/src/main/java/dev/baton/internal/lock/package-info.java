/**
 * The mutexes: the plain reentrant lock's driver and typed calls ({@code LockCalls}, scripts {@code lock-*.lua}), its
 * replica-acknowledged decorator ({@code AcknowledgedLockDriver}) and the fair lock ({@code FairLockDriver},
 * {@code fair-*.lua}). Their facade is the engine's {@code DriverLock}. Families built on the mutex (multi-lock,
 * Redlock) may use {@code LockCalls}' typed calls. Protocol: docs/lock-protocol.md, docs/fair-lock.md. Internal: not
 * exported.
 */
package dev.baton.internal.lock;
