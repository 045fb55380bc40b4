/**
 * The reentrant lock: the facade ({@code DriverLock}), the engine that runs attempts, holds, local handoff
 * and release ({@code LockEngine}), waiting on pub/sub ({@code ReleaseNotifications}), renewal ({@code Watchdog}) and
 * the typed calls of its scripts ({@code LockCalls}). Protocol: docs/lock-protocol.md. Internal: not exported.
 */
package dev.baton.internal.lock;

import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.DriverLock;
import dev.baton.internal.engine.ReleaseNotifications;
import dev.baton.internal.engine.Watchdog;
