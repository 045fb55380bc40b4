/**
 * Baton: distributed locks with leases and fencing tokens, and rate limiters, on Redis. Only {@code dev.baton} is
 * exported; the engine below it may change at any time.
 */
// Lettuce ships no module descriptor, only an automatic module name; its types are part of Baton's API through
// BatonConfig.Builder.clientResources, so readers of dev.baton must read it too.
@SuppressWarnings("requires-transitive-automatic")
module dev.baton {
    requires org.slf4j;
    requires transitive lettuce.core;
    requires reactor.core; // Lettuce's credentials provider hands Baton a Mono
    exports dev.baton;
}
