package dev.baton.internal.rw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedReadWriteLock;
import dev.baton.internal.engine.SteppedEngine;
import dev.baton.internal.transport.FakeTransport;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read-write lock's facade on the engine and a fake transport that grants every try: a thread that holds the read
 * side and asks for the write side is refused with {@link IllegalMonitorStateException} before anything is sent (it
 * would wait for its own read hold forever), while a thread that holds both may re-enter the write side, and a
 * downgrade (write, then read) is allowed.
 */
class RedisReadWriteLockTest {
    private final SteppedEngine baton = new SteppedEngine();
    private final FakeTransport redis = baton.redis;
    private final DistributedReadWriteLock lock = baton.primitives.readWriteLock("catalog");

    RedisReadWriteLockTest() {
        redis.answer(ReadLockCalls.ACQUIRE, c -> List.of(1L, 7L, 1L));
        redis.answer(WriteLockCalls.ACQUIRE, c -> List.of(1L, 8L, Long.parseLong(c.args.get(4)) == 0 ? 1L : 2L));
        redis.answer(ReadLockCalls.RELEASE, c -> 0L);
        redis.answer(WriteLockCalls.RELEASE, c -> 0L);
    }

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void anUpgradeIsRefusedBeforeAnythingIsSent() {
        lock.readLock().lock();

        assertThatThrownBy(() -> lock.writeLock().lock()).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("read-write lock 'catalog'");
        assertThatThrownBy(() -> lock.writeLock().tryLock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(redis.calls(WriteLockCalls.ACQUIRE)).isEmpty();

        lock.readLock().unlock();
        assertThat(lock.writeLock().tryLock()).as("once the read hold is gone").isTrue();
    }

    @Test
    void aDowngradeIsAllowedAndAWriterThatAlsoReadsMayReEnterTheWriteSide() {
        lock.writeLock().lock();
        lock.readLock().lock();

        lock.writeLock().lock();

        assertThat(lock.writeLock().holdCount()).isEqualTo(2);
        assertThat(redis.calls(WriteLockCalls.ACQUIRE)).hasSize(2);
        assertThat(redis.calls(WriteLockCalls.ACQUIRE).get(1).args.get(4)).as("re-enters its own token")
                .isEqualTo("8");
    }
}
