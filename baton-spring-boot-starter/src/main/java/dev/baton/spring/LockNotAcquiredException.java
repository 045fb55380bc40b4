package dev.baton.spring;

import dev.baton.BatonException;

/**
 * A {@link DistributedLock} method did not run because its lock was not acquired within its wait time. The message
 * names the lock and the wait, never an argument value beyond what the key expression made of it.
 */
public class LockNotAcquiredException extends BatonException {

    private static final long serialVersionUID = 1L;

    /** The name of the lock that was not acquired. */
    private final String lockName;

    /**
     * @param lockName the lock's name
     * @param message  the message
     */
    public LockNotAcquiredException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /**
     * @param lockName the lock's name
     * @param message  the message
     * @param cause    why the wait ended (an interrupt)
     */
    public LockNotAcquiredException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /**
     * @return the name of the lock that was not acquired
     */
    public String lockName() {
        return lockName;
    }
}
