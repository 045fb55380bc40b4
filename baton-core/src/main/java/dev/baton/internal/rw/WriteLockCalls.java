package dev.baton.internal.rw;

import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.Replies;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The driver of the write side of a read-write lock: one owner, while no other owner holds either side. A writer
 * that waits records an intent that holds new readers back ({@code rw-write-acquire.lua}); its tries renew the intent,
 * and it withdraws the intent when it gives up ({@link #abandon}).
 */
public final class WriteLockCalls extends ReadWriteCalls {

    @Override
    public LockType type() {
        return LockType.WRITE;
    }
    static final Script ACQUIRE = Script.list("rw-write-acquire", "owns", "mint-token", "notify", "rw-state");
    static final Script RELEASE = Script.integer("rw-write-release", "owns", "notify", "rw-state");
    static final Script ABANDON = Script.list("rw-write-abandon", "notify", "rw-state").inOrder();

    /** The release message that wakes one waiting writer per Baton and no reader (lib/rw-state.lua, rw_wake). */
    static final String WRITER_MAY_GO = "w";

    /** The shortest intent: a waiting writer must come back within a third of it, even on a loaded machine. */
    private static final long MIN_INTENT_MILLIS = 2000;

    private final ReadLockCalls readSide;
    private final String intentMillis;

    /**
     * @param recheckInterval the longest a waiter sleeps between tries; a writer's intent lasts three of them (at
     *                        least {@value #MIN_INTENT_MILLIS} ms), so that a live writer renews it in time
     */
    public WriteLockCalls(Transport gateway, Duration tokenRetention, ReadLockCalls readSide,
            Duration recheckInterval) {
        super(gateway, tokenRetention);
        this.readSide = readSide;
        this.intentMillis = Long.toString(intentMillis(recheckInterval));
    }

    /** How long a waiting writer's intent lasts unless its next try renews it. */
    static long intentMillis(Duration recheckInterval) {
        return Math.max(MIN_INTENT_MILLIS, 3 * recheckInterval.toMillis());
    }

    @Override
    String side() {
        return "w";
    }

    /** {@code rw-write-acquire.lua}: acquire or re-enter the write hold; a caller that will wait records its intent. */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        LockKeys k = r.keys();
        return gateway.<List<Long>>run(ACQUIRE, new String[] {k.lock(), readers(k), writers(k), k.counter()}, r.owner(),
                Long.toString(r.leaseMillis()), r.holder(), tokenRetentionMillis, Long.toString(r.heldToken()),
                willWait ? "1" : "0", intentMillis).thenApply(reply -> {
                    if (reply.get(0) == UPGRADE_REFUSED) {
                        throw upgradeRefused(k);
                    }
                    return acquired(reply);
                });
    }

    /** {@code rw-write-release.lua}: releases one hold count of the writer. */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(RELEASE, new String[] {keys.lock(), readers(keys), writers(keys)}, owner,
                Long.toString(token),
                keys.channel(), publish ? "1" : "0", sharded);
    }

    /**
     * {@code rw-write-abandon.lua}: a writer that gave up withdraws its intent, so it holds no reader back; reports a
     * write hold of this owner that a try whose reply never came granted.
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        LockKeys k = request.keys();
        return gateway.<List<Long>>run(ABANDON, new String[] {k.lock(), writers(k)},
                request.owner(), k.channel(), sharded, Long.toString(request.heldToken())).thenApply(Replies::orphanIn);
    }

    static IllegalMonitorStateException upgradeRefused(LockKeys keys) {
        return new IllegalMonitorStateException("read-write lock '" + keys.name() + "': the current owner holds the "
                + "read lock and asks for the write lock; an upgrade would wait for its own read hold forever, so "
                + "release the read lock first (a downgrade, write then read, is allowed)");
    }
}
