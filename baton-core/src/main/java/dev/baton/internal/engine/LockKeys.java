package dev.baton.internal.engine;

import dev.baton.internal.transport.HashTag;

/**
 * Where one lock lives in Redis (see docs/key-layout.md). Both keys share the hash tag {@code {<name>}}, so a lock
 * and its fencing counter always sit in one Cluster hash slot and one script can touch both.
 *
 * <p>The name is escaped by {@link HashTag}, so it can never end the hash tag early.
 *
 * @param name    the lock name as the user gave it
 * @param lock    hash with owner, count, token, holder; expires with the lease
 * @param counter the last fencing token issued for the name; expires after the token retention
 * @param channel pub/sub channel on which a release is announced
 */
public record LockKeys(String name, String lock, String counter, String channel) {

    public static LockKeys of(String namespace, String name) {
        String tag = HashTag.of(namespace, "lock", name);
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }
}
