package dev.baton.internal.latch;

import dev.baton.internal.transport.HashTag;

/**
 * Where one latch lives in Redis (docs/key-layout.md): {@code <ns>:latch:{<name>}} and its channel. The kind
 * {@code latch} before the tag keeps a latch apart from every lock, semaphore or election of the same name, while
 * the tag {@code {<name>}}, the same for every kind, keeps them in one Cluster hash slot, so that
 * {@code Baton.inspect(name)} reads them all in one script.
 *
 * @param name    the latch's name as the user gave it
 * @param latch   hash whose field {@code count} holds the count; expires with the latch's expiry
 * @param channel pub/sub channel on which the release is announced
 */
public record LatchKeys(String name, String latch, String channel) {

    /** The keys of the latch {@code name} in {@code namespace}. */
    public static LatchKeys of(String namespace, String name) {
        String tag = HashTag.of(namespace, "latch", name);
        return new LatchKeys(name, tag, tag + ":released");
    }
}
