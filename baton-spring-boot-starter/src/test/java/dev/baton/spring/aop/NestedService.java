package dev.baton.spring.aop;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.LockContext;

/** Annotated methods that {@link LockedService#outer()} calls from inside its own lock. */
public class NestedService {

    @DistributedLock(key = "'inner'")
    public String inner() {
        return LockContext.currentLease().orElseThrow().lockName();
    }

    /** The same lock as the outer method's: it runs under the outer lease instead of waiting for itself. */
    @DistributedLock(key = "'outer'", waitTime = "0")
    public String same() {
        return LockContext.currentLease().orElseThrow().lockName() + "#" + LockContext.currentFencingToken();
    }
}
