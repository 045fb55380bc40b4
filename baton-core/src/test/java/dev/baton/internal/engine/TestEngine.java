package dev.baton.internal.engine;

import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.internal.primitives.Primitives;
import dev.baton.internal.runtime.BatonRuntime;

/**
 * A lock engine on a runtime of its own with the primitives a Baton builds on it, for tests that look inside the
 * engine's bookkeeping while they use the locks as a caller would.
 */
public final class TestEngine implements AutoCloseable {
    public final LockEngine engine;
    private final BatonRuntime runtime;
    private final Primitives primitives;

    private TestEngine(BatonRuntime runtime) {
        this.runtime = runtime;
        this.engine = LockEngine.start(runtime);
        this.primitives = new Primitives(runtime, engine);
    }

    public static TestEngine start(BatonConfig config) {
        return new TestEngine(BatonRuntime.start(config));
    }

    public DistributedLock lock(String name) {
        return primitives.lock(name);
    }

    public DistributedLock fairLock(String name) {
        return primitives.fairLock(name);
    }

    public DistributedReadWriteLock readWriteLock(String name) {
        return primitives.readWriteLock(name);
    }

    public DistributedSemaphore semaphore(String name, int permits) {
        return primitives.semaphore(name, permits);
    }

    public DistributedLock multiLock(String... names) {
        return primitives.multiLock(names);
    }

    public LockEngine.Bookkeeping bookkeeping() {
        return engine.bookkeeping();
    }

    public String instanceId() {
        return engine.instanceId();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
