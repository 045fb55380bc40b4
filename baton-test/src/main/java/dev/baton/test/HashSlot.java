package dev.baton.test;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The Redis Cluster hash slot of a key, computed as Redis does, so a test can tell which node owns a key (see
 * {@link RedisCluster#masterForKey(String)}) or build keys that land in the same or in different slots.
 *
 * <p>The slot is CRC16 (XMODEM variant) of the key modulo {@value #COUNT}. If the key contains a <em>hash tag</em>,
 * i.e. a {@code '{'} followed later by a {@code '}'} with at least one byte between them, only the bytes between the
 * first {@code '{'} and the first {@code '}'} after it are hashed; so {@code "{user1}:a"} and {@code "{user1}:b"}
 * share a slot, while {@code "{}user1"} is hashed whole.
 *
 * <p>Stateless and thread-safe.
 */
public final class HashSlot {

    /** Number of hash slots in a Redis Cluster. */
    public static final int COUNT = 16_384;

    private HashSlot() {
    }

    /**
     * The hash slot of a key given as text; the key is hashed as its UTF-8 bytes, as clients send it.
     *
     * @param key the key
     * @return the slot, from 0 to {@code COUNT - 1}
     * @throws NullPointerException if {@code key} is null
     */
    public static int of(String key) {
        return of(Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The hash slot of a binary key.
     *
     * @param key the key's bytes
     * @return the slot, from 0 to {@code COUNT - 1}
     * @throws NullPointerException if {@code key} is null
     */
    public static int of(byte[] key) {
        Objects.requireNonNull(key, "key");
        int from = 0;
        int to = key.length;
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) { // "{}" is no tag: the whole key is hashed then
                from = open + 1;
                to = close;
            }
        }
        return crc16(key, from, to) & (COUNT - 1);
    }

    /** CRC16-CCITT in its XMODEM form (polynomial 0x1021, initial value 0, no reflection), as Redis Cluster uses. */
    static int crc16(byte[] data, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (data[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }

    private static int indexOf(byte[] data, byte b, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
