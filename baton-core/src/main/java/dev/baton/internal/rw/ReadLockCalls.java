package dev.baton.internal.rw;

import dev.baton.LockType;
import dev.baton.internal.engine.AcquireRequest;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The driver of the read side of a read-write lock: many owners at once, each with its own lease and fencing token,
 * admitted while no other owner holds the write side and no writer waits ({@code rw-read-acquire.lua}).
 */
public final class ReadLockCalls extends ReadWriteCalls {

    @Override
    public LockType type() {
        return LockType.READ;
    }
    static final Script ACQUIRE = Script.list("rw-read-acquire", "owns", "mint-token", "notify", "rw-state");
    static final Script RELEASE = Script.integer("rw-read-release", "owns", "notify", "rw-state");
    static final Script ABANDON = Script.integer("rw-read-abandon").inOrder();

    public ReadLockCalls(Transport gateway, Duration tokenRetention) {
        super(gateway, tokenRetention);
    }

    @Override
    String side() {
        return "r";
    }

    /** {@code rw-read-acquire.lua}: acquire or re-enter a read hold; a caller that will wait marks the lock. */
    @Override
    public CompletableFuture<Acquired> acquire(AcquireRequest r, boolean willWait) {
        LockKeys k = r.keys();
        return gateway.<List<Long>>run(ACQUIRE, new String[] {k.lock(), readers(k), writers(k), k.counter()}, r.owner(),
                Long.toString(r.leaseMillis()), r.holder(), tokenRetentionMillis, Long.toString(r.heldToken()),
                willWait ? "1" : "0").thenApply(ReadWriteCalls::acquired);
    }

    /** {@code rw-read-release.lua}: releases one hold count of this reader. */
    @Override
    public CompletableFuture<Long> release(LockKeys keys, String owner, long token, boolean publish) {
        return gateway.run(RELEASE, new String[] {keys.lock(), readers(keys), writers(keys)}, owner,
                Long.toString(token),
                keys.channel(), publish ? "1" : "0", sharded);
    }

    /**
     * {@code rw-read-abandon.lua}, only when a try got no reply: reports a read hold of this owner that such a try
     * granted. Readers leave no mark while they wait, so otherwise there is nothing to send.
     */
    @Override
    public CompletableFuture<Long> abandon(AcquireRequest request, boolean mayHoldGrant) {
        if (!mayHoldGrant) {
            return CompletableFuture.completedFuture(0L);
        }
        return gateway.run(ABANDON, new String[] {request.keys().lock()}, request.owner(),
                Long.toString(request.heldToken()));
    }

    /**
     * "w" (a writer may go, readers stay queued behind it) is not for readers; every other message ("all",
     * "released") is a reason to try.
     */
    @Override
    public long grantIn(String message, AcquireRequest request) {
        return WriteLockCalls.WRITER_MAY_GO.equals(message) ? -1 : 0;
    }
}
