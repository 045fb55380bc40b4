package dev.baton.spring;

/** What a {@link DistributedLock} method does when its lock could not be acquired in time. */
public enum WhenNotAcquired {
    /** Throw a {@link LockNotAcquiredException}, naming the lock and the wait (the default). */
    THROW,
    /**
     * Do not run the method; return {@link DistributedLock#skipResult()} or an empty value. This is what a
     * scheduled job shared by a fleet wants: the instance that did not get the lock skips this run.
     */
    SKIP
}
