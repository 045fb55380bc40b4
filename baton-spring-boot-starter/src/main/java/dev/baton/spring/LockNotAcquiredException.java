package dev.baton.spring;

import dev.baton.BatonException;
import java.time.Duration;

/**
 * A {@link DistributedLock} method did not run because its lock was not acquired within its wait time. The message
 * names the lock and the wait, never an argument value beyond what the key expression made of it.
 */
public class LockNotAcquiredException extends BatonException {

    private static final long serialVersionUID = 1L;

    /** The name of the lock that was not acquired. */
    private final String lockName;

    /** How long the call waited, or null if not known. */
    private final Duration waitTime;

    /**
     * @param lockName the lock's name
     * @param message  the message
     */
    public LockNotAcquiredException(String lockName, String message) {
        this(lockName, null, message);
    }

    /**
     * @param lockName the lock's name
     * @param waitTime how long the call waited for the lock before giving up, or null if not known
     * @param message  the message
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, String message) {
        super(message);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /**
     * @param lockName the lock's name
     * @param message  the message
     * @param cause    why the wait ended (an interrupt)
     */
    public LockNotAcquiredException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.waitTime = null;
    }

    /**
     * @return the name of the lock that was not acquired
     */
    public String lockName() {
        return lockName;
    }

    /**
     * The wait that ran out. The starter's web answer uses it for {@code Retry-After}: the lock was held by another
     * caller for at least this long.
     *
     * @return how long the call waited, or null if not known (an interrupted wait, or an exception made by hand)
     */
    public Duration waitTime() {
        return waitTime;
    }
}
