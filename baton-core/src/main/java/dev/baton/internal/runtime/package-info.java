/**
 * The runtime one {@code Baton} owns and every primitive shares: the transport, the time ({@code Ticker}) and the
 * scheduler that runs timers on it, the bounded callback executor that completes user futures off Lettuce's event
 * loop, the instance identity, the event delivery, the known-outage state and the close order. Primitives depend on
 * the runtime, never on each other; unit tests assemble one from fakes. Internal: not exported.
 */
package dev.baton.internal.runtime;
