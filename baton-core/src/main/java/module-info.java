/**
 * Baton: distributed locks with leases and fencing tokens, and rate limiters, on Redis. Only {@code dev.baton} is
 * exported; the engine below it may change at any time.
 */
module dev.baton {
    requires org.slf4j;
    requires lettuce.core;
    requires reactor.core; // Lettuce's credentials provider hands Baton a Mono
    exports dev.baton;
}
