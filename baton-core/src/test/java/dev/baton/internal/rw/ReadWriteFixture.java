package dev.baton.internal.rw;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.List;

/** Both drivers of one read-write lock on one fake transport, and the key lists their scripts take. */
final class ReadWriteFixture {
    static final LockKeys KEYS = ReadWriteCalls.keys("baton", "catalog");
    static final String RETENTION_MILLIS = "86400000";

    final FakeTransport redis;
    final ReadLockCalls read;
    /** With a re-check interval of 500 ms: intents of the shortest, 2 s. */
    final WriteLockCalls write;

    ReadWriteFixture() {
        this(new FakeTransport(Duration.ofSeconds(1)));
    }

    ReadWriteFixture(FakeTransport redis) {
        this.redis = redis;
        this.read = new ReadLockCalls(redis, Duration.ofDays(1));
        this.write = new WriteLockCalls(redis, Duration.ofDays(1), read, Duration.ofMillis(500));
    }

    /** What both acquire scripts take: holds, readers, writers, counter. */
    static List<String> acquireKeys() {
        return List.of(KEYS.lock(), ReadWriteCalls.readers(KEYS), ReadWriteCalls.writers(KEYS), KEYS.counter());
    }

    /** What both release scripts and the forced unlock take: holds, readers, writers. */
    static List<String> releaseKeys() {
        return List.of(KEYS.lock(), ReadWriteCalls.readers(KEYS), ReadWriteCalls.writers(KEYS));
    }
}
