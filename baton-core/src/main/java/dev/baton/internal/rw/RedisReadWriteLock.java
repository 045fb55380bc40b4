package dev.baton.internal.rw;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.internal.engine.DriverLock;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;

/**
 * The facade of {@link DistributedReadWriteLock}: two {@link DriverLock}s over one set of keys, one per side, each
 * with its own driver ({@link ReadLockCalls}, {@link WriteLockCalls}).
 */
public final class RedisReadWriteLock implements DistributedReadWriteLock {
    private final String name;
    private final DistributedLock readLock;
    private final DistributedLock writeLock;

    public RedisReadWriteLock(LockEngine engine, ReadLockCalls read, WriteLockCalls write, LockKeys keys) {
        this.name = keys.name();
        this.readLock = new DriverLock(engine, read, keys);
        this.writeLock = new DriverLock(engine, write, write, keys,
                (k, owner) -> refuseUpgrade(engine, read, write, k, owner));
    }

    /**
     * A thread that holds the read side but not the write side may not ask for the write side: it would wait for its
     * own read hold forever. Refused before anything is sent (the script refuses it as well, for a read hold this
     * process no longer knows about).
     */
    private static void refuseUpgrade(LockEngine engine, ReadLockCalls read, WriteLockCalls write, LockKeys keys,
                                      String owner) {
        Hold readHold = engine.reentrantHold(read, keys, owner);
        if (readHold == null || !readHold.isHeld()) {
            return;
        }
        Hold writeHold = engine.reentrantHold(write, keys, owner);
        if (writeHold == null || !writeHold.isHeld()) {
            throw WriteLockCalls.upgradeRefused(keys);
        }
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
