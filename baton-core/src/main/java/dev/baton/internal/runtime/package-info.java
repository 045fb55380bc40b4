/**
 * The runtime one {@code Baton} owns and every primitive shares: the transport, the scheduler, the callback executor
 * that completes user futures off Lettuce's event loop, the instance identity, the event delivery, the known-outage
 * state and the close order. Primitives depend on the runtime, never on each other. Internal: not exported.
 */
package dev.baton.internal.runtime;
