package dev.baton.internal.rw;

import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.RedisDistributedLock;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;

/**
 * The facade of {@link DistributedReadWriteLock}: two {@link RedisDistributedLock}s over one set of keys, one per
 * side, each with its own driver ({@link ReadLockCalls}, {@link WriteLockCalls}).
 */
public final class RedisReadWriteLock implements DistributedReadWriteLock {
    private final String name;
    private final DistributedLock readLock;
    private final DistributedLock writeLock;

    public RedisReadWriteLock(LockEngine engine, ReadLockCalls read, WriteLockCalls write, LockKeys keys) {
        this.name = keys.name();
        this.readLock = new RedisDistributedLock(engine, read, keys, null);
        this.writeLock = new RedisDistributedLock(engine, write, keys, null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return readLock;
    }

    @Override
    public DistributedLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock{" + name + "}";
    }
}
