/**
 * The hold lifecycle shared by every primitive: attempts ({@code AcquireAttempt}), holds ({@code Hold}) and their
 * bookkeeping and release ({@code LockEngine}), renewal ({@code Watchdog}), withdrawing attempts that ended without
 * the lock ({@code Abandons}), waiting on pub/sub ({@code ReleaseNotifications}), the driver SPI ({@code LockDriver},
 * {@code LockView}), and the bridge from an acquisition to a blocking call, a future and a lease ({@code Waiting},
 * {@code AcquiringLock}, {@code DriverLock}, {@code HoldLease}). It imports no family: a family plugs in with a
 * driver. See docs/architecture.md. Internal: not exported.
 */
package dev.baton.internal.engine;
